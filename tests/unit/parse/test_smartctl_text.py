"""parse/smartctl_text.py (+ smart_raw, timestamps, smartctl_log): smartctl text output →
smartctl-JSON-shaped dicts; cron logs."""

import contextlib
import importlib.util
import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ssdlab.errors import ParseError
from ssdlab.parse.smart_raw import decode_raw_string
from ssdlab.parse.smartctl_log import LogSnapshot, split_snapshot_log
from ssdlab.parse.smartctl_text import (
    EXACT_KEY,
    IDENTITY_FROM_LINE_KEY,
    TEXT_SOURCE_KEY,
    ZONE_ASSUMED_KEY,
    smartctl_text_to_json,
)
from ssdlab.parse.timestamps import parse_timestamp
from tests.conftest import ROOT, SHARED

DATA = ROOT / "tests" / "data" / "smart-text"
SHARED_SMART = SHARED / "testdata" / "smart"


def fixture(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def shared_json(name: str) -> dict[str, Any]:
    path = SHARED_SMART / name
    if not path.exists():
        pytest.skip(f"shared sample {path} is absent")
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def utc(year: int, month: int, day: int, hour: int, minute: int, second: int) -> float:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC).timestamp()


def attributes(doc: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {entry["id"]: entry for entry in doc["ata_smart_attributes"]["table"]}


def assert_attribute_matches_json(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    for key in ("id", "name", "value", "worst", "thresh", "when_failed"):
        assert ours.get(key) == theirs.get(key), (theirs["id"], key)
    for key, value in theirs["flags"].items():
        assert ours["flags"][key] == value, (theirs["id"], "flags", key)
    assert ours["raw"]["string"] == theirs["raw"]["string"]


# --- the JSON shape, on the fixtures ---------------------------------------------------------


def test_ata_x_has_the_json_shape() -> None:
    doc = smartctl_text_to_json(fixture("samsung-860evo-x.txt"))
    assert doc[TEXT_SOURCE_KEY] is True
    assert doc["device"] == {"protocol": "ATA"}
    assert doc["model_family"] == "Samsung based SSDs"
    assert doc["model_name"] == "Samsung SSD 860 EVO 500GB"
    assert doc["serial_number"] == "S3YZNB0KB00864E"
    assert doc["firmware_version"] == "RVT02B6Q"
    assert doc["user_capacity"] == {"bytes": 500_107_862_016, "blocks": 976_773_168}
    assert doc["smart_status"] == {"passed": True}
    assert doc["ata_smart_attributes"]["revision"] == 1
    table = attributes(doc)
    assert table[241]["raw"] == {"value": 64_777_770_148, "string": "64777770148", EXACT_KEY: True}
    assert table[177]["value"] == 81
    assert table[177]["flags"]["string"] == "PO--C- "
    pages = {page["number"]: page for page in doc["ata_device_statistics"]["pages"]}
    written = next(e for e in pages[1]["table"] if e["offset"] == 0x018)
    assert written["name"] == "Logical Sectors Written"
    assert written["value"] == 64_777_770_148
    used = pages[7]["table"][0]
    assert used["value"] == 19
    assert used["flags"]["string"] == "VN-- "
    assert used["flags"]["value"] == 0xE0
    assert doc["temperature"]["current"] == 36
    assert doc["power_on_time"] == {"hours": 14551}
    assert doc["power_cycle_count"] == 13
    assert doc["local_time"] == {"asctime": "Sun Sep 13 16:29:23 2020 UTC", "time_t": 1600014563}


def test_ata_a_only_crucial_mx500() -> None:
    doc = smartctl_text_to_json(fixture("mx500-A.txt"))
    assert doc["device"] == {"protocol": "ATA"}
    for key in ("model_name", "serial_number", "user_capacity", "local_time", "smart_status"):
        assert key not in doc  # -A shows none of these; unknown stays absent
    table = attributes(doc)
    assert [table[i]["raw"]["value"] for i in (246, 247, 248)] == [
        24_587_123_456,
        412_345_678,
        263_456_789,
    ]
    assert table[1]["flags"] == {
        "value": 0x2F,
        "string": "POSR-K ",
        "prefailure": True,
        "updated_online": True,
        "performance": True,
        "error_rate": True,
        "event_count": False,
        "auto_keep": True,
    }
    assert table[198]["flags"]["updated_online"] is False
    assert table[202] | {"flags": None, "raw": None} == {
        "id": 202,
        "name": "Percent_Lifetime_Remain",
        "value": 95,
        "worst": 95,
        "thresh": 1,
        "when_failed": "",
        "flags": None,
        "raw": None,
    }
    assert table[194]["raw"] == {"value": 30, "string": "30 (Min/Max 27/33)", EXACT_KEY: False}
    assert doc["temperature"] == {"current": 30}
    assert doc["power_on_time"] == {"hours": 8123}
    assert doc["power_cycle_count"] == 1042


def test_nvme_a_has_the_json_shape() -> None:
    doc = smartctl_text_to_json(fixture("samsung-970evo-nvme-a.txt"))
    assert doc["device"] == {"protocol": "NVMe"}
    log = doc["nvme_smart_health_information_log"]
    assert log["data_units_written"] == 65_602_088  # "65,602,088 [33.5 TB]"
    assert log["data_units_read"] == 17_176_794
    assert log["media_errors"] == 7
    assert log["temperature_sensors"] == [35, 39]
    assert "nsid" not in log  # 7.0 did not print the NSID
    assert doc["smart_status"] == {"passed": True, "nvme": {"value": 0}}
    assert doc["user_capacity"] == {"bytes": 500_107_862_016, "blocks": 976_773_168}
    assert doc["logical_block_size"] == 512
    assert "ata_smart_attributes" not in doc


def test_nvme_units_with_separators_and_nsid() -> None:
    text = fixture("samsung-970evo-nvme-a.txt").replace(
        "Data Units Written:                 65,602,088 [33.5 TB]",
        "Data Units Written:                 33,588,329 [17.1 TB]",
    )
    text = text.replace("(NVMe Log 0x02)", "(NVMe Log 0x02, NSID 0xffffffff)").replace(
        "Controller Busy Time:               7,601", "Controller Busy Time:               7.601"
    )
    log = smartctl_text_to_json(text)["nvme_smart_health_information_log"]
    assert log["data_units_written"] == 33_588_329
    assert log["controller_busy_time"] == 7601  # a locale with "." as thousands separator
    assert log["nsid"] == -1


@pytest.mark.parametrize(
    ("separator", "locale"),
    [
        ("\u2019", "de_CH: right single quotation mark (corpus wd-wds200t1x0e-00afy0-1.txt)"),
        ("\ufffd", "a Latin-1 no-break space read as UTF-8 (corpus kingston-sa2000m8500g-1.txt)"),
        ("\u00a0", "no-break space"),
        ("'", "apostrophe"),
    ],
)
def test_counts_with_every_locale_thousands_separator(separator: str, locale: str) -> None:
    text = fixture("samsung-970evo-nvme-a.txt").replace(
        "Data Units Written:                 65,602,088 [33.5 TB]",
        f"Data Units Written:                 33{separator}588{separator}329 [17.1 TB]",
    )
    log = smartctl_text_to_json(text)["nvme_smart_health_information_log"]
    assert log["data_units_written"] == 33_588_329, locale


def test_mixed_separators_are_not_a_count() -> None:
    text = fixture("samsung-970evo-nvme-a.txt").replace(
        "Data Units Written:                 65,602,088 [33.5 TB]",
        "Data Units Written:                 33,588\u2019329 [17.1 TB]",
    )
    with pytest.raises(ParseError, match="not a count"):
        smartctl_text_to_json(text)


def test_nvme_failed_health_and_missing_temperature() -> None:
    text = fixture("samsung-970evo-nvme-a.txt")
    text = text.replace(
        "test result: PASSED\n",
        "test result: FAILED!\n- media has been placed in read only mode\n",
    )
    text = text.replace(
        "Critical Warning:                   0x00", "Critical Warning:                   0x08"
    )
    text = text.replace(
        "Temperature:                        35 Celsius", "Temperature:                        -"
    )
    doc = smartctl_text_to_json(text)
    assert doc["smart_status"] == {"passed": False, "nvme": {"value": 8}}
    assert "temperature" not in doc["nvme_smart_health_information_log"]
    assert "temperature" not in doc  # unknown, not 0


# --- round trips against shared smartctl JSON samples ----------------------------------------


def test_samsung_860evo_text_round_trips_to_the_json_values() -> None:
    theirs = shared_json("samsung-860evo-500GB-sata-x.json")
    ours = smartctl_text_to_json(fixture("samsung-860evo-x.txt"))
    for key in (
        "model_family",
        "model_name",
        "serial_number",
        "firmware_version",
        "wwn",
        "user_capacity",
        "logical_block_size",
        "physical_block_size",
        "rotation_rate",
        "in_smartctl_database",
        "smart_status",
        "power_on_time",
        "power_cycle_count",
        "temperature",
    ):
        assert ours[key] == theirs[key], key
    assert ours["device"]["protocol"] == theirs["device"]["protocol"]
    assert ours["ata_smart_attributes"]["revision"] == theirs["ata_smart_attributes"]["revision"]
    our_table = attributes(ours)
    assert list(our_table) == [entry["id"] for entry in theirs["ata_smart_attributes"]["table"]]
    for entry in theirs["ata_smart_attributes"]["table"]:
        assert_attribute_matches_json(our_table[entry["id"]], entry)
        assert our_table[entry["id"]]["raw"]["value"] == entry["raw"]["value"]
        assert our_table[entry["id"]]["raw"][EXACT_KEY] is True
    our_pages = ours["ata_device_statistics"]["pages"]
    their_pages = theirs["ata_device_statistics"]["pages"]
    assert len(our_pages) == len(their_pages)
    for our_page, their_page in zip(our_pages, their_pages, strict=True):
        assert {k: our_page[k] for k in ("number", "name", "revision")} == {
            k: their_page[k] for k in ("number", "name", "revision")
        }
        assert our_page["table"] == their_page["table"]


def test_kingston_a400_round_trip_shows_what_text_cannot_recover() -> None:
    theirs = shared_json("kingston-a400-SA400M8120G-phison-sata.json")
    ours = smartctl_text_to_json(fixture("kingston-a400-i-H-A-brief.txt"))
    for key in ("model_family", "model_name", "user_capacity", "trim", "local_time", "wwn"):
        assert ours[key] == theirs[key], key
    for key in ("power_on_time", "power_cycle_count", "temperature", "smart_status"):
        assert ours[key] == theirs[key], key
    our_table = attributes(ours)
    for entry in theirs["ata_smart_attributes"]["table"]:
        mine = our_table[entry["id"]]
        assert_attribute_matches_json(mine, entry)
        if entry["id"] == 194:
            # "38 (Min/Max 28/39)": JSON 120261640230, text only the leading integer.
            assert entry["raw"]["value"] == 120_261_640_230
            assert mine["raw"]["value"] == 38
            assert mine["raw"][EXACT_KEY] is False
        else:
            assert mine["raw"]["value"] == entry["raw"]["value"], entry["id"]
    # "50 (Average 17)": word 2 is not printed, the rebuilt value still equals the JSON's.
    assert our_table[173]["raw"] == {
        "value": 1_114_162,
        "string": "50 (Average 17)",
        EXACT_KEY: False,
    }
    assert our_table[170]["raw"][EXACT_KEY] is True  # "0/6": high part 0, either layout


def test_samsung_970evo_nvme_round_trips_to_the_json_values() -> None:
    theirs = shared_json("samsung-970evo-500GB-nvme-x.json")
    ours = smartctl_text_to_json(fixture("samsung-970evo-nvme-a.txt"))
    assert ours["nvme_smart_health_information_log"] == theirs["nvme_smart_health_information_log"]
    for key in (
        "model_name",
        "serial_number",
        "firmware_version",
        "nvme_pci_vendor",
        "nvme_ieee_oui_identifier",
        "nvme_total_capacity",
        "nvme_unallocated_capacity",
        "nvme_controller_id",
        "nvme_number_of_namespaces",
        "nvme_namespaces",
        "user_capacity",
        "logical_block_size",
        "local_time",
        "smart_status",
        "temperature",
        "power_cycle_count",
        "power_on_time",
    ):
        assert ours[key] == theirs[key], key


# --- raw values --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw_string", "value", "exact"),
    [
        ("0", 0, True),
        ("64777770148", 64_777_770_148, True),
        ("0x0000004f0012", 0x4F0012, True),
        ("30 (Min/Max 27/33)", 30, False),
        ("24 (Min/Max 13/35)", 24, False),  # JSON: 150324707352
        ("40 (Min/Max 38/40 #197)", 40, False),
        ("-3 (Min/Max -5/20)", 0xFD, False),
        ("50 (Average 17)", 1_114_162, False),
        ("2517 (23 65535)", 2517 | 65535 << 16 | 23 << 32, True),  # raw16(raw16) "w0 (w2 w1)"
        ("0 (2100 0)", 2100 << 32, True),
        ("6251 (4 0 0)", 6251 | 4 << 40, True),  # raw24(raw8) "n (b5 b4 b3)"
        ("36 (0 0 28 57 0)", 36 | 57 << 16 | 28 << 24, True),  # tempminmax fallback
        ("0/6", 6, True),
        ("3/100000000", 3 << 32 | 100_000_000, True),  # low part needs 32 bits: raw24/raw32
        ("3/7", 3 << 24 | 7, False),  # raw24/raw24 assumed
        ("1 2 3", 1 << 32 | 2 << 16 | 3, True),
        ("0 0 0 0 1 2", 0x0102, True),
        ("1234h+05m+06.789s", (5 * 60 + 6) * 1000 + 789 << 32 | 1234, True),
        ("1234h+05m+06s", 1234 * 3600 + 5 * 60 + 6, True),
        ("1234h+05m", 1234 * 60 + 5, False),  # min2hour or halfmin2hour
        ("1234h+05m (3)", 1234 * 60 + 5 | 3 << 32, True),
        ("31.5", 315, False),
        ("?", None, False),
        ("12 garbage", 12, False),
    ],
)
def test_decode_raw_string(raw_string: str, value: int | None, exact: bool) -> None:
    assert decode_raw_string(raw_string) == (value, exact)


def test_power_on_hours_from_decoded_formats() -> None:
    text = fixture("mx500-A.txt").replace(
        "Always       -       8123\n", "Always       -       1234h+05m+06.789s\n"
    )
    assert smartctl_text_to_json(text)["power_on_time"] == {"hours": 1234, "minutes": 5}


def test_brief_flags_with_other_bits_are_marked_inexact() -> None:
    text = fixture("samsung-860evo-x.txt").replace(
        "235 POR_Recovery_Count      -O--C-   099", "235 POR_Recovery_Count      -O--C-+  099"
    )
    flags = attributes(smartctl_text_to_json(text))[235]["flags"]
    assert flags["string"] == "-O--C-+"
    assert flags["value"] == 0x12
    assert flags[EXACT_KEY] is False


def test_old_format_flag_word_is_exact_including_other_bits() -> None:
    text = fixture("mx500-A.txt").replace(
        "  1 Raw_Read_Error_Rate     0x002f", "  1 Raw_Read_Error_Rate     0x012f"
    )
    flags = attributes(smartctl_text_to_json(text))[1]["flags"]
    assert flags["value"] == 0x12F
    assert flags["other"] == 0x100
    assert flags["string"] == "POSR-K+"


def test_missing_normalized_values_and_failures() -> None:
    text = (
        fixture("mx500-A.txt")
        .replace(
            "  5 Reallocate_NAND_Blk_Cnt 0x0032   100   100   010    Old_age   Always"
            "       -       0",
            "  5 Reallocate_NAND_Blk_Cnt 0x0032   009   009   010    Old_age   Always"
            "       FAILING_NOW 0",
        )
        .replace(
            "171 Program_Fail_Count      0x0032   100   100   000",
            "171 Program_Fail_Count      0x0032   ---   ---   ---",
        )
    )
    table = attributes(smartctl_text_to_json(text))
    assert table[5]["when_failed"] == "now"
    assert {"value", "worst", "thresh", "when_failed"}.isdisjoint(table[171])


# --- time stamps -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "epoch", "assumed"),
    [
        ("Wed May  1 12:00:01 UTC 2024", utc(2024, 5, 1, 12, 0, 1), False),  # date
        ("Wed May  1 12:00:01 PM UTC 2024", utc(2024, 5, 1, 12, 0, 1), False),  # en_US
        ("Wed  1 May 13:00:01 BST 2024", utc(2024, 5, 1, 12, 0, 1), False),  # en_GB
        ("Wed May  1 14:00:01 CEST 2024", utc(2024, 5, 1, 12, 0, 1), False),
        ("Wed, 01 May 2024 12:00:01 +0000", utc(2024, 5, 1, 12, 0, 1), False),  # date -R
        ("2024-05-01T14:00:01+02:00", utc(2024, 5, 1, 12, 0, 1), False),  # date -Is
        ("2024-05-01T12:00:01,250000000+00:00", utc(2024, 5, 1, 12, 0, 1) + 0.25, False),
        ("2024-05-01 12:00:01+00:00", utc(2024, 5, 1, 12, 0, 1), False),  # --rfc-3339
        ("1714564801", utc(2024, 5, 1, 12, 0, 1), False),  # date +%s
        ("@1714564801.5", utc(2024, 5, 1, 12, 0, 1) + 0.5, False),
        ("=== 2024-05-01 12:00:01 ===", utc(2024, 5, 1, 12, 0, 1), True),
        ("[2024-05-01 12:00:01]", utc(2024, 5, 1, 12, 0, 1), True),
        ("----- Wed May 1 12:00:01 2024 -----", utc(2024, 5, 1, 12, 0, 1), True),
        ("Date: 2024-05-01T12:00:01Z", utc(2024, 5, 1, 12, 0, 1), False),
        ("Sun Aug 20 13:57:50 2023 MDT", utc(2023, 8, 20, 19, 57, 50), False),  # Local Time is
        ("Sun Jun 25 15:53:57 2023 +07", utc(2023, 6, 25, 8, 53, 57), False),
        ("Mon Jan  8 10:00:00 2024 CST", utc(2024, 1, 8, 10, 0, 0), True),  # ambiguous zone
    ],
)
def test_parse_timestamp(line: str, epoch: float, assumed: bool) -> None:
    parsed = parse_timestamp(line)
    assert parsed is not None
    assert parsed[0] == pytest.approx(epoch)
    assert parsed[1] is assumed


