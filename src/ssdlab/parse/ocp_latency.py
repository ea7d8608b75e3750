"""The OCP Latency Monitor log (C3h) -> LatencyMonitorLog, from the raw page or from
``nvme ocp latency-monitor-log DEV -o json``.

Layout: OCP Datacenter NVMe SSD Specification v2.0 §4.8.9 (LMDATA-1…36) as nvme-cli's
``struct ssd_latency_monitor_log`` (plugins/ocp/ocp-nvme.h) and ocp-diag-autoval-ssd's
``lmparser.py`` lay it out. Each bucket counter is 16 bytes: reserved, deallocate, write, read
(4 bytes each). The latency stamps (8 bytes) and measured latencies (2 bytes) are stored bucket 3
first: bucket b's three sit at position 3 - b, in the order deallocate, write, read.

Units, converted once here: the Active Bucket Timer and its threshold count 5 minutes; thresholds
A-D count 5 ms from 5 ms (00h is 5 ms: (value + 1) x 5 ms, as nvme-cli and autoval compute it);
the minimum window counts 100 ms; measured latencies count 1 ms (0000h: invalid). nvme-cli's JSON
prints these already multiplied out (minutes, milliseconds) and the stamps as UTC times
("2024-01-02D|03:24:05:678", "NA" when invalid); both are read back to the same values.

nvme-cli before 2.5 printed neither the GUID nor the version, so its output is refused; 2.5 and
2.6 printed the stamps and measured latencies of bucket 3 as bucket 0 (and so on) — recognised by
their "Active Latency Mode: Bucket N" keys and given back to their buckets, with a note.
"""

import calendar
import re
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ssdlab.errors import ParseError
from ssdlab.model.ocp_logs import LatencyBucket, LatencyMonitorLog, PerCommand
from ssdlab.parse.json_values import mapping, to_count
from ssdlab.parse.ocp_page import checked_version, foreign_guid, le_int

_T = TypeVar("_T")

C3_PAGE_BYTES = 512
C3_GUID = bytes.fromhex("927AC08CD0846C9C7043E6D4585ED485")
"""LMDATA-36 as the bytes 511:496 hold it (``lat_mon_guid`` in nvme-cli's ocp-nvme.c)."""
C3_GUID_TEXT = C3_GUID[::-1].hex().upper()
"""The same GUID as nvme-cli prints it: byte 511 first."""
KNOWN_C3_VERSIONS = range(1, 5)
"""Log page versions 1 (OCP 2.0) to 4 (OCP 2.5, which added the debug log size)."""

_PAGE = "Latency Monitor"
_BUCKETS = 4
_BUCKET_TIMER_S = 5 * 60
_THRESHOLD_MS = 5
_MIN_WINDOW_MS = 100
_MS_PER_S = 1000
_NO_STAMP = 2**64 - 1
_STAMP_TEXT = re.compile(r"(\d{4}-\d{2}-\d{2}D\|\d{2}:\d{2}:\d{2}):(\d{3})")
_ACTIVE = {"counts": 32, "stamps": 96, "latencies": 192, "units": 216}
_STATIC = {"counts": 240, "stamps": 304, "latencies": 400, "units": 424}


def decode_latency_monitor_page(page: bytes) -> LatencyMonitorLog:
    """The raw C3h page (``nvme get-log DEV --log-id=0xc3 --log-len=512 -b``).

    Raises ParseError for another length, a foreign GUID or an unknown log page version.
    """
    if len(page) != C3_PAGE_BYTES:
        raise ParseError(f"OCP C3 log: {len(page)} bytes, not the {C3_PAGE_BYTES} of a C3 page")
    guid = page[496:512]
    if guid != C3_GUID:
        raise foreign_guid("C3", guid[::-1].hex().upper(), C3_GUID_TEXT, _PAGE)
    version = checked_version("C3", le_int(page, 494, 2), KNOWN_C3_VERSIONS)

    def per_command(at: int, size: int, read: Callable[[int], _T]) -> PerCommand[_T]:
        return PerCommand(
            deallocate=read(le_int(page, at, size)),
            write=read(le_int(page, at + size, size)),
            read=read(le_int(page, at + 2 * size, size)),
        )

    def bucket(b: int) -> LatencyBucket:
        active, static = _ACTIVE, _STATIC
        return LatencyBucket(
            active_counts=per_command(active["counts"] + 16 * b + 4, 4, int),
            static_counts=per_command(static["counts"] + 16 * b + 4, 4, int),
            active_measured_latency_s=per_command(active["latencies"] + 6 * (3 - b), 2, _ms),
            static_measured_latency_s=per_command(static["latencies"] + 6 * (3 - b), 2, _ms),
            active_stamps_ms=per_command(active["stamps"] + 24 * (3 - b), 8, _stamp),
            static_stamps_ms=per_command(static["stamps"] + 24 * (3 - b), 8, _stamp),
        )

    b0, b1, b2, b3 = (bucket(b) for b in range(_BUCKETS))
    return LatencyMonitorLog(
        log_page_version=version,
        log_page_guid=C3_GUID_TEXT,
        feature_status=page[0],
        active_bucket_timer_s=le_int(page, 2, 2) * _BUCKET_TIMER_S,
        active_bucket_timer_threshold_s=le_int(page, 4, 2) * _BUCKET_TIMER_S,
        thresholds_s=(
            _threshold(page[6]),
            _threshold(page[7]),
            _threshold(page[8]),
            _threshold(page[9]),
        ),
        active_latency_config=le_int(page, 10, 2),
        active_latency_min_window_s=page[12] * _MIN_WINDOW_MS / _MS_PER_S,
        buckets=(b0, b1, b2, b3),
        active_stamp_units=le_int(page, _ACTIVE["units"], 2),
        static_stamp_units=le_int(page, _STATIC["units"], 2),
    )


