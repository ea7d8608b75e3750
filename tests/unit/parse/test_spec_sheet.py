"""Spec sheets: the shipped ones, unit conversion at the boundary, refusals, and matching a
drive's reported model string."""

import json
from dataclasses import replace

import pytest

from ssdlab.analysis.spec_match import match_spec
from ssdlab.errors import ParseError
from ssdlab.model.spec import ClaimedIops
from ssdlab.parse.spec_sheet import parse_spec_sheet, render_spec_sheet
from ssdlab.specs import load_builtin_spec_sheets
from tests.conftest import SHARED

MINIMAL = """
vendor = "Acme"
model = "Fast 1"
capacity = "1TB"
sources = ["https://example.invalid/acme-fast-1.pdf, page 2"]
"""
FULL = (
    MINIMAL
    + """
seq_read_mb_s = 3500
seq_write_mb_s = 3300.5
random_read_iops = 600000
random_read_qd = 32
random_read_threads = 4
random_write_iops = 550000
tbw_tb = 600
dwpd = 0.33
warranty_years = 5
cache = "42GB"
part_numbers = ["ACME-F1-1T", "ACME FAST 1 1TB"]
"""
)


def test_every_shipped_sheet_parses_and_round_trips() -> None:
    sheets = load_builtin_spec_sheets()
    assert len(sheets) >= 3
    for sheet in sheets:
        assert sheet.sources, sheet.key
        assert parse_spec_sheet(render_spec_sheet(sheet), "rendered") == sheet


def test_units_are_converted_once_exactly() -> None:
    sheet = parse_spec_sheet(FULL, "acme.toml")
    assert sheet.key == "acme-fast-1-1tb"
    assert sheet.capacity_bytes == 10**12
    assert sheet.seq_read_bytes_per_s == 3_500_000_000
    assert sheet.seq_write_bytes_per_s == 3_300_500_000
    assert sheet.tbw_bytes == 600 * 10**12
    assert sheet.cache_bytes == 42 * 10**9
    assert sheet.random_read == ClaimedIops(600000, 32, 4, 4096)
    assert sheet.random_write == ClaimedIops(550000, None, None, 4096)
    assert parse_spec_sheet(render_spec_sheet(sheet), "again") == sheet


def test_unknown_is_none_never_zero() -> None:
    sheet = parse_spec_sheet(MINIMAL, "acme.toml")
    assert sheet.seq_read_bytes_per_s is None and sheet.tbw_bytes is None
    assert sheet.random_read is None and sheet.warranty_years is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (MINIMAL + "seq_read_mbs = 3500\n", "unknown key 'seq_read_mbs'"),
        (
            MINIMAL.replace('sources = ["https://example.invalid/acme-fast-1.pdf, page 2"]', ""),
            "'sources' is required",
        ),
        (MINIMAL + "tbw_tb = -5\n", "'tbw_tb' must be a number above 0"),
        (MINIMAL + "seq_read_mb_s = 0\n", "'seq_read_mb_s' must be a number above 0"),
        (MINIMAL + "random_read_qd = 32\n", "random_read_qd/threads given without"),
        ("schema = 2\n" + MINIMAL, "schema 2 is newer"),
        (MINIMAL.replace('"1TB"', '"lots"'), "'capacity' must be a size"),
        ("vendor = [", "not valid TOML"),
        (MINIMAL.replace('vendor = "Acme"', ""), "'vendor' is required"),
    ],
)
def test_bad_sheets_are_refused_with_the_key_named(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=r"acme\.toml: ") as caught:
        parse_spec_sheet(text, "acme.toml")
    assert message in str(caught.value)


def test_match_by_reported_model_string() -> None:
    sheet = parse_spec_sheet(FULL, "acme.toml")
    other = replace(sheet, key="acme-fast-1-2tb", capacity_bytes=2 * 10**12)
    assert match_spec("ACME FAST 1 1TB", None, [sheet]) is sheet
    assert match_spec("  acme   fast-1_1tb ", None, [sheet]) is sheet
    assert match_spec("ACME FAST 2 1TB", None, [sheet]) is None
    assert match_spec(None, None, [sheet]) is None and match_spec("", None, [sheet]) is None
    # the same part number on two sheets: ambiguous without a capacity, decided by one
    assert match_spec("ACME-F1-1T", None, [sheet, other]) is None
    assert match_spec("ACME-F1-1T", 1_000_204_886_016, [sheet, other]) is sheet


@pytest.mark.skipif(not (SHARED / "testdata" / "smart").is_dir(), reason="shared samples absent")
def test_shared_smart_samples_find_their_shipped_sheet() -> None:
    sheets = load_builtin_spec_sheets()
    expected = {
        "samsung-970evo-500GB-nvme-x.json": "samsung-970-evo-500gb",
        "samsung-860evo-500GB-sata-x.json": "samsung-860-evo-500gb",
        "crucial-p2-CT250P2SSD8-nvme.json": "crucial-p2-250gb",
    }
    for name, key in expected.items():
        data = json.loads((SHARED / "testdata" / "smart" / name).read_text())
        capacity = data.get("user_capacity", {}).get("bytes")
        found = match_spec(data["model_name"], capacity, sheets)
        assert found is not None and found.key == key, name