@pytest.mark.parametrize(
    "line",
    [
        "=== START OF READ SMART DATA SECTION ===",
        "Local Time is:    Sun Aug 20 13:57:50 2023 MDT",
        "  9 Power_On_Hours          0x0032   100   100   000    Old_age   Always"
        "       -       8123",
        "  50    2025-05-24 14:00    27  ********",
        "12345",
        "2024-13-01 12:00:00",
        "Wed May 32 12:00:01 UTC 2024",
        "",
    ],
)
def test_non_dates_are_not_timestamps(line: str) -> None:
    assert parse_timestamp(line) is None


def test_local_time_with_unknown_zone_is_marked_assumed() -> None:
    text = fixture("mx500-A.txt").replace(
        "=== START OF READ SMART DATA SECTION ===\n",
        "=== START OF INFORMATION SECTION ===\nLocal Time is:    Mon Jan  8 10:00:00 2024 IST\n\n"
        "=== START OF READ SMART DATA SECTION ===\n",
    )
    local = smartctl_text_to_json(text)["local_time"]
    assert local == {
        "asctime": "Mon Jan  8 10:00:00 2024 IST",
        "time_t": int(utc(2024, 1, 8, 10, 0, 0)),
        ZONE_ASSUMED_KEY: True,
    }


# --- cron logs ---------------------------------------------------------------------------------


