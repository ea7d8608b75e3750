"""The OCP C3h (Latency Monitor) decoder on the page tests/ocp_pages.py composes at nvme-cli's
offsets (no real C3h output was found) and the JSON nvme-cli prints for it. The expected values
are the figures the sources state: OCP 2.0 §4.8.9 ("a value of 00h represents 5ms", minimum
window "01h is 100 milliseconds", measured latency "0001h represents 1 millisecond", 0000h
invalid) and nvme-cli's shared/tests/test-time-util.c."""

import pytest

from ssdlab.errors import ParseError
from ssdlab.model.ocp_logs import PerCommand
from ssdlab.parse.ocp_latency import decode_latency_monitor_page, read_latency_monitor_json
from tests.ocp_pages import (
    STAMP_MS,
    STAMP_TEXT,
    c3_count,
    c3_json,
    compose_c3_page,
)


def test_units_are_converted_once_to_seconds() -> None:
    log = decode_latency_monitor_page(compose_c3_page())
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
    log = decode_latency_monitor_page(compose_c3_page())
    for b, bucket in enumerate(log.buckets):
        assert bucket.active_counts == PerCommand(
            read=c3_count(b, 2, False),
            write=c3_count(b, 1, False),
            deallocate=c3_count(b, 0, False),
        )
        assert bucket.static_counts.read == c3_count(b, 2, static=True)
        assert bucket.active_measured_latency_s.write == (20 + 3 * b + 1) / 1000
        assert bucket.active_stamps_ms.read == STAMP_MS + 1000 * b + 2
    assert log.buckets[3].active_measured_latency_s.deallocate is None  # 0000h: invalid
    assert log.buckets[2].static_stamps_ms.write is None  # all ones: invalid
    assert log.buckets[0].active_stamps_ms.deallocate == STAMP_MS


def test_nvme_cli_json_reads_as_the_page() -> None:
    page = compose_c3_page()
    doc = c3_json(page)
    assert doc["Active Latency Time Stamp: Bucket 0"]["Trim"] == STAMP_TEXT
    assert read_latency_monitor_json(doc) == decode_latency_monitor_page(page)


def test_nvme_cli_2_6_bucket_order_is_given_back() -> None:
    """nvme-cli 2.5-2.6 (no "Active Latency Configuration", "Active Latency Mode: Bucket N"
    instead) printed the stamps and latencies of position i, which is bucket 3 - i."""
    page = compose_c3_page()
    doc = c3_json(page)
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
    page = bytearray(compose_c3_page())
    page[0x1F0] ^= 0xFF
    with pytest.raises(ParseError, match="not the OCP C3 GUID"):
        decode_latency_monitor_page(bytes(page))
    with pytest.raises(ParseError, match="log page version 9 is not one ssdlab knows"):
        decode_latency_monitor_page(compose_c3_page(version=9))
    doc = c3_json(compose_c3_page())
    with pytest.raises(ParseError, match=r"nvme-cli before 2\.5"):
        read_latency_monitor_json({k: v for k, v in doc.items() if k != "Log Page GUID"})
    with pytest.raises(ParseError, match="not the OCP C3 GUID"):
        read_latency_monitor_json(
            dict(doc, **{"Log Page GUID": "AFD514C97C6F4F9CA4F2BFEA2810AFC5"})
        )


def test_missing_bucket_is_refused() -> None:
    doc = c3_json(compose_c3_page())
    del doc["Static Bucket Counter: Bucket 2"]
    with pytest.raises(ParseError, match="no 'Static Bucket Counter: Bucket 2'"):
        read_latency_monitor_json(doc)
