"""Fuzzing the text parsers: CrystalDiskMark/KDiskMark exports (the unit tests' samples in the
published layouts and ssdlab's own golden CDM export), spec-sheet TOML (the shipped sheets),
and /proc/self/mountinfo and /proc/swaps (the recorded trees and this machine's own). Only a
result or a clean ParseError is allowed."""

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.parse.benchmark_text import parse_benchmark_text
from ssdlab.parse.mountinfo import parse_mountinfo, parse_swaps
from ssdlab.parse.spec_sheet import parse_spec_sheet, render_spec_sheet
from tests.fuzz.harness import (
    DATA,
    FUZZ,
    GENERATED,
    HALF,
    HOSTILE_TEXT,
    ROOT,
    Samples,
    files,
    mutated_text,
    outcome,
    texts,
)
from tests.fuzz.test_fuzz_fio import assert_no_nan
from tests.unit.parse import test_benchmark_text as benchmark_samples

BENCHMARK_TEXT = Samples(
    {
        name: value
        for name, value in vars(benchmark_samples).items()
        if name.isupper() and isinstance(value, str) and "MB/s" in value
    }
    | {"golden quick.txt": (ROOT / "tests/golden/report/quick.txt").read_text(encoding="utf-8")}
)
SPEC_SHEETS = texts(files(ROOT / "src/ssdlab/specs", "*.toml"))
MOUNTINFO = texts([*files(DATA / "sysfs", "*/proc/self/mountinfo"), Path("/proc/self/mountinfo")])
SWAPS = texts(files(DATA / "sysfs", "*/proc/swaps"))


def test_seeds_parse() -> None:
    assert len(BENCHMARK_TEXT) >= 5
    assert all(outcome(parse_benchmark_text, text) for text in BENCHMARK_TEXT)
    assert all(outcome(parse_spec_sheet, text, "seed") for text in SPEC_SHEETS)
    assert all(outcome(parse_mountinfo, text) for text in MOUNTINFO)


@FUZZ
@given(mutated_text(BENCHMARK_TEXT))
def test_benchmark_text_mutated(text: str) -> None:
    result = outcome(parse_benchmark_text, text)
    if result is not None:
        assert_no_nan(result)
        assert result.tests


RESULT_LINE = st.builds(
    "{}{} {}{} (Q={}, T={}): {} MB/s [{} IOPS] <{} us>".format,
    st.sampled_from(["", "  ", "> ", "\t"]),
    st.sampled_from(["SEQ", "RND", "Sequential", "Random", "Random Read", "Sequential Write"]),
    st.one_of(st.integers(-2, 2**70).map(str), HOSTILE_TEXT),
    st.sampled_from(["MiB", "KiB", " MiB", "M", "", "GiB"]),
    st.one_of(st.integers(-2, 2**70).map(str), HOSTILE_TEXT),
    st.one_of(st.integers(-2, 2**70).map(str), HOSTILE_TEXT),
    st.one_of(st.floats(allow_nan=True).map(str), st.integers().map(str), HOSTILE_TEXT),
    st.one_of(st.floats(allow_nan=True).map(str), HOSTILE_TEXT),
    st.one_of(st.floats(allow_nan=True).map(str), HOSTILE_TEXT),
)


@GENERATED
@given(
    st.sampled_from(["CrystalDiskMark 8.0.4 x64", "KDiskMark (3.1.4)", "CrystalDiskMark 6.0.0"]),
    st.lists(
        st.one_of(
            RESULT_LINE, st.sampled_from(["[Read]", "[Write]", "[Mix]", "", "Profile: Default"])
        ),
        max_size=10,
    ),
)
def test_benchmark_text_generated(header: str, lines: list[str]) -> None:
    result = outcome(parse_benchmark_text, "\n".join([header, *lines]))
    if result is not None:
        assert_no_nan(result)


@FUZZ
@given(mutated_text(SPEC_SHEETS))
def test_spec_sheet_mutated(text: str) -> None:
    sheet = outcome(parse_spec_sheet, text, "fuzz.toml")
    if sheet is not None:
        assert_no_nan(sheet)
        # what ssdlab writes back must read back the same
        assert outcome(parse_spec_sheet, render_spec_sheet(sheet), "rendered") == sheet


@GENERATED
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "vendor",
                "model",
                "capacity",
                "seq_read_mb_s",
                "tbw",
                "warranty_years",
                "key",
                "part_numbers",
                "schema",
                "sources",
                "rnd4k_q32t1_read_iops",
            ]
        ),
        st.one_of(
            st.integers(-2, 2**70).map(str),
            st.floats().map(str),
            st.text(max_size=12).map(repr),
            st.sampled_from(['"500GB"', '"1e999GB"', "inf", "nan", '["a", 1]', "{}", '"-1KiB"']),
        ),
        min_size=1,
    )
)
def test_spec_sheet_generated(fields: dict[str, str]) -> None:
    base = {"schema": "1", "vendor": '"V"', "model": '"M"', "capacity": '"1TB"', "sources": '["x"]'}
    text = "\n".join(f"{key} = {value}" for key, value in (base | fields).items())
    sheet = outcome(parse_spec_sheet, text, "fuzz.toml")
    if sheet is not None:
        assert_no_nan(sheet)
        assert outcome(parse_spec_sheet, render_spec_sheet(sheet), "rendered") == sheet


@FUZZ
@given(mutated_text(MOUNTINFO))
def test_mountinfo_mutated(text: str) -> None:
    entries = outcome(parse_mountinfo, text)
    for entry in entries or ():
        assert entry.mount_point
        assert entry.major >= 0
        assert entry.minor >= 0


@HALF
@given(st.one_of(mutated_text(SWAPS), st.text(max_size=80)))
def test_swaps_mutated(text: str) -> None:
    outcome(parse_swaps, text)


def test_no_nan_check_itself() -> None:
    """The NaN check the fuzz tests rely on catches a NaN deep in a result."""
    with pytest.raises(AssertionError, match=r"\[1\]"):
        assert_no_nan({"a": (1.0, [math.nan])})
