"""The minimal inputs on which fuzzing found a parser raising something other than ParseError
(or misreading a malformed line); each now gets a clean refusal."""

import pytest

from ssdlab.errors import ParseError
from ssdlab.model.units import parse_size_bytes
from ssdlab.parse.benchmark_text import parse_benchmark_text
from ssdlab.parse.mountinfo import parse_mountinfo
from ssdlab.parse.nvme_idns import parse_lba_formats
from ssdlab.parse.nvme_json import (
    parse_endurance_log,
    parse_intel_smart_log_add,
    parse_vendor_nand_text,
    to_count,
)
from ssdlab.parse.smart_vendors import load_vendor_map
from ssdlab.parse.smartctl_text import smartctl_text_to_json
from ssdlab.parse.spec_sheet import parse_spec_sheet
from tests.fuzz.harness import DATA

MANY_DIGITS = "9" * 5000  # beyond Python's int/str conversion limit (4300 digits)
INF_DIGITS = "9" * 400  # float() reads it as inf


def test_nand_counter_beyond_any_float() -> None:
    """OverflowError: int too large to convert to float."""
    with pytest.raises(ParseError, match="nand_bytes_written"):
        parse_intel_smart_log_add({"Device stats": {"nand_bytes_written": {"raw": 1e308}}})
    with pytest.raises(ParseError, match="media_units_written"):
        parse_endurance_log({"media_units_written": 1e308})
    assert to_count(2**128 + 1) is None
    assert to_count(2**128) == 2**128


@pytest.mark.parametrize(
    ("vendor", "text"),
    [
        ("samsung", f"PhysicallyWrittenBytes : {MANY_DIGITS}"),
        ("liteon", f"Physical(NAND) bytes written : {MANY_DIGITS}"),
        ("seagate", f"Physical (NAND) bytes written 1 0x{MANY_DIGITS}"),
        ("wdc", f"Physical media units written - {MANY_DIGITS} 0"),
        ("intel", f"nand_bytes_written : 100% sectors: {MANY_DIGITS}"),
        ("toshiba", "Total data written to NAND : 1.2.3 GiB"),
        ("toshiba", f"Total data written to NAND : {INF_DIGITS} GiB"),
    ],
)
def test_vendor_text_counters_that_are_not_numbers(vendor: str, text: str) -> None:
    """ValueError (int too long, '1.2.3') or OverflowError escaped the vendor-log parsers."""
    with pytest.raises(ParseError, match=vendor if vendor != "liteon" else "Physical"):
        parse_vendor_nand_text(text, vendor)


def test_benchmark_text_with_an_endless_block_size() -> None:
    """ValueError: Exceeds the limit (4300 digits) for integer string conversion."""
    text = f"CrystalDiskMark 8.0.4 x64\n[Read]\nSEQ {MANY_DIGITS}MiB (Q= 8, T= 1): 1.0 MB/s\n"
    with pytest.raises(ParseError, match="line 3"):
        parse_benchmark_text(text)
    huge = f"CrystalDiskMark 8.0.4 x64\n[Read]\nSEQ 1MiB (Q= 8, T= 1): {INF_DIGITS} MB/s\n"
    with pytest.raises(ParseError, match="not a number"):
        parse_benchmark_text(huge)


def test_toml_with_an_endless_integer_or_nesting() -> None:
    """tomllib raises ValueError (not TOMLDecodeError) for a too-long integer, and
    RecursionError for deep nesting."""
    for text in (f"schema = {MANY_DIGITS}", "schema = " + "[" * 100_000):
        with pytest.raises(ParseError, match="not valid TOML"):
            parse_spec_sheet(text, "sheet.toml")
        with pytest.raises(ParseError, match="not valid TOML"):
            load_vendor_map(text)


def test_sizes_too_large_for_a_float() -> None:
    """OverflowError: cannot convert float infinity to integer (spec sheets, --size)."""
    with pytest.raises(ValueError, match="too large"):
        parse_size_bytes(INF_DIGITS + "GB")
    sheet = f'schema = 1\nvendor = "V"\nmodel = "M"\ncapacity = "{INF_DIGITS}GB"\nsources = ["x"]\n'
    with pytest.raises(ParseError, match="capacity"):
        parse_spec_sheet(sheet, "sheet.toml")