def test_cron_log_date_lines_and_inherited_identity() -> None:
    snapshots = split_snapshot_log(fixture("cron-mx500-date-A.log"))
    assert len(snapshots) == 6
    assert [s.taken_at_s for s in snapshots] == [
        utc(2024, 5, 1, 12, 0, 1),
        utc(2024, 5, 1, 13, 0, 1),
        utc(2024, 5, 1, 14, 0, 1),
        utc(2024, 5, 1, 15, 0, 2),
        utc(2024, 5, 1, 16, 0, 1),
        utc(2024, 5, 1, 17, 0, 1),
    ]
    assert all(s.zone_assumed is False and s.time_source == "date line" for s in snapshots)
    first = snapshots[0]
    assert first.line == 1
    assert IDENTITY_FROM_LINE_KEY not in first.doc
    for snapshot in snapshots:
        assert snapshot.doc["model_name"] == "CT1000MX500SSD1"
        assert snapshot.doc["serial_number"] == "2204E600A1B2"
        assert snapshot.doc["user_capacity"]["bytes"] == 1_000_204_886_016
    assert all(s.doc[IDENTITY_FROM_LINE_KEY] == 1 for s in snapshots[1:])
    written = [attributes(s.doc)[246]["raw"]["value"] for s in snapshots]
    assert written == sorted(written)
    assert len(set(written)) == 6
    assert [s.doc["temperature"]["current"] for s in snapshots] == [30, 34, 41, 44, 38, 33]


