"""The OCP Latency Monitor (C3h) reconciled with host per-I/O latencies: C3h pages composed at
nvme-cli's offsets (tests/ocp_pages.py; no real C3h capture exists) before and after a run with
chosen counter increments, host latencies chosen on and around the thresholds, and every
matched / host-only / device-only count worked out by hand from the rule (OCP 2.0 App. C.2.3.2:
[A, B) bucket 0 … >= D bucket 3; host latency >= device latency for the same command)."""

from dataclasses import replace

import numpy as np
import pytest

from ssdlab.analysis.latency_reconcile import (
    HostCounter,
    HostLatencyCounts,
    OperationReconciliation,
    ReconcileRefusal,
    device_counts,
    reconcile_latency,
    threshold_bounds_ns,
)
from ssdlab.model.ocp_logs import LatencyMonitorLog
from ssdlab.parse.ocp_latency import decode_latency_monitor_page
from tests.ocp_pages import compose_c3_counts

THRESHOLDS = (0, 1, 3, 9)  # A 5 ms, B 10 ms, C 20 ms, D 50 ms
MS = 1_000_000
READ, WRITE = 0, 1

# host reads: 10 below A (one 1 ns below it), 4 in [A, B) (one exactly at A), 3 in [B, C),
# 2 in [C, D), 5 at or above D (one exactly at D); two writes in [A, B)
HOST = (
    [(1, 1 * MS, READ)] * 9
    + [(2, 5 * MS - 1, READ), (3, 5 * MS, READ)]
    + [(4, 6 * MS, READ)] * 3
    + [(5, 12 * MS, READ)] * 3
    + [(6, 25 * MS, READ)] * 2
    + [(7, 50 * MS, READ)]
    + [(8, 60 * MS, READ)] * 4
    + [(9, 7 * MS, WRITE)] * 2
)
# the drive: reads 6 in bucket 0, 3 in 1, 4 in 2, 2 in 3; no write; 3 trims in bucket 3
DEVICE = {(0, "read"): 6, (1, "read"): 3, (2, "read"): 4, (3, "read"): 2, (3, "trim"): 3}


def _log(
    deltas: dict[tuple[int, str], int] | None = None,
    timer: int = 12,
    counts: dict[tuple[int, str], int] | None = None,
) -> LatencyMonitorLog:
    page = compose_c3_counts(deltas, timer=timer, thresholds=THRESHOLDS, counts=counts)
    return decode_latency_monitor_page(page)


def _host(rows: list[tuple[int, int, int]], before: LatencyMonitorLog) -> HostLatencyCounts:
    counter = HostCounter(threshold_bounds_ns(before))
    half = len(rows) // 2  # two blocks, as a long log is read
    counter.add(np.array(rows[:half], dtype=np.int64).reshape(-1, 3))
    counter.add(np.array(rows[half:], dtype=np.int64).reshape(-1, 3))
    return counter.result()


def _table(operation: OperationReconciliation) -> list[tuple[int | None, ...]]:
    return [
        (b.host_ios, b.device_commands, b.matched, b.host_only, b.device_only)
        for b in operation.buckets
    ]


def test_every_host_io_above_a_is_matched_or_the_hosts() -> None:
    before = _log()
    after = _log(deltas=DEVICE, timer=13)
    assert threshold_bounds_ns(before) == (5 * MS, 10 * MS, 20 * MS, 50 * MS)
    result = reconcile_latency(before, after, _host(HOST, before))
    assert result.conclusive
    assert result.reason is None
    reads, writes, trims = result.operations
    assert (reads.operation, reads.host_ios, reads.host_below_threshold) == ("read", 24, 10)
    # bucket: (host in range, device in range, matched, host-only, device-only at >= its T)
    # >= D: host 5, device 2; >= C: 7, 6; >= B: 10, 9; >= A: 14, 15
    assert _table(reads) == [
        (4, 6, 14, 0, 1),
        (3, 3, 9, 1, 0),
        (2, 4, 6, 1, 0),
        (5, 2, 2, 3, 0),
    ]
    assert [b.threshold for b in reads.buckets] == ["A", "B", "C", "D"]
    assert (reads.buckets[3].low_ns, reads.buckets[3].high_ns) == (50 * MS, None)
    assert _table(writes) == [(2, 0, 0, 2, 0), (0, 0, 0, 0, 0), (0, 0, 0, 0, 0), (0, 0, 0, 0, 0)]
    assert trims.host_ios == 0  # shown because the drive counted trims: other I/O
    assert _table(trims) == [(0, 0, 0, 0, 3), (0, 0, 0, 0, 3), (0, 0, 0, 0, 3), (0, 3, 0, 0, 3)]