def test_nvme_idns_with_an_endless_integer() -> None:
    with pytest.raises(ParseError, match="not JSON"):
        parse_lba_formats('{"flbas": ' + MANY_DIGITS + "}")
    with pytest.raises(ParseError, match="not JSON"):
        parse_lba_formats("[" * 100_000)


@pytest.mark.parametrize(
    "line",
    [
        "22 27 0:21 /  rw,relatime - devtmpfs devtmpfs rw",  # a field lost: mount point ""
        "22 27 0:21 / dev rw,relatime - devtmpfs devtmpfs rw",  # not absolute
        "+22 27 0:21 / /dev rw,relatime - devtmpfs devtmpfs rw",  # int() accepts '+'
        "22 27 -1:21 / /dev rw,relatime - devtmpfs devtmpfs rw",  # negative major
        "22 27 ٣:21 / /dev rw,relatime - devtmpfs devtmpfs rw",  # int() accepts Arabic digits
    ],
)
def test_mountinfo_line_that_lost_or_bent_a_field(line: str) -> None:
    """An empty mount point was read as '' and matched every path like '/'."""
    with pytest.raises(ParseError, match="line 1"):
        parse_mountinfo(line + "\n")


def test_json_numbers_beyond_any_counter() -> None:
    """OverflowError: int too large to convert to float (time_t, temperature, attributes...)."""
    from ssdlab.parse.nvme_json import parse_nvme_smart_log
    from ssdlab.parse.smartctl_json import parse_smartctl_json

    huge = "1" + "0" * 400
    with pytest.raises(ParseError, match=r"power_cycle_count holds a number beyond 2\^128"):
        parse_smartctl_json('{"smartctl": {}, "power_cycle_count": ' + huge + "}")
    with pytest.raises(ParseError, match="temperature"):
        parse_nvme_smart_log('{"temperature": ' + huge + "}")


def test_text_with_digit_runs_beyond_any_counter() -> None:
    """ValueError (int of 5000 digits) in the smartctl text and fio log parsers."""
    from ssdlab.parse.fio_log import parse_interval_logs
    from ssdlab.parse.smartctl_log import split_snapshot_log
    from ssdlab.parse.smartctl_text import smartctl_text_to_json

    text = "=== START OF SMART DATA SECTION ===\nPower Cycles: " + MANY_DIGITS + "\n"
    with pytest.raises(ParseError, match="line 2: a number of 5000 digits"):
        smartctl_text_to_json(text)
    with pytest.raises(ParseError, match="line 2: a number of 5000 digits"):
        split_snapshot_log(text)
    with pytest.raises(ParseError, match="not a fio log record"):
        parse_interval_logs({"j_bw.1.log": f"{MANY_DIGITS}, 1, 0, 0\n"})
    with pytest.raises(ParseError, match="not a non-negative number"):
        parse_interval_logs({"j_bw.1.log": f"1000, {INF_DIGITS}, 0, 0\n"})


def test_an_nvme_temperature_sensor_number_beyond_eight_is_refused() -> None:
    """A mutated 'Temperature Sensor 99999999' line built a list of 10^8 entries (a hang)."""
    text = (DATA / "smart-text" / "samsung-970evo-nvme-a.txt").read_text(encoding="utf-8")
    assert "Temperature Sensor 1:" in text
    mutated = text.replace("Temperature Sensor 1:", "Temperature Sensor 99999999:", 1)
    with pytest.raises(ParseError, match="sensors 1 to 8"):
        smartctl_text_to_json(mutated)
    assert smartctl_text_to_json(text)["nvme_smart_health_information_log"]


def test_a_bare_carriage_return_inside_a_csv_field_is_a_parse_error() -> None:
    """Found by test_field_logs_mutated: csv.Error escaped read_health_text."""
    from ssdlab.parse.health_file import read_health_text

    mutated = "  9 Powe\t0x-\t\r.2E\u2028<Er_On_Hours          0x0032   097   097   000    Old_age"
    with pytest.raises(ParseError):
        read_health_text(mutated + "   Always       -       10736\n", name="log")