def test_cron_log_model_override_applies_to_every_run() -> None:
    snapshots = split_snapshot_log(fixture("cron-mx500-date-A.log"), model_override="MX500 1TB")
    assert {s.doc["model_name"] for s in snapshots} == {"MX500 1TB"}


def test_cron_log_of_full_runs_uses_local_time() -> None:
    snapshots = split_snapshot_log(fixture("cron-nvme-a-localtime.log"))
    assert len(snapshots) == 5
    assert snapshots[0].taken_at_s == utc(2024, 6, 1, 8, 0, 0)  # 10:00 CEST
    assert all(s.time_source == "local time" and not s.zone_assumed for s in snapshots)
    assert [s.doc["nvme_smart_health_information_log"]["percentage_used"] for s in snapshots] == [
        4,
        4,
        4,
        5,
        5,
    ]
    assert [s.line for s in snapshots] == [1, 46, 91, 136, 181]


def a_only_run(hours: int) -> str:
    return fixture("mx500-A.txt").replace(
        "Always       -       8123\n", f"Always       -       {hours}\n"
    )


@pytest.mark.parametrize(
    ("stamps", "assumed"),
    [
        (["1714564801", "1714568401", "1714572001"], False),
        (
            ["2024-05-01T12:00:01+00:00", "2024-05-01T13:00:01+00:00", "2024-05-01T14:00:01+00:00"],
            False,
        ),
        (
            [
                "=== 2024-05-01 12:00:01 ===",
                "=== 2024-05-01 13:00:01 ===",
                "=== 2024-05-01 14:00:01 ===",
            ],
            True,
        ),
    ],
)
def test_cron_log_date_forms(stamps: list[str], assumed: bool) -> None:
    log = "".join(f"{stamp}\n{a_only_run(100 + n)}" for n, stamp in enumerate(stamps))
    snapshots = split_snapshot_log(log)
    assert [s.taken_at_s for s in snapshots] == [
        utc(2024, 5, 1, 12, 0, 1),
        utc(2024, 5, 1, 13, 0, 1),
        utc(2024, 5, 1, 14, 0, 1),
    ]
    assert {s.zone_assumed for s in snapshots} == {assumed}
    assert [s.doc["power_on_time"]["hours"] for s in snapshots] == [100, 101, 102]


