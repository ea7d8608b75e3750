"""The drive's own count of slow commands (OCP Latency Monitor, C3h) against the host's per-I/O
latency log of the same run: which host outliers the drive caused and which the host added.

OCP Datacenter NVMe SSD Specification v2.0 App. C.2.3.2: a read, write or deallocate command
whose completion time is below Threshold A is counted nowhere; at or above A and below B it
increments Active Bucket 0; [B, C) bucket 1; [C, D) bucket 2; at or above D bucket 3. The
Latency Monitor's purpose (App. C.1) is to "clearly understand if the outliers are caused by
the SSD or other components in the host". Its counters carry no command identity, so the
reconciliation is by counts, and every count here is exact (integers; unknown is None).

**Inputs.** C3h read before and after the run (the active counters' difference is what the
drive counted during it) and the host's per-I/O records (fio ``write_lat_log`` with
``log_avg_msec=0``: time, direction, latency in ns), counted per operation into the same four
ranges by `HostCounter`.

**The rule: cumulative, from the top threshold down.** The host measures a command from before
it reaches the drive until after the drive completes it, so for the same command host latency
>= device latency: a host I/O in range k was counted by the drive in range k, in a lower range,
or (below A) not at all — never higher. Matching range by range would be wrong: five I/Os the
drive completed in [C, D) that the host saw at >= D would show as five host-only I/Os at D and
five device-only commands at C. So, for each threshold T (D, C, B, A):

- host >= T: the host I/Os of that operation at or above T;
- device >= T: the commands the drive counted at or above T (buckets k..3, deltas);
- matched = min of the two: host I/Os above T the drive itself took T or longer over;
- host-only = host - device when positive: I/Os the host saw at or above T that the drive
  completed below T, so what pushed them over T was added outside the drive (queueing in the
  host stack, the kernel, fio itself);
- device-only = device - host when positive: commands the drive counted at or above T for
  which the log has no I/O that slow, so they were not this run's logged I/O (another
  process, a filesystem's metadata or journal, a job whose log was not given): at least that
  many commands of other I/O reached the drive.

Every host I/O at or above A is thereby either matched (the drive was at least that slow) or
attributed to the host at the highest threshold the drive did not reach. When other I/O ran on
the drive at the same time its slow commands can stand in for the run's, so host-only is then
a lower bound; on a drive only the run used it is exact.

**Inconclusive.** When the Active Bucket Timer reaches its threshold the active counters are
moved to the static ones, cleared, and the timer restarts from zero (App. C.2.3.3): a timer
that went backwards, a counter that went down, or a log longer than the time left before the
timer's threshold means the before/after difference is not the run's, and the reconciliation
says so instead of guessing. A counter at its saturation value (FFFFFFFFh) is unknown.
Pages of different log page versions or thresholds, or a monitor not enabled, are refused
(`ReconcileRefusal`).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from ssdlab.model.ocp_logs import LatencyMonitorLog, PerCommand

if TYPE_CHECKING:  # numpy is imported by the first host count, not by every run's modules
    import numpy as np
    import numpy.typing as npt

    Ints = npt.NDArray[np.int64]

OPERATIONS = ("read", "write", "trim")
"""fio's data directions 0, 1, 2; the drive counts them as read, write and deallocate."""
THRESHOLD_NAMES = ("A", "B", "C", "D")
SATURATED = 2**32 - 1
_NS_PER_S = 1_000_000_000
_MS_PER_S = 1000
_T = TypeVar("_T")


class ReconcileRefusal(ValueError):
    """The two pages cannot be compared (versions, thresholds, monitor off)."""


def threshold_bounds_ns(log: LatencyMonitorLog) -> tuple[int, int, int, int]:
    """Thresholds A-D in ns (exact: each is a whole number of ms)."""
    a, b, c, d = (round(t * _NS_PER_S) for t in log.thresholds_s)
    return a, b, c, d


@dataclass(frozen=True, slots=True)
class HostLatencyCounts:
    """Per operation: every I/O of the log, and those in [A, B), [B, C), [C, D), [D, inf)."""

    bounds_ns: tuple[int, int, int, int]
    ios: dict[str, int]
    in_range: dict[str, tuple[int, int, int, int]]
    first_ms: int | None
    last_ms: int | None

    @property
    def span_s(self) -> float | None:
        if self.first_ms is None or self.last_ms is None:
            return None
        return (self.last_ms - self.first_ms) / _MS_PER_S


