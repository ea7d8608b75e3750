"""Tables on a narrow console: identifiers whole, other cells wrapped between words, never an
ellipsis; the console ssdlab prints to is unlimited when its output is not a terminal."""

import io
import sys

import pytest
from rich.console import Console
from rich.table import Table

from ssdlab.cli.terminal_tables import (
    UNLIMITED_WIDTH,
    fitted_widths,
    make_console,
    print_table,
)

KEY = "rnd4k-q32t1-write-lat-of-a-long-profile-step"
NOTE = "a sentence long enough to be wrapped between its words on a console forty columns wide"


def _printed(width: int) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    table = Table(title="t")
    table.add_column("metric")
    table.add_column("note")
    table.add_row(KEY, NOTE)
    print_table(console, table)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(text, str)
    return text


def test_a_key_is_whole_and_words_wrap_at_40_columns() -> None:
    text = _printed(40)
    assert KEY in text
    assert "…" not in text
    words = {word for line in text.splitlines() for word in line.strip("│ ").split()}
    assert set(NOTE.split()) <= words  # every word whole: wrapped between words only


def test_a_wide_console_prints_the_table_as_wide_as_its_content() -> None:
    lines = _printed(500).splitlines()
    assert any(KEY in line and NOTE in line for line in lines)
    assert max(len(line) for line in lines) < 200


def test_fitted_widths_narrow_the_widest_first_and_stop_at_the_longest_word() -> None:
    assert fitted_widths([10, 30, 20], [10, 5, 5], 50) == [10, 20, 20]
    assert fitted_widths([10, 30, 20], [10, 5, 5], 30) == [10, 10, 10]
    assert fitted_widths([10, 30, 20], [10, 12, 8], 10) == [10, 12, 8]  # wider than asked


def test_output_that_is_not_a_terminal_is_unlimited(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert make_console(None).width == UNLIMITED_WIDTH
    assert make_console(60).width == 60
