"""The console a command gets is made on its first use: it prints what `make_console`'s
console prints, is that console from then on, and `ssdlab metrics`, which prints nothing
through it, imports no rich."""

import io
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table

from ssdlab.cli.console_on_use import PendingConsole, console_on_use
from ssdlab.cli.terminal_tables import UNLIMITED_WIDTH, TerminalConsole, make_console
from ssdlab.store.db import open_store


def _table() -> Table:
    table = Table(title="runs")
    table.add_column("run")
    table.add_column("note")
    table.add_row("rnd4k-q32t1-write", "a note long enough to be wrapped between its words")
    return table


def _printed(console: Console, stdout: io.StringIO) -> str:
    console.print(_table())
    console.print("wrote [x]/ssdlab.prom :smile:", highlight=False, soft_wrap=True)
    console.rule("end")
    return stdout.getvalue()


@pytest.mark.parametrize("width", [None, 40, 200])
def test_it_prints_what_the_console_made_at_once_prints(
    monkeypatch: pytest.MonkeyPatch, width: int | None
) -> None:
    texts = []
    for make in (make_console, console_on_use):
        stdout = io.StringIO()
        monkeypatch.setattr(sys, "stdout", stdout)
        texts.append(_printed(make(width), stdout))
    assert texts[0] == texts[1]
    assert "rnd4k-q32t1-write" in texts[0]


def test_it_is_the_console_from_its_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    out = console_on_use(None)
    assert type(out) is PendingConsole
    assert out.width == UNLIMITED_WIDTH  # the first use
    assert type(out) is TerminalConsole
    assert isinstance(out, Console)
    assert console_on_use(60).width == 60


def test_with_as_its_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    stdout = io.StringIO()
    monkeypatch.setattr(sys, "stdout", stdout)
    out = console_on_use(None)
    with out:  # rich's buffer: printed when the block ends
        out.print("inside")
        assert stdout.getvalue() == ""
    assert stdout.getvalue() == "inside\n"


def test_ssdlab_metrics_imports_no_rich(tmp_path: Path) -> None:
    """A scrape prints its text itself: the console is never used, rich never imported (a
    command's first use of the console imports it)."""
    db = tmp_path / "store.sqlite"
    open_store(db).close()
    code = (
        "import sys; from ssdlab.cli.main import main;"
        f"code = main(['metrics', '--db', {str(db)!r}]);"
        "print(code, 'rich' in sys.modules, file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stderr.split() == ["0", "False"]
    assert "ssdlab_drive" in done.stdout