class HostCounter:
    """Counts (time_ms, value_ns, ddir) rows, a block at a time, into the four ranges."""

    def __init__(self, bounds_ns: tuple[int, int, int, int]) -> None:
        import numpy as np

        self._bounds = bounds_ns
        self._edges = np.array(bounds_ns, dtype=np.int64)
        self._ios = np.zeros(len(OPERATIONS), dtype=np.int64)
        self._ranges = np.zeros((len(OPERATIONS), 5), dtype=np.int64)  # column 0: below A
        self._first: int | None = None
        self._last: int | None = None

    def add(self, rows: "Ints") -> None:
        import numpy as np

        if not rows.size:
            return
        low, high = int(rows[:, 0].min()), int(rows[:, 0].max())
        self._first = low if self._first is None else min(self._first, low)
        self._last = high if self._last is None else max(self._last, high)
        ranges = np.searchsorted(self._edges, rows[:, 1], side="right")  # value >= edge: above
        for ddir in range(len(OPERATIONS)):
            mine = ranges[rows[:, 2] == ddir]
            self._ios[ddir] += mine.size
            self._ranges[ddir] += np.bincount(mine, minlength=5)

    def result(self) -> HostLatencyCounts:
        return HostLatencyCounts(
            bounds_ns=self._bounds,
            ios={op: int(self._ios[d]) for d, op in enumerate(OPERATIONS)},
            in_range={
                op: (
                    int(self._ranges[d, 1]),
                    int(self._ranges[d, 2]),
                    int(self._ranges[d, 3]),
                    int(self._ranges[d, 4]),
                )
                for d, op in enumerate(OPERATIONS)
            },
            first_ms=self._first,
            last_ms=self._last,
        )


@dataclass(frozen=True, slots=True)
class BucketReconciliation:
    """One bucket of one operation: its range, the counts in it, and the attribution at or
    above its lower threshold (the rule in the module's docstring). Device figures are None
    when the reconciliation is inconclusive or the counter saturated."""

    bucket: int
    threshold: str  # A, B, C or D: the bucket's lower bound
    low_ns: int
    high_ns: int | None  # None: no upper bound (bucket 3)
    host_ios: int  # host I/Os whose latency fell in [low, high)
    device_commands: int | None  # the active counter's difference
    host_at_or_above: int
    device_at_or_above: int | None
    matched: int | None
    host_only: int | None
    device_only: int | None
    device_latency_s: float | None  # the measured latency the drive recorded during the run


@dataclass(frozen=True, slots=True)
class OperationReconciliation:
    operation: str
    host_ios: int  # every I/O of this operation in the log
    host_below_threshold: int  # below A: the drive counts none of these
    buckets: tuple[BucketReconciliation, ...]


@dataclass(frozen=True, slots=True)
class LatencyReconciliation:
    thresholds_s: tuple[float, float, float, float]
    conclusive: bool
    reason: str | None  # why not conclusive
    operations: tuple[OperationReconciliation, ...]
    notes: tuple[str, ...] = ()


def _of(values: PerCommand[_T], operation: str) -> _T:
    """The value for fio's operation name (the drive calls a trim a deallocate)."""
    if operation == "read":
        return values.read
    return values.write if operation == "write" else values.deallocate


def _refuse_mismatch(before: LatencyMonitorLog, after: LatencyMonitorLog) -> None:
    if before.log_page_guid != after.log_page_guid:
        raise ReconcileRefusal(
            f"the C3h pages carry different GUIDs ({before.log_page_guid}, "
            f"{after.log_page_guid}): read both from the same drive"
        )
    if before.log_page_version != after.log_page_version:
        raise ReconcileRefusal(
            f"the C3h pages are of log page versions {before.log_page_version} and "
            f"{after.log_page_version} (firmware changed?): read both around one run"
        )
    if before.thresholds_s != after.thresholds_s:
        raise ReconcileRefusal(
            "the C3h pages have different thresholds A-D: the monitor was set again between "
            "them; read both around one run"
        )
    if not (before.enabled and after.enabled):
        raise ReconcileRefusal(
            "the Latency Monitor is not enabled (feature status bit 0): enable it with "
            "'nvme ocp set-latency-monitor-feature DEV … -e 1' before the run"
        )


