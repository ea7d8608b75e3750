"""The OCP C3h (Latency Monitor) decoder. No real `nvme ocp latency-monitor-log` output or raw
C3h page was found in public sources (tests/data/nvme-ocp/README.md), so the page here is
composed in the test at the offsets of nvme-cli's ``struct ssd_latency_monitor_log``
(plugins/ocp/ocp-nvme.h, nvme-cli e117ee68), its JSON as nvme-cli's ``json_c3_log``
(ocp-print-json.c, same commit) prints that page, and the expected values are the figures the
sources state: OCP 2.0 §4.8.9 ("a value of 00h represents 5ms", minimum window "01h is 100
milliseconds", measured latency "0001h represents 1 millisecond", 0000h invalid) and nvme-cli's
shared/tests/test-time-util.c (1704165845678 ms is "2024-01-02D|03:24:05:678")."""

from typing import Any

import pytest

from ssdlab.errors import ParseError
from ssdlab.model.ocp_logs import PerCommand
from ssdlab.parse.ocp_latency import decode_latency_monitor_page, read_latency_monitor_json

GUID = bytes([0x92, 0x7A, 0xC0, 0x8C, 0xD0, 0x84, 0x6C, 0x9C,
              0x70, 0x43, 0xE6, 0xD4, 0x58, 0x5E, 0xD4, 0x85])  # lat_mon_guid  # fmt: skip
STAMP_MS = 1_704_165_845_678  # test-time-util.c
STAMP_TEXT = "2024-01-02D|03:24:05:678"
NO_STAMP = 2**64 - 1
C0_GUID_TEXT = "AFD514C97C6F4F9CA4F2BFEA2810AFC5"  # the C0h GUID: a page of the wrong log
OPERATIONS = ("Trim", "Write", "Read")  # json_c3_log's operation[j], j = 0, 1, 2


def _count(bucket: int, j: int, static: bool) -> int:
    """A distinct count per bucket, command and half, so a misplaced field shows."""
    return 1000 * bucket + 10 * (j + 1) + (5 if static else 0)


def _latency_ms(bucket: int, j: int) -> int:
    return 0 if (bucket, j) == (3, 0) else 20 + 3 * bucket + j  # one invalid (0000h)


def _stamp(bucket: int, j: int) -> int:
    return NO_STAMP if (bucket, j) == (2, 1) else STAMP_MS + 1000 * bucket + j


def compose_page(version: int = 4) -> bytes:
    """The page at ssd_latency_monitor_log's offsets: counters [bucket][1 + j], stamps and
    measured latencies [3 - bucket][j]."""
    page = bytearray(512)
    page[0] = 0x07  # feature status: enabled, mode 1, measured latency supported
    page[2:4] = (12).to_bytes(2, "little")  # active bucket timer: 12 x 5 min
    page[4:6] = (0x0100).to_bytes(2, "little")  # its threshold: 256 x 5 min
    page[6:10] = bytes([0x00, 0x01, 0x12, 0xFF])  # thresholds A-D
    page[10:12] = (0x0FFF).to_bytes(2, "little")  # active latency configuration
    page[12] = 0x0A  # minimum window: 10 x 100 ms
    for static, counters, stamps, latencies, units in (
        (False, 0x20, 0x60, 0xC0, 0xD8),
        (True, 0xF0, 0x130, 0x190, 0x1A8),
    ):
        for b in range(4):
            for j in range(3):
                at = counters + 16 * b + 4 * (j + 1)
                page[at : at + 4] = _count(b, j, static).to_bytes(4, "little")
                at = stamps + 24 * (3 - b) + 8 * j
                page[at : at + 8] = _stamp(b, j).to_bytes(8, "little")
                at = latencies + 6 * (3 - b) + 2 * j
                page[at : at + 2] = _latency_ms(b, j).to_bytes(2, "little")
        page[units : units + 2] = (0x0FFF).to_bytes(2, "little")
    page[0x1EE:0x1F0] = version.to_bytes(2, "little")
    page[0x1F0:0x200] = GUID
    return bytes(page)


def _stamp_text(value: int) -> str:
    if value == NO_STAMP:
        return "NA"
    if value == STAMP_MS:
        return STAMP_TEXT
    seconds = (value - STAMP_MS) // 1000
    return f"2024-01-02D|03:24:{5 + seconds:02d}:{678 + (value - STAMP_MS) % 1000:03d}"