def test_a_zoned_local_time_beats_a_zone_less_date_line() -> None:
    run = fixture("cron-nvme-a-localtime.log").split("smartctl 7.3", 2)[1]
    (snapshot,) = split_snapshot_log("=== 2024-06-01 10:00:05 ===\nsmartctl 7.3" + run)
    assert snapshot.taken_at_s == utc(2024, 6, 1, 8, 0, 0)
    assert snapshot.time_source == "local time"
    assert snapshot.zone_assumed is False
    (assumed,) = split_snapshot_log(
        "=== 2024-06-01 10:00:05 ===\n" + a_only_run(1)  # no Local Time line: the date line
    )
    assert assumed.taken_at_s == utc(2024, 6, 1, 10, 0, 5)
    assert assumed.zone_assumed is True


def test_cron_log_runs_without_date_lines_or_banners() -> None:
    body = a_only_run(7).split("=== START OF READ SMART DATA SECTION ===\n", 1)[1]
    log = "shell noise before the first run\n" + body + body.replace("       7\n", "       8\n")
    snapshots = split_snapshot_log(log)
    assert [s.taken_at_s for s in snapshots] == [None, None]
    assert [s.doc["power_on_time"]["hours"] for s in snapshots] == [7, 8]
    assert snapshots[1].line == 2 + body.count("\n")