def window_problem(
    before: LatencyMonitorLog, after: LatencyMonitorLog, host: HostLatencyCounts
) -> str | None:
    """Why the active counters' difference is not the run's, or None."""
    return counters_problem(before, after, host.span_s)


def counters_problem(
    before: LatencyMonitorLog, after: LatencyMonitorLog, span_s: float | None
) -> str | None:
    """Why the active counters' difference between two reads is not what the drive counted
    in the `span_s` seconds between them (None: not known), or None."""
    if after.active_bucket_timer_s < before.active_bucket_timer_s:
        return (
            "the Active Bucket Timer went back "
            f"({before.active_bucket_timer_s} s to {after.active_bucket_timer_s} s): the active "
            "counters restarted during the run"
        )
    for b, (old, new) in enumerate(zip(before.buckets, after.buckets, strict=True)):
        for operation in OPERATIONS:
            if _of(new.active_counts, operation) < _of(old.active_counts, operation):
                return (
                    f"the active {operation} counter of bucket {b} went down: the active "
                    "counters restarted during the run"
                )
    left = before.active_bucket_timer_threshold_s - before.active_bucket_timer_s
    if span_s is not None and left > 0 and span_s >= left:
        return (
            f"the log spans {span_s:g} s but the Active Bucket Timer reached its threshold "
            f"within {left} s of the first read: the active counters restarted during the run"
        )
    return None


@dataclass(frozen=True, slots=True)
class DeviceCounts:
    """What the drive counted between two reads, alone (no host log to reconcile it with):
    per operation the active counters' increase in buckets 0-3 (None: saturated), or None
    throughout with `reason` when the counters restarted between the reads."""

    thresholds_s: tuple[float, float, float, float]
    conclusive: bool
    reason: str | None
    increases: dict[str, tuple[int | None, int | None, int | None, int | None]]


def device_counts(
    before: LatencyMonitorLog, after: LatencyMonitorLog, span_s: float | None
) -> DeviceCounts:
    """The drive's own counts between the reads; ReconcileRefusal as `reconcile_latency`."""
    _refuse_mismatch(before, after)
    reason = counters_problem(before, after, span_s)
    increases = {}
    for operation in OPERATIONS:
        deltas = _device_deltas(before, after, operation) if reason is None else [None] * 4
        increases[operation] = (deltas[0], deltas[1], deltas[2], deltas[3])
    return DeviceCounts(before.thresholds_s, reason is None, reason, increases)


def _device_deltas(
    before: LatencyMonitorLog, after: LatencyMonitorLog, operation: str
) -> list[int | None]:
    deltas: list[int | None] = []
    for old, new in zip(before.buckets, after.buckets, strict=True):
        end = _of(new.active_counts, operation)
        deltas.append(None if end == SATURATED else end - _of(old.active_counts, operation))
    return deltas


def _device_counted(before: LatencyMonitorLog, after: LatencyMonitorLog, operation: str) -> bool:
    return any(
        _of(old.active_counts, operation) != _of(new.active_counts, operation)
        for old, new in zip(before.buckets, after.buckets, strict=True)
    )


def _device_latency(
    before: LatencyMonitorLog, after: LatencyMonitorLog, bucket: int, operation: str
) -> float | None:
    """The measured latency of the bucket when its stamp changed between the reads."""
    old, new = before.buckets[bucket], after.buckets[bucket]
    stamp = _of(new.active_stamps_ms, operation)
    if stamp is None or stamp == _of(old.active_stamps_ms, operation):
        return None
    return _of(new.active_measured_latency_s, operation)