def nvme_cli_json(page: bytes) -> dict[str, Any]:
    """What json_c3_log prints for `page` (the fields ssdlab reads)."""
    le = lambda at, n: int.from_bytes(page[at : at + n], "little")  # noqa: E731
    doc: dict[str, Any] = {
        "Feature Status": page[0],
        "Active Bucket Timer": 5 * le(2, 2),
        "Active Bucket Timer Threshold": 5 * le(4, 2),
        **{f"Active Threshold {x}": 5 * (page[6 + k] + 1) for k, x in enumerate("ABCD")},
        "Active Latency Configuration": le(10, 2),
        "Active Latency Minimum Window": 100 * page[12],
    }
    for half, counters, stamps, latencies, units in (
        ("Active", 0x20, 0x60, 0xC0, 0xD8),
        ("Static", 0xF0, 0x130, 0x190, 0x1A8),
    ):
        for i in range(4):
            doc[f"{half} Bucket Counter: Bucket {i}"] = {
                OPERATIONS[j]: le(counters + 16 * i + 4 * (j + 1), 4) for j in (2, 1, 0)
            }
        for i in range(4):
            doc[f"{half} Latency Time Stamp: Bucket {i}"] = {
                OPERATIONS[j]: _stamp_text(le(stamps + 24 * (3 - i) + 8 * j, 8)) for j in (2, 1, 0)
            }
        for i in range(4):
            doc[f"{half} Measured Latency: Bucket {i}"] = {
                OPERATIONS[j]: le(latencies + 6 * (3 - i) + 2 * j, 2) for j in (2, 1, 0)
            }
        doc[f"{half} Latency Stamp Units"] = le(units, 2)
    doc["Log Page Version"] = le(0x1EE, 2)
    doc["Log Page GUID"] = page[0x1F0:0x200][::-1].hex().upper()
    return doc


def test_units_are_converted_once_to_seconds() -> None:
    log = decode_latency_monitor_page(compose_page())
    assert log.enabled
    assert log.active_bucket_timer_s == 12 * 300
    assert log.active_bucket_timer_threshold_s == 256 * 300
    # 00h is 5 ms; every step 5 ms more
    assert log.thresholds_s == (0.005, 0.010, 0.095, 1.28)
    assert log.active_latency_min_window_s == 1.0  # 0Ah x 100 ms
    assert log.active_latency_config == 0x0FFF
    assert log.log_page_version == 4
    assert log.log_page_guid == "85D45E58D4E643709C6C84D08CC07A92"


def test_each_bucket_and_command_is_read_from_its_own_place() -> None:
    log = decode_latency_monitor_page(compose_page())
    for b, bucket in enumerate(log.buckets):
        assert bucket.active_counts == PerCommand(
            read=_count(b, 2, False), write=_count(b, 1, False), deallocate=_count(b, 0, False)
        )
        assert bucket.static_counts.read == _count(b, 2, True)
        assert bucket.active_measured_latency_s.write == (20 + 3 * b + 1) / 1000
        assert bucket.active_stamps_ms.read == STAMP_MS + 1000 * b + 2
    assert log.buckets[3].active_measured_latency_s.deallocate is None  # 0000h: invalid
    assert log.buckets[2].static_stamps_ms.write is None  # all ones: invalid
    assert log.buckets[0].active_stamps_ms.deallocate == STAMP_MS


def test_nvme_cli_json_reads_as_the_page() -> None:
    page = compose_page()
    doc = nvme_cli_json(page)
    assert doc["Active Latency Time Stamp: Bucket 0"]["Trim"] == STAMP_TEXT
    assert read_latency_monitor_json(doc) == decode_latency_monitor_page(page)


def test_nvme_cli_2_6_bucket_order_is_given_back() -> None:
    """nvme-cli 2.5-2.6 (no "Active Latency Configuration", "Active Latency Mode: Bucket N"
    instead) printed the stamps and latencies of position i, which is bucket 3 - i."""
    page = compose_page()
    doc = nvme_cli_json(page)
    old = {k: v for k, v in doc.items() if k != "Active Latency Configuration"}
    for half in ("Active", "Static"):
        for what in ("Latency Time Stamp", "Measured Latency"):
            for i in range(4):
                old[f"{half} {what}: Bucket {i}"] = doc[f"{half} {what}: Bucket {3 - i}"]
    old.update({f"Active Latency Mode: Bucket {i}": {} for i in range(4)})
    log = read_latency_monitor_json(old)
    assert log.buckets == decode_latency_monitor_page(page).buckets
    assert log.active_latency_config is None
    assert len(log.notes) == 1


def test_foreign_guid_or_version_is_refused() -> None:
    page = bytearray(compose_page())
    page[0x1F0] ^= 0xFF
    with pytest.raises(ParseError, match="not the OCP C3 GUID"):
        decode_latency_monitor_page(bytes(page))
    with pytest.raises(ParseError, match="log page version 9 is not one ssdlab knows"):
        decode_latency_monitor_page(compose_page(version=9))
    doc = nvme_cli_json(compose_page())
    with pytest.raises(ParseError, match=r"nvme-cli before 2\.5"):
        read_latency_monitor_json({k: v for k, v in doc.items() if k != "Log Page GUID"})
    with pytest.raises(ParseError, match="not the OCP C3 GUID"):
        read_latency_monitor_json(
            dict(doc, **{"Log Page GUID": "AFD514C97C6F4F9CA4F2BFEA2810AFC5"})
        )


def test_missing_bucket_is_refused() -> None:
    doc = nvme_cli_json(compose_page())
    del doc["Static Bucket Counter: Bucket 2"]
    with pytest.raises(ParseError, match="no 'Static Bucket Counter: Bucket 2'"):
        read_latency_monitor_json(doc)
