"""Spec sheets: the shipped ones, unit conversion at the boundary, refusals, and matching a
drive's reported model string (match_spec lives in ssdlab.analysis.spec_match)."""

import json
from dataclasses import replace
from importlib import resources

import pytest

from ssdlab.analysis.spec_match import match_spec
from ssdlab.errors import ParseError
from ssdlab.model.spec import ClaimedIops, SpecSheet
from ssdlab.parse.spec_sheet import SCHEMA_VERSION, parse_spec_sheet, render_spec_sheet
from ssdlab.specs import load_builtin_spec_sheets
from tests.conftest import SHARED_SMART

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
tbw_tb = 300
dwpd = 0.33
warranty_years = 5
cache = "42GB"
interface = "NVMe 1.4, PCIe 4.0 x4"
part_numbers = ["ACME-F1-1T", "ACME FAST 1 1TB"]
notes = ["made up for the tests"]
"""
)


# --- the shipped sheets --------------------------------------------------------------------------


def test_at_least_five_sheets_ship_and_each_round_trips() -> None:
    sheets = load_builtin_spec_sheets()
    assert len(sheets) >= 5
    assert len({s.key for s in sheets}) == len(sheets)
    for sheet in sheets:
        assert sheet.sources, sheet.key
        assert sheet.part_numbers, sheet.key
        assert parse_spec_sheet(render_spec_sheet(sheet), "rendered") == sheet


def test_each_shipped_file_is_named_after_its_key() -> None:
    folder = resources.files("ssdlab.specs")
    stems = sorted(
        e.name.removesuffix(".toml") for e in folder.iterdir() if e.name.endswith(".toml")
    )
    assert stems == sorted(s.key for s in load_builtin_spec_sheets())


def test_shipped_sheets_say_unknown_as_none_never_zero() -> None:
    for sheet in load_builtin_spec_sheets():
        for value in (
            sheet.seq_read_bytes_per_s,
            sheet.seq_write_bytes_per_s,
            sheet.tbw_bytes,
            sheet.dwpd,
            sheet.warranty_years,
            sheet.cache_bytes,
        ):
            assert value is None or value > 0, sheet.key


def test_the_970_evo_sheet_has_its_datasheet_figures_in_si_units() -> None:
    sheet = {s.key: s for s in load_builtin_spec_sheets()}["samsung-970-evo-500gb"]
    assert sheet.capacity_bytes == 500 * 10**9
    assert sheet.seq_read_bytes_per_s == 3_400_000_000
    assert sheet.tbw_bytes == 3e14
    assert sheet.random_read == ClaimedIops(370000, 32, 4, 4096)


# --- units ---------------------------------------------------------------------------------------


def test_units_are_converted_once_exactly() -> None:
    sheet = parse_spec_sheet(FULL, "acme.toml")
    assert sheet.key == "acme-fast-1-1tb"
    assert sheet.capacity_bytes == 10**12
    assert sheet.seq_read_bytes_per_s == 3.5e9
    assert sheet.seq_write_bytes_per_s == 3_300_500_000
    assert sheet.tbw_bytes == 3e14
    assert sheet.dwpd == 0.33
    assert sheet.warranty_years == 5
    assert sheet.cache_bytes == 42 * 10**9
    assert sheet.random_read == ClaimedIops(600000, 32, 4, 4096)
    assert sheet.random_write == ClaimedIops(550000, None, None, 4096)
    assert sheet.part_numbers == ("ACME-F1-1T", "ACME FAST 1 1TB")
    assert parse_spec_sheet(render_spec_sheet(sheet), "again") == sheet


def test_random_block_and_binary_sizes() -> None:
    text = MINIMAL.replace('"1TB"', '"512GiB"') + 'random_block = "8KiB"\nrandom_read_iops = 1e5\n'
    sheet = parse_spec_sheet(text, "acme.toml")
    assert sheet.capacity_bytes == 512 * 2**30
    assert sheet.random_read == ClaimedIops(100000, None, None, 8192)
    assert parse_spec_sheet(render_spec_sheet(sheet), "again") == sheet


def test_unknown_is_none_never_zero() -> None:
    sheet = parse_spec_sheet(MINIMAL, "acme.toml")
    assert sheet.seq_read_bytes_per_s is None
    assert sheet.tbw_bytes is None
    assert sheet.random_read is None
    assert sheet.random_write is None
    assert sheet.warranty_years is None
    assert sheet.dwpd is None
    assert sheet.cache_bytes is None
    assert sheet.interface is None
    assert sheet.part_numbers == ()
    assert sheet.notes == ()
    assert parse_spec_sheet(render_spec_sheet(sheet), "again") == sheet


def test_an_explicit_key_and_the_current_schema_are_kept() -> None:
    text = f'schema = {SCHEMA_VERSION}\nkey = "acme-f1.v2"\n' + MINIMAL
    assert parse_spec_sheet(text, "acme.toml").key == "acme-f1.v2"


def test_round_trip_keeps_quotes_and_backslashes() -> None:
    sheet = replace(parse_spec_sheet(MINIMAL, "acme.toml"), notes=('a "quoted" \\ note',))
    assert parse_spec_sheet(render_spec_sheet(sheet), "again") == sheet


# --- refusals ------------------------------------------------------------------------------------

NO_SOURCES = MINIMAL.replace('sources = ["https://example.invalid/acme-fast-1.pdf, page 2"]', "")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (MINIMAL + "seq_read_mbs = 3500\n", "unknown key 'seq_read_mbs'"),
        (MINIMAL + "tbw = 1\nwarranty = 5\n", "unknown keys 'tbw', 'warranty'"),
        (MINIMAL + "[random]\niops = 5\n", "unknown key 'random'"),
        (NO_SOURCES, "'sources' is required"),
        (NO_SOURCES + "sources = []\n", "'sources' is required"),
        (NO_SOURCES + 'sources = "one"\n', "'sources' must be a list of non-empty strings"),
        (NO_SOURCES + 'sources = ["  "]\n', "'sources' must be a list of non-empty strings"),
        (MINIMAL + "tbw_tb = -5\n", "'tbw_tb' must be a finite number above 0, not -5"),
        (MINIMAL + "seq_read_mb_s = 0\n", "'seq_read_mb_s' must be a finite number above 0"),
        (MINIMAL + "dwpd = inf\n", "'dwpd' must be a finite number above 0"),
        (MINIMAL + "dwpd = nan\n", "'dwpd' must be a finite number above 0"),
        (MINIMAL + "warranty_years = true\n", "'warranty_years' must be a finite number"),
        (MINIMAL + 'seq_write_mb_s = "3500"\n', "'seq_write_mb_s' must be a finite number"),
        (MINIMAL + "random_read_iops = 1\nrandom_read_qd = 0\n", "'random_read_qd' must be"),
        (MINIMAL + "random_read_iops = 1\nrandom_read_qd = 1.5\n", "'random_read_qd' must be"),
        (MINIMAL + "random_read_qd = 32\n", "random_read_qd/threads given without"),
        (MINIMAL + 'cache = "0GB"\n', "'cache' must be a size above 0"),
        (MINIMAL + 'cache = "lots"\n', "'cache' must be a size"),
        ("schema = 2\n" + MINIMAL, "schema 2 is newer than this ssdlab understands"),
        ('schema = "1"\n' + MINIMAL, "'schema' must be a whole number"),
        ("vendor = [", "not valid TOML"),
        ("<html>not toml</html>", "not valid TOML"),
        (MINIMAL.replace('"1TB"', '"lots"'), "'capacity' must be a size"),
        (MINIMAL.replace('vendor = "Acme"', ""), "'vendor' is required"),
        (MINIMAL.replace('model = "Fast 1"', ""), "'model' is required"),
        (MINIMAL.replace('capacity = "1TB"', ""), "'capacity' is required"),
        (MINIMAL.replace('vendor = "Acme"', 'vendor = ""'), "'vendor' must be a non-empty string"),
        ('key = "Acme Fast"\n' + MINIMAL, "'key' must be lower-case letters"),
        (MINIMAL + 'part_numbers = ["ok", 5]\n', "'part_numbers' must be a list"),
    ],
)
def test_bad_sheets_are_refused_naming_file_key_and_expectation(text: str, message: str) -> None:
    with pytest.raises(ParseError) as caught:
        parse_spec_sheet(text, "acme.toml")
    assert str(caught.value).startswith("acme.toml: ")
    assert message in str(caught.value)


# --- matching a drive to its sheet ---------------------------------------------------------------


def _sheets() -> tuple[SpecSheet, SpecSheet, SpecSheet]:
    one = parse_spec_sheet(FULL, "acme.toml")
    two = replace(one, key="acme-fast-1-2tb", capacity_bytes=2 * 10**12)
    other = replace(one, key="zeta-9", part_numbers=("ZETA 9",))
    return one, two, other


def test_match_on_the_exact_reported_model_string() -> None:
    one, _, other = _sheets()
    assert match_spec("ACME FAST 1 1TB", None, [one, other]) is one
    assert match_spec("ZETA 9", None, [one, other]) is other


def test_match_ignores_case_spaces_dashes_and_underscores() -> None:
    one, _, _ = _sheets()
    assert match_spec("  acme   fast-1_1tb ", None, [one]) is one
    assert match_spec("acmef11t", None, [one]) is one


def test_no_match_is_none() -> None:
    one, _, _ = _sheets()
    assert match_spec("ACME FAST 2 1TB", None, [one]) is None
    assert match_spec("ACME FAST", None, [one]) is None  # a prefix is not a match
    assert match_spec(None, None, [one]) is None
    assert match_spec("", None, [one]) is None
    assert match_spec("   ", None, [one]) is None
    assert match_spec("ACME FAST 1 1TB", None, []) is None


def test_ambiguous_without_capacity_is_none_and_capacity_decides() -> None:
    one, two, _ = _sheets()
    assert match_spec("ACME-F1-1T", None, [one, two]) is None
    assert match_spec("ACME-F1-1T", 1_000_204_886_016, [one, two]) is one  # within 2 %
    assert match_spec("ACME-F1-1T", 2_000_398_934_016, [one, two]) is two
    assert match_spec("ACME-F1-1T", 1_500_000_000_000, [one, two]) is None  # near neither
    same = replace(one, key="acme-fast-1-1tb-b")
    assert match_spec("ACME-F1-1T", 10**12, [one, same]) is None  # still two: never guess


# --- the real SMART samples find their sheet -----------------------------------------------------

SAMPLE_SHEETS = {
    "samsung-970evo-500GB-nvme-x.json": "samsung-970-evo-500gb",
    "samsung-860evo-500GB-sata-x.json": "samsung-860-evo-500gb",
    "crucial-p2-CT250P2SSD8-nvme.json": "crucial-p2-250gb",
    "micron-5300-MTFDDAK1T9TDS-sata.json": "micron-5300-1920gb",
    "samsung-pm9a1-MZVL21T0HCLR-nvme.json": "samsung-pm9a1-1tb",
}


def _identity(name: str) -> tuple[str, int | None]:
    data = json.loads((SHARED_SMART / name).read_text())
    capacity = data.get("user_capacity", {}).get("bytes") or data.get("nvme_total_capacity")
    return str(data["model_name"]), capacity


@pytest.mark.skipif(not SHARED_SMART.is_dir(), reason="shared SMART samples absent")
@pytest.mark.parametrize(("name", "key"), sorted(SAMPLE_SHEETS.items()))
def test_a_shared_smart_sample_finds_its_shipped_sheet(name: str, key: str) -> None:
    sheets = load_builtin_spec_sheets()
    model_name, capacity = _identity(name)
    for given in (capacity, None):
        found = match_spec(model_name, given, sheets)
        assert found is not None, (name, given)
        assert found.key == key, (name, given)
    sheet = {s.key: s for s in sheets}[key]
    assert capacity is not None
    assert abs(sheet.capacity_bytes - capacity) <= 0.02 * sheet.capacity_bytes


@pytest.mark.skipif(not SHARED_SMART.is_dir(), reason="shared SMART samples absent")
def test_shared_samples_without_a_sheet_match_nothing() -> None:
    sheets = load_builtin_spec_sheets()
    names = sorted(p.name for p in SHARED_SMART.glob("*.json") if p.name not in SAMPLE_SHEETS)
    assert names  # A400, KC400, P4510, PM893: no sourced figures found yet
    for name in names:
        model_name, capacity = _identity(name)
        assert match_spec(model_name, capacity, sheets) is None, name


def test_match_on_vendor_model_and_capacity_as_a_name() -> None:
    """What people type on CrystalDiskMark's Comment line ('Samsung 970 EVO 500GB') names the
    shipped sheet of vendor Samsung, model 970 EVO, 500 GB; not another capacity or model."""
    shipped = load_builtin_spec_sheets()
    found = match_spec("Samsung 970 EVO 500GB", None, shipped)
    assert found is not None
    assert found.key == "samsung-970-evo-500gb"
    assert match_spec("Samsung 970 EVO 1TB", None, shipped) is None
    assert match_spec("Samsung 970 EVO Plus 500GB", None, shipped) is None
    assert match_spec("970 EVO 500GB", None, shipped) is None  # no vendor: no name