def _operation(
    before: LatencyMonitorLog,
    after: LatencyMonitorLog,
    host: HostLatencyCounts,
    operation: str,
    conclusive: bool,
) -> OperationReconciliation:
    in_range = host.in_range[operation]
    deltas = _device_deltas(before, after, operation) if conclusive else [None] * 4
    bounds = host.bounds_ns
    rows: list[BucketReconciliation] = []
    host_above = 0
    device_above: int | None = 0
    for k in range(3, -1, -1):
        host_above += in_range[k]
        delta = deltas[k]
        device_above = None if device_above is None or delta is None else device_above + delta
        rows.append(
            BucketReconciliation(
                bucket=k,
                threshold=THRESHOLD_NAMES[k],
                low_ns=bounds[k],
                high_ns=bounds[k + 1] if k < 3 else None,
                host_ios=in_range[k],
                device_commands=delta,
                host_at_or_above=host_above,
                device_at_or_above=device_above,
                matched=None if device_above is None else min(host_above, device_above),
                host_only=None if device_above is None else max(host_above - device_above, 0),
                device_only=None if device_above is None else max(device_above - host_above, 0),
                device_latency_s=_device_latency(before, after, k, operation)
                if conclusive
                else None,
            )
        )
    return OperationReconciliation(
        operation=operation,
        host_ios=host.ios[operation],
        host_below_threshold=host.ios[operation] - sum(in_range),
        buckets=tuple(reversed(rows)),
    )


def reconcile_latency(
    before: LatencyMonitorLog, after: LatencyMonitorLog, host: HostLatencyCounts
) -> LatencyReconciliation:
    """The reconciliation of one run (rule in the module's docstring); ReconcileRefusal when
    the pages cannot be compared, inconclusive (device figures None) when the active counters
    restarted between them."""
    _refuse_mismatch(before, after)
    if host.bounds_ns != threshold_bounds_ns(before):
        raise ReconcileRefusal("the host I/Os were counted against other thresholds")
    reason = window_problem(before, after, host)
    operations = tuple(
        _operation(before, after, host, operation, reason is None)
        for operation in OPERATIONS
        if host.ios[operation] or _device_counted(before, after, operation)
    )
    saturated = reason is None and any(
        row.device_commands is None for op in operations for row in op.buckets
    )
    notes = (
        ("a counter is at its saturation value (FFFFFFFFh): that bucket and those below it "
         "are unknown",)
        if saturated
        else ()
    )  # fmt: skip
    return LatencyReconciliation(
        thresholds_s=before.thresholds_s,
        conclusive=reason is None,
        reason=reason,
        operations=operations,
        notes=notes,
    )


RULE = (
    "host latency ≥ the drive's for the same command, so the counts are compared at or above "
    "each threshold, from D down: matched = min(host ≥ T, device ≥ T) — the drive itself took "
    "T or longer; host-only = host − device — the drive completed them below T, the host "
    "(queueing, kernel, fio) added the rest; device-only = device − host — commands of other "
    "I/O on the drive (another process, filesystem metadata); with such I/O host-only is a "
    "lower bound"
)


def reconciliation_data(
    result: LatencyReconciliation, c3_files: Sequence[str], kind: str
) -> dict[str, Any]:
    """The reconciliation as JSON: what `ssdlab latency --json` prints under "reconciliation"
    and what a `--latency-monitor` run stores; `kind` names the host log (lat, clat)."""
    return {
        "c3_before": c3_files[0],
        "c3_after": c3_files[1],
        "host_latency": kind,
        "thresholds_ms": {
            name: round(t * 1000, 3) for name, t in zip("ABCD", result.thresholds_s, strict=True)
        },
        "conclusive": result.conclusive,
        "reason": result.reason,
        "rule": RULE,
        "notes": list(result.notes),
        "operations": {
            op.operation: {
                "host_ios": op.host_ios,
                "host_below_threshold_a": op.host_below_threshold,
                "buckets": [
                    {
                        "bucket": row.bucket,
                        "threshold": row.threshold,
                        "low_ns": row.low_ns,
                        "high_ns": row.high_ns,
                        "host_ios": row.host_ios,
                        "device_commands": row.device_commands,
                        "host_at_or_above": row.host_at_or_above,
                        "device_at_or_above": row.device_at_or_above,
                        "matched": row.matched,
                        "host_only": row.host_only,
                        "device_only": row.device_only,
                        "device_latency_s": row.device_latency_s,
                    }
                    for row in op.buckets
                ],
            }
            for op in result.operations
        },
    }