def test_several_smartctl_calls_after_one_date_line_are_one_run() -> None:
    cron = fixture("cron-mx500-date-A.log")
    identity = cron[
        cron.index("=== START OF INFORMATION SECTION ===") : cron.index("=== START OF READ")
    ]
    banner = cron.splitlines(keepends=True)[1] + cron.splitlines(keepends=True)[2] + "\n"
    log = "2024-05-01T12:00:01Z\n" + banner + identity + a_only_run(5)
    (snapshot,) = split_snapshot_log(log)
    assert snapshot.doc["model_name"] == "CT1000MX500SSD1"
    assert snapshot.doc["power_on_time"] == {"hours": 5}


def test_another_drive_in_the_log_replaces_the_inherited_identity() -> None:
    first = fixture("cron-mx500-date-A.log").split("Wed May  1 13:00:01 UTC 2024\n")[0]
    other = first.replace("CT1000MX500SSD1", "CT500MX500SSD1").replace("2204E600A1B2", "OTHER")
    other = other.replace("Wed May  1 12:00:01 UTC 2024", "Wed May  1 12:30:00 UTC 2024")
    other = other.replace("1,000,204,886,016 bytes [1.00 TB]", "500,107,862,016 bytes [500 GB]")
    later = "Wed May  1 13:00:00 UTC 2024\n" + a_only_run(9)
    snapshots = split_snapshot_log(first + other + later)
    assert [s.doc["serial_number"] for s in snapshots] == ["2204E600A1B2", "OTHER", "OTHER"]
    assert snapshots[2].doc["user_capacity"]["bytes"] == 500_107_862_016


