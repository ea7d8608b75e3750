"""parse/smartctl_text.py on the layouts reports reach ssdlab in: re-indented (TABs, a quoted
block, CRLF), an attribute ID listed twice, and SCSI/SAS reports (parse/smartctl_scsi_text.py).

Expected figures are the ones the lines themselves print (their unit by smartctl's definition
of the line), never ssdlab's earlier output."""

from typing import Any

import pytest

from ssdlab.errors import ParseError
from ssdlab.parse.smartctl_json import normalise_smartctl
from ssdlab.parse.smartctl_text import smartctl_text_to_json
from tests.conftest import ROOT

# A real smartctl 7.4 -x report of a Crucial MX500 (tests/corpus/SOURCES.md).
MX500 = (ROOT / "tests/corpus/smart/crucial-ct500mx500ssd1-1.txt").read_text(encoding="utf-8")


def row(attribute_id: int) -> str:
    return next(line for line in MX500.splitlines() if line[:3].strip() == str(attribute_id))


def table(doc: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = doc["ata_smart_attributes"]["table"]
    return rows


@pytest.mark.parametrize(
    "indent",
    ["\t", "\t\t", "    ", "  ", "\u00a0\u00a0"],
    ids=["tab", "two-tabs", "four-spaces", "two-spaces", "no-break-spaces"],
)
def test_any_indentation_reads_as_the_original(indent: str) -> None:
    indented = "".join(indent + line for line in MX500.splitlines(keepends=True))
    assert smartctl_text_to_json(indented) == smartctl_text_to_json(MX500)


def test_tab_indented_crlf_report_reads_as_the_original() -> None:
    crlf = "".join("\t" + line.rstrip("\n") + "\r\n" for line in MX500.splitlines(keepends=True))
    assert smartctl_text_to_json(crlf) == smartctl_text_to_json(MX500)


def test_tabs_between_columns_are_blanks() -> None:
    written = row(246)
    tabbed = MX500.replace(written, written.replace("    ", "\t"))
    assert tabbed != MX500
    assert smartctl_text_to_json(tabbed) == smartctl_text_to_json(MX500)


def test_an_id_listed_twice_with_the_same_values_is_kept_and_read_once() -> None:
    temperature = row(194)
    doubled = MX500.replace(temperature, temperature + "\n" + temperature)
    doc = smartctl_text_to_json(doubled)
    assert [entry["id"] for entry in table(doc)].count(194) == 2
    sample = normalise_smartctl(doc)
    assert sample.temperature_c.value == int(temperature.split()[7])  # "38 (Min/Max 0/59)"
    assert sample.identity.model == "CT500MX500SSD1"
    assert any("Attribute 194 is listed 2 times with the same values" in f for f in sample.flags)


def test_an_id_listed_twice_with_different_values_is_kept_and_not_read() -> None:
    hours = row(9)
    other = hours.rsplit(" ", 1)[0] + " 1"
    doc = smartctl_text_to_json(MX500.replace(hours, hours + "\n" + other))
    assert [entry["raw"]["string"] for entry in table(doc) if entry["id"] == 9] == [
        hours.split()[-1],
        "1",
    ]
    # not from attribute 9 (which reading?) but from Device Statistics, which state them too
    devstat = next(line for line in MX500.splitlines() if line.startswith("0x01  0x010"))
    assert doc["power_on_time"] == {"hours": int(devstat.split()[3])}
    sample = normalise_smartctl(doc)
    assert sample.power_on_hours.value == int(devstat.split()[3])
    assert sample.identity.model == "CT500MX500SSD1"  # the rest of the report is not lost
    assert sample.host_written_bytes.value == int(row(246).split()[-1]) * 512
    assert any("listed 2 times with different values" in f for f in sample.flags)


# The Samsung MZILT7T6HALA SAS SSD report of the corpus (py-SMART issue 57), abridged: every
# line as smartctl 7.3 printed it, in its ru_RU locale ("7 681 501 126 656", "10311,154").
SAS_SSD = """\
smartctl 7.3 2022-02-28 r5338 [x86_64-linux-5.4.0-99-generic] (local build)

=== START OF INFORMATION SECTION ===
Vendor:               SAMSUNG
Product:              MZILT7T6HALA/007
Revision:             GXA0
Compliance:           SPC-5
User Capacity:        7 681 501 126 656 bytes [7,68 TB]
Logical block size:   512 bytes
Physical block size:  4096 bytes
Rotation Rate:        Solid State Device
Serial number:        S5DDNE0R801692
Device type:          disk
Transport protocol:   SAS (SPL-4)

=== START OF READ SMART DATA SECTION ===
SMART Health Status: OK

Percentage used endurance indicator: 0%
Current temperature = 25
Lifetime maximum temperature = 54
Manufactured in week 32 of year 2021
Accumulated start-stop cycles:  892
Specified load-unload count over device lifetime:  0
Accumulated load-unload cycles:  0
Elements in grown defect list: 0

Error counter log:
           Errors Corrected by           Total   Correction     Gigabytes    Total
               ECC          rereads/    errors   algorithm      processed    uncorrected
           fast | delayed   rewrites  corrected  invocations   [10^9 bytes]  errors
read:          0        0         0         0          0      10311,154           0
write:         0        0         0         0          0      11472,811           0
verify:        0        0         0         0          0          0,000           0

Background scan results log
  Status: scan is active
    Accumulated power on time, hours:minutes 146:02 [8762 minutes]
"""


def test_sas_ssd_report() -> None:
    doc = smartctl_text_to_json(SAS_SSD)
    assert doc["device"] == {"protocol": "SCSI"}
    assert doc["scsi_model_name"] == "SAMSUNG MZILT7T6HALA/007"
    assert doc["scsi_revision"] == "GXA0"
    assert doc["user_capacity"] == {"bytes": 7681501126656, "blocks": 7681501126656 // 512}
    assert doc["scsi_start_stop_cycle_counter"]["accumulated_start_stop_cycles"] == 892
    assert doc["scsi_error_counter_log"]["write"]["gigabytes_processed"] == "11472.811"
    sample = normalise_smartctl(doc)
    assert sample.identity.protocol == "SCSI"
    assert sample.identity.serial == "S5DDNE0R801692"
    assert sample.identity.firmware == "GXA0"
    assert sample.identity.capacity_bytes == 7681501126656
    assert sample.verdict == "PASSED"
    assert sample.host_written_bytes.value == 11_472_811_000_000  # GB = 10^9 bytes, exactly
    assert sample.host_read_bytes.value == 10_311_154_000_000
    assert sample.wear_used_pct.value == 0
    assert sample.reallocated_sectors.value == 0
    assert sample.power_cycles.value == 892
    assert sample.power_on_hours.value == pytest.approx(146 + 2 / 60)
    assert sample.temperature_c.value == 25


# Lines in the layout of RELEASE_5_41 smartmontools/scsiprint.cpp (values made up).
OLD_SAS_LINES = """\
smartctl 5.41 2011-06-09 r3365 [x86_64-linux-2.6.32-5-amd64] (local build)

=== START OF INFORMATION SECTION ===
Vendor:               SEAGATE
Product:              ST3300657SS
Revision:             0006
User Capacity:        300,000,000,000 bytes [300 GB]
Logical block size:   512 bytes
Serial number:        3SJ1AB2C

=== START OF READ SMART DATA SECTION ===
SMART Health Status: FAILURE PREDICTION THRESHOLD EXCEEDED [asc=5d, ascq=10]
Current Drive Temperature:     38 C
Drive Trip Temperature:        68 C
Elements in grown defect list: 17
Vendor (Seagate/Hitachi) factory information
  number of hours powered up = 40678.25
"""


def test_scsi_lines_of_smartctl_5() -> None:
    """The labels scsiprint.cpp has printed since 5.41, the factory page's hours included."""
    sample = normalise_smartctl(smartctl_text_to_json(OLD_SAS_LINES))
    assert sample.verdict == "FAILED"
    assert sample.temperature_c.value == 38
    assert sample.reallocated_sectors.value == 17
    assert sample.power_on_hours.value == 40678


def test_a_cut_error_counter_row_is_refused() -> None:
    cut = SAS_SSD[: SAS_SSD.index("11472,811") + 4]
    with pytest.raises(ParseError, match=r"middle of this line|error counter"):
        smartctl_text_to_json(cut)


def test_a_damaged_error_counter_row_is_refused_in_one_line() -> None:
    damaged = SAS_SSD.replace("11472,811", "11472,8x1")
    with pytest.raises(ParseError, match="not an error counter log row"):
        smartctl_text_to_json(damaged)