def test_per_bucket_matching_would_blame_the_drive_for_the_hosts_delay() -> None:
    """Five I/Os the drive completed in [C, D) that the host saw at >= D: matched at C, the
    host's at D, and no device-only anywhere."""
    before = _log()
    after = _log(deltas={(2, "read"): 5})
    result = reconcile_latency(before, after, _host([(1, 60 * MS, READ)] * 5, before))
    assert _table(result.operations[0]) == [
        (0, 0, 5, 0, 0),
        (0, 0, 5, 0, 0),
        (0, 5, 5, 0, 0),
        (5, 0, 0, 5, 0),
    ]


def test_a_timer_that_went_back_is_inconclusive() -> None:
    before = _log(timer=40)
    after = _log(deltas=DEVICE, timer=1)
    result = reconcile_latency(before, after, _host(HOST, before))
    assert not result.conclusive
    assert result.reason == (
        "the Active Bucket Timer went back (12000 s to 300 s): the active counters restarted "
        "during the run"
    )
    reads = result.operations[0]
    assert [b.host_ios for b in reads.buckets] == [4, 3, 2, 5]  # the host's side still stands
    assert {b.device_commands for b in reads.buckets} == {None}
    assert {b.matched for b in reads.buckets} == {None}


def test_a_counter_that_went_down_is_inconclusive() -> None:
    before = _log(counts={(1, "write"): 9})
    after = _log(counts={(1, "write"): 2})
    result = reconcile_latency(before, after, _host(HOST, before))
    assert result.reason == (
        "the active write counter of bucket 1 went down: the active counters restarted during "
        "the run"
    )


def test_a_log_longer_than_the_time_left_on_the_timer_is_inconclusive() -> None:
    before = _log(timer=255)  # threshold 256 x 5 min: 300 s left
    after = _log(timer=255)
    rows = [(0, 6 * MS, READ), (300_000, 6 * MS, READ)]
    result = reconcile_latency(before, after, _host(rows, before))
    assert result.reason == (
        "the log spans 300 s but the Active Bucket Timer reached its threshold within 300 s "
        "of the first read: the active counters restarted during the run"
    )


def test_a_saturated_counter_is_unknown_with_those_below_it() -> None:
    before = _log()
    after = _log(counts={(2, "read"): 2**32 - 1})
    result = reconcile_latency(before, after, _host(HOST, before))
    reads = result.operations[0]
    assert [b.device_commands is None for b in reads.buckets] == [False, False, True, False]
    assert [b.matched for b in reads.buckets] == [None, None, None, 0]
    assert result.notes == (
        "a counter is at its saturation value (FFFFFFFFh): that bucket and those below it are "
        "unknown",
    )


@pytest.mark.parametrize(
    ("after", "message"),
    [
        (
            replace(decode_latency_monitor_page(compose_c3_counts(thresholds=THRESHOLDS)),
                    log_page_guid="AFD514C97C6F4F9CA4F2BFEA2810AFC5"),
            "the C3h pages carry different GUIDs (85D45E58D4E643709C6C84D08CC07A92, "
            "AFD514C97C6F4F9CA4F2BFEA2810AFC5): read both from the same drive",
        ),
        (
            decode_latency_monitor_page(compose_c3_counts(thresholds=THRESHOLDS, version=3)),
            "the C3h pages are of log page versions 4 and 3 (firmware changed?): read both "
            "around one run",
        ),
        (
            decode_latency_monitor_page(compose_c3_counts(thresholds=(0, 1, 3, 10))),
            "the C3h pages have different thresholds A-D: the monitor was set again between "
            "them; read both around one run",
        ),
        (
            decode_latency_monitor_page(compose_c3_counts(thresholds=THRESHOLDS, enabled=False)),
            "the Latency Monitor is not enabled (feature status bit 0): enable it with "
            "'nvme ocp set-latency-monitor-feature DEV … -e 1' before the run",
        ),
    ],
)  # fmt: skip
def test_pages_that_cannot_be_compared_are_refused(after: LatencyMonitorLog, message: str) -> None:
    before = _log()
    with pytest.raises(ReconcileRefusal) as refused:
        reconcile_latency(before, after, _host(HOST, before))
    assert str(refused.value) == message


def test_the_drives_counts_alone_for_a_pass_without_a_per_io_log() -> None:
    before = _log()
    found = device_counts(before, _log(DEVICE), span_s=5.0)
    assert found.conclusive
    assert found.increases == {"read": (6, 3, 4, 2), "write": (0, 0, 0, 0), "trim": (0, 0, 0, 3)}
    # the timer (12 x 5 min) would reach its threshold (2016 x 5 min) within the pass
    long = device_counts(before, _log(DEVICE), span_s=(2016 - 12) * 300.0)
    assert not long.conclusive
    assert long.increases["read"] == (None, None, None, None)
    back = device_counts(before, _log(DEVICE, timer=3), span_s=None)
    assert back.reason is not None
    assert "went back" in back.reason
    with pytest.raises(ReconcileRefusal):
        device_counts(before, decode_latency_monitor_page(
            compose_c3_counts(thresholds=THRESHOLDS, enabled=False)), span_s=None)  # fmt: skip