def test_log_snapshot_is_frozen() -> None:
    snapshot = split_snapshot_log(fixture("cron-mx500-date-A.log"))[0]
    assert isinstance(snapshot, LogSnapshot)
    with pytest.raises(AttributeError):
        snapshot.line = 3  # type: ignore[misc]


# --- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("local-vda-x-unable-to-detect.txt", "Unable to detect device type"),
        ("local-vda-sat-x-open-failed.txt", "Operation not permitted"),
    ],
)
def test_real_smartctl_failures_raise_parse_error(name: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        smartctl_text_to_json(fixture(name))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hello\nworld\n",
        '{"json_format_version": [1, 0]}\n',
        "Wed May  1 12:00:01 UTC 2024\n",
    ],
)
def test_not_smartctl_output(text: str) -> None:
    with pytest.raises(ParseError, match="not smartctl output"):
        smartctl_text_to_json(text)


def test_cut_in_the_middle_of_a_row_is_refused() -> None:
    text = fixture("mx500-A.txt")
    cut = text.index("24587123456") + 5  # "24587" of 24587123456
    with pytest.raises(ParseError, match="middle of this line"):
        smartctl_text_to_json(text[:cut])


def test_cut_between_rows_is_refused() -> None:
    text = fixture("mx500-A.txt")
    cut = text.index("247 Host_Program_Page_Count")
    with pytest.raises(ParseError, match="cut off"):
        smartctl_text_to_json(text[:cut])


def test_cut_nvme_log_is_refused() -> None:
    text = fixture("samsung-970evo-nvme-a.txt")
    with pytest.raises(ParseError, match="lacks"):
        smartctl_text_to_json(text[: text.index("Unsafe Shutdowns")])


def test_two_runs_in_one_text_are_refused() -> None:
    with pytest.raises(ParseError, match="split_snapshot_log"):
        smartctl_text_to_json(fixture("mx500-A.txt") * 2)


def test_garbage_inside_the_attribute_table_is_refused() -> None:
    text = fixture("mx500-A.txt").replace("172 Erase_Fail_Count", "172 Erase Fail Count")
    with pytest.raises(ParseError, match="not an attribute table row"):
        smartctl_text_to_json(text)


def test_mixed_ata_and_nvme_is_refused() -> None:
    nvme = fixture("samsung-970evo-nvme-a.txt")
    ata = fixture("mx500-A.txt").split("=== START OF READ SMART DATA SECTION ===\n")[1]
    with pytest.raises(ParseError, match="mixes ATA"):
        smartctl_text_to_json(nvme + ata)


def test_scsi_identity_lines_are_read() -> None:
    text = (
        "smartctl 7.3 2022-02-28 r5338 [x86_64-linux-6.1.0] (local build)\n\n"
        "=== START OF INFORMATION SECTION ===\nVendor:               SEAGATE\n"
        "Product:              ST4000NM0023\n"
    )
    doc = smartctl_text_to_json(text)
    assert doc["device"] == {"protocol": "SCSI"}
    assert doc["scsi_model_name"] == "SEAGATE ST4000NM0023"


def test_scsi_and_ata_lines_mixed_are_refused() -> None:
    scsi = "=== START OF INFORMATION SECTION ===\nVendor:               SEAGATE\n\n"
    with pytest.raises(ParseError, match=r"mixes ATA .* and SCSI"):
        smartctl_text_to_json(fixture("mx500-A.txt") + scsi)