def read_latency_monitor_json(doc: Mapping[str, Any]) -> LatencyMonitorLog:
    """``nvme ocp latency-monitor-log DEV -o json`` of nvme-cli 2.5 or later.

    Raises ParseError without the GUID, version or a field every such output has, or when the
    GUID or version is not an OCP C3 page's.
    """
    guid = doc.get("Log Page GUID")
    if not isinstance(guid, str):
        raise ParseError(
            "OCP C3 log: no 'Log Page GUID' (nvme-cli before 2.5 does not print it); "
            "cannot tell an OCP C3 page"
        )
    guid_text = guid.strip().upper().removeprefix("0X")
    if guid_text != C3_GUID_TEXT:
        raise foreign_guid("C3", guid_text, C3_GUID_TEXT, _PAGE)
    version = checked_version("C3", _count(doc, "Log Page Version"), KNOWN_C3_VERSIONS)
    notes: list[str] = []
    old_order = "Active Latency Mode: Bucket 0" in doc
    if old_order:
        notes.append(
            "nvme-cli 2.5-2.6 printed the stamps and measured latencies of bucket 3 as bucket 0 "
            "(and so on); given back to their buckets"
        )

    def bucket(b: int) -> LatencyBucket:
        shown = 3 - b if old_order else b  # the bucket nvme-cli named for stamps and latencies
        return LatencyBucket(
            active_counts=_json_counts(doc, f"Active Bucket Counter: Bucket {b}"),
            static_counts=_json_counts(doc, f"Static Bucket Counter: Bucket {b}"),
            active_measured_latency_s=_json_latencies(
                doc, f"Active Measured Latency: Bucket {shown}"
            ),
            static_measured_latency_s=_json_latencies(
                doc, f"Static Measured Latency: Bucket {shown}"
            ),
            active_stamps_ms=_json_stamps(doc, f"Active Latency Time Stamp: Bucket {shown}", notes),
            static_stamps_ms=_json_stamps(doc, f"Static Latency Time Stamp: Bucket {shown}", notes),
        )

    b0, b1, b2, b3 = (bucket(b) for b in range(_BUCKETS))
    config = to_count(doc.get("Active Latency Configuration"))
    return LatencyMonitorLog(
        log_page_version=version,
        log_page_guid=C3_GUID_TEXT,
        feature_status=_count(doc, "Feature Status"),
        active_bucket_timer_s=_count(doc, "Active Bucket Timer") * 60,
        active_bucket_timer_threshold_s=_count(doc, "Active Bucket Timer Threshold") * 60,
        thresholds_s=(
            _count(doc, "Active Threshold A") / _MS_PER_S,
            _count(doc, "Active Threshold B") / _MS_PER_S,
            _count(doc, "Active Threshold C") / _MS_PER_S,
            _count(doc, "Active Threshold D") / _MS_PER_S,
        ),
        active_latency_config=config,
        active_latency_min_window_s=_count(doc, "Active Latency Minimum Window") / _MS_PER_S,
        buckets=(b0, b1, b2, b3),
        active_stamp_units=_count(doc, "Active Latency Stamp Units"),
        static_stamp_units=_count(doc, "Static Latency Stamp Units"),
        notes=tuple(dict.fromkeys(notes)),
    )


def _json_counts(doc: Mapping[str, Any], key: str) -> PerCommand[int]:
    values = _per_command(doc, key, to_count)
    if values.read is None or values.write is None or values.deallocate is None:
        raise ParseError(f"OCP C3 log: '{key}' is not three counts (Read, Write, Trim)")
    return PerCommand(read=values.read, write=values.write, deallocate=values.deallocate)


def _json_latencies(doc: Mapping[str, Any], key: str) -> PerCommand[float | None]:
    def latency(raw: object) -> float | None:
        count = to_count(raw)
        return None if count is None else _ms(count)

    return _per_command(doc, key, latency)


def _json_stamps(doc: Mapping[str, Any], key: str, notes: list[str]) -> PerCommand[int | None]:
    def stamp(raw: object) -> int | None:
        if raw == "NA" or raw is None:
            return None
        value = _stamp_text_ms(raw)
        if value is None:
            notes.append(f"a stamp in '{key}' is not a time nvme-cli prints; taken as unknown")
        return value

    return _per_command(doc, key, stamp)


def _per_command(doc: Mapping[str, Any], key: str, read: Callable[[object], _T]) -> PerCommand[_T]:
    if key not in doc:
        raise ParseError(f"OCP C3 log: no '{key}'")
    entry = mapping(doc[key])
    return PerCommand(
        read=read(entry.get("Read")),
        write=read(entry.get("Write")),
        deallocate=read(entry.get("Trim")),
    )


def _stamp_text_ms(raw: object) -> int | None:
    """nvme-cli's "%Y-%m-%dD|%H:%M:%S:mmm" in UTC (shared/time-util.c) -> ms since the epoch."""
    match = _STAMP_TEXT.fullmatch(raw) if isinstance(raw, str) else None
    if match is None:
        return None
    try:
        moment = time.strptime(match[1], "%Y-%m-%dD|%H:%M:%S")
    except ValueError:
        return None
    return calendar.timegm(moment) * _MS_PER_S + int(match[2])


def _count(doc: Mapping[str, Any], key: str) -> int:
    value = to_count(doc.get(key))
    if value is None:
        raise ParseError(f"OCP C3 log: no '{key}' number")
    return value


def _threshold(raw: int) -> float:
    return (raw + 1) * _THRESHOLD_MS / _MS_PER_S


def _ms(raw: int) -> float | None:
    return None if raw == 0 else raw / _MS_PER_S


def _stamp(raw: int) -> int | None:
    return None if raw == _NO_STAMP else raw