def test_log_refusals() -> None:
    with pytest.raises(ParseError, match="no smartctl runs"):
        split_snapshot_log("nothing here\n")
    with pytest.raises(ParseError, match="no smartctl output after it"):
        split_snapshot_log("2024-05-01T12:00:01Z\n2024-05-01T13:00:01Z\n" + a_only_run(1))
    broken = "2024-05-01T12:00:01Z\n" + a_only_run(1)
    second = broken.count("\n") + 1
    broken += "2024-05-01T13:00:01Z\n" + fixture("local-vda-x-unable-to-detect.txt")
    with pytest.raises(ParseError, match=f"line {second}: .*Unable to detect"):
        split_snapshot_log(broken)


# --- property tests ------------------------------------------------------------------------------

FIXTURES = [
    "samsung-860evo-x.txt",
    "kingston-a400-i-H-A-brief.txt",
    "samsung-970evo-nvme-a.txt",
    "mx500-A.txt",
]
FULL = {name: smartctl_text_to_json(fixture(name)) for name in FIXTURES}
SMARTCTL_LINES = sorted({line for name in FIXTURES for line in fixture(name).splitlines()})


def table_values(doc: dict[str, Any]) -> dict[str, Any]:
    """Every value read from a table or log row, keyed by where it was read."""
    values: dict[str, Any] = {}
    for entry in doc.get("ata_smart_attributes", {}).get("table", []):
        values[f"attr {entry['id']}"] = entry
    for page in doc.get("ata_device_statistics", {}).get("pages", []):
        for entry in page["table"]:
            values[f"devstat {page['number']} {entry['offset']}"] = entry
    for key, value in doc.get("nvme_smart_health_information_log", {}).items():
        values[f"nvme {key}"] = value
    for key in ("model_name", "serial_number", "firmware_version"):
        if key in doc:
            values[key] = doc[key]
    if "user_capacity" in doc:  # blocks need the sector size, which may be cut off
        values["user_capacity bytes"] = doc["user_capacity"]["bytes"]
    return values


@given(st.text())
def test_any_text_gives_a_dict_or_parse_error(text: str) -> None:
    try:
        doc = smartctl_text_to_json(text)
    except ParseError:
        return
    assert doc[TEXT_SOURCE_KEY] is True


@given(st.lists(st.sampled_from(SMARTCTL_LINES), max_size=60), st.booleans())
def test_shuffled_smartctl_lines_give_a_dict_or_parse_error(
    lines: list[str], newline: bool
) -> None:
    text = "\n".join(lines) + ("\n" if newline else "")
    with contextlib.suppress(ParseError):
        smartctl_text_to_json(text)
    with contextlib.suppress(ParseError):
        split_snapshot_log(text)


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=300)
@given(st.sampled_from(FIXTURES), st.data())
def test_truncated_output_never_gives_wrong_values(name: str, data: st.DataObject) -> None:
    text = fixture(name)
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    try:
        doc = smartctl_text_to_json(text[:cut])
    except ParseError:
        return
    full = table_values(FULL[name])
    for where, value in table_values(doc).items():
        assert full[where] == value, where


@settings(max_examples=200)
@given(st.sampled_from(FIXTURES), st.data())
def test_damaged_output_gives_a_dict_or_parse_error(name: str, data: st.DataObject) -> None:
    lines = fixture(name).splitlines(keepends=True)
    index = data.draw(st.integers(min_value=0, max_value=len(lines) - 1))
    junk = data.draw(st.text(max_size=20))
    position = data.draw(st.integers(min_value=0, max_value=len(lines[index])))
    lines[index] = lines[index][:position] + junk + lines[index][position:]
    with contextlib.suppress(ParseError):
        smartctl_text_to_json("".join(lines))


@given(st.text())
def test_any_log_gives_snapshots_or_parse_error(text: str) -> None:
    try:
        snapshots = split_snapshot_log(text)
    except ParseError:
        return
    assert all(isinstance(s, LogSnapshot) for s in snapshots)


def test_fixture_files_are_as_the_generator_writes_them() -> None:
    """The committed synthetic fixtures are exactly what make_fixtures.py renders."""
    spec = importlib.util.spec_from_file_location("make_fixtures", DATA / "make_fixtures.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.render_mx500_a_only() == fixture("mx500-A.txt")
    assert module.render_cron_log() == fixture("cron-mx500-date-A.log")
    assert module.render_nvme_blocks() == fixture("cron-nvme-a-localtime.log")
    rendered = module.render_860evo_x(shared_json("samsung-860evo-500GB-sata-x.json"))
    assert rendered == fixture("samsung-860evo-x.txt")
