"""Percentiles and a per-second series from a per-I/O latency log of any length, in bounded
memory.

fio writes one line per I/O with `log_avg_msec=0` (`time_ms, value_ns, ddir, bs, offset`): a
day of a fast drive is 10^10 lines, more than memory holds. This reducer keeps, per direction,
a log-linear histogram (64 sub-buckets per power of two: every value is known to within
1/128 = 0.78 % of itself, the bucket's midpoint) and per second a count and a sum. Memory is
bounded by one fixed histogram (3,776 buckets) per direction and the seconds, never by
the number of lines.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ssdlab.model.result import SeriesPoint

SUB_BITS = 6  # 2^6 sub-buckets per power of two
RELATIVE_ERROR = 1.0 / (2 << SUB_BITS)  # half a bucket: 0.78 %
BUCKETS = (64 - SUB_BITS + 1) << SUB_BITS  # every int64 latency has a bucket below this
DIRECTIONS = {0: "read", 1: "write", 2: "trim"}
PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99)


def bucket_of(value_ns: int) -> int:
    """The bucket of a latency: exact below 2^SUB_BITS ns, log-linear above."""
    if value_ns < (1 << SUB_BITS):
        return max(value_ns, 0)
    exponent = value_ns.bit_length() - 1 - SUB_BITS
    return ((exponent + 1) << SUB_BITS) + ((value_ns >> exponent) & ((1 << SUB_BITS) - 1))


def bucket_value(bucket: int) -> float:
    """The midpoint of a bucket (its representative latency in ns)."""
    if bucket < (1 << SUB_BITS):
        return float(bucket)
    exponent = (bucket >> SUB_BITS) - 1
    low = ((1 << SUB_BITS) + (bucket & ((1 << SUB_BITS) - 1))) << exponent
    return low + ((1 << exponent) - 1) / 2


def buckets_of(values: "npt.NDArray[np.int64]") -> "npt.NDArray[np.int64]":
    """bucket_of for a whole array at once (frexp is exact for integers below 2^53)."""
    exponent = np.frexp(values.astype(np.float64))[1].astype(np.int64) - 1 - SUB_BITS
    exponent = np.maximum(exponent, 0)
    log_linear = ((exponent + 1) << SUB_BITS) + ((values >> exponent) & ((1 << SUB_BITS) - 1))
    return np.where(values < (1 << SUB_BITS), np.maximum(values, 0), log_linear)


@dataclass
class DirectionStats:
    count: int = 0
    total_ns: int = 0
    max_ns: int = 0
    histogram: "npt.NDArray[np.int64]" = field(
        default_factory=lambda: np.zeros(BUCKETS, dtype=np.int64)
    )
    per_second: dict[int, tuple[int, int]] = field(default_factory=dict)  # s -> (count, sum)

    def add(self, times_ms: "npt.NDArray[np.int64]", values_ns: "npt.NDArray[np.int64]") -> None:
        """One block of I/Os of this direction."""
        if values_ns.size == 0:
            return
        self.count += int(values_ns.size)
        self.total_ns += int(values_ns.sum())
        self.max_ns = max(self.max_ns, int(values_ns.max()))
        self.histogram += np.bincount(buckets_of(values_ns), minlength=BUCKETS)[:BUCKETS]
        seconds = times_ms // 1000
        first = int(seconds.min())
        counts = np.bincount(seconds - first)
        sums = np.bincount(seconds - first, weights=values_ns.astype(np.float64))
        for offset in np.flatnonzero(counts).tolist():
            n, total = self.per_second.get(first + offset, (0, 0))
            self.per_second[first + offset] = (n + int(counts[offset]), total + int(sums[offset]))

    def percentile_ns(self, pct: float) -> float | None:
        if self.count == 0:
            return None
        rank = pct / 100.0 * self.count
        cumulative = np.cumsum(self.histogram)
        bucket = int(np.searchsorted(cumulative, rank, side="left"))
        return bucket_value(min(bucket, int(np.flatnonzero(self.histogram)[-1])))


@dataclass(frozen=True, slots=True)
class LatencySummary:
    direction: str
    count: int
    mean_ns: float | None
    max_ns: int | None
    percentiles_ns: tuple[tuple[float, float | None], ...]
    series: tuple[SeriesPoint, ...]  # one point per second: mean latency, I/Os per second


def reduce_latency_chunks(chunks: Iterable["npt.NDArray[np.int64]"]) -> dict[str, LatencySummary]:
    """Blocks of (time_ms, value_ns, ddir) rows, as parse/fio_lat_log.py reads them, reduced."""
    stats: dict[int, DirectionStats] = {}
    for rows in chunks:
        for ddir in np.unique(rows[:, 2]).tolist():
            mine = rows[rows[:, 2] == ddir]
            stats.setdefault(ddir, DirectionStats()).add(mine[:, 0], mine[:, 1])
    named = {DIRECTIONS.get(d, str(d)): s for d, s in sorted(stats.items())}
    return {name: summarise(name, found) for name, found in named.items()}


def reduce_latency_log(entries: Iterable[tuple[int, int, int]]) -> dict[str, LatencySummary]:
    """The same for (time_ms, value_ns, ddir) tuples (small logs, tests)."""
    rows = np.array(list(entries), dtype=np.int64).reshape(-1, 3)
    return reduce_latency_chunks([rows] if rows.size else [])


def summarise(direction: str, stats: DirectionStats) -> LatencySummary:
    series = tuple(
        SeriesPoint(float(second + 1), direction, None, float(n), s / n)
        for second, (n, s) in sorted(stats.per_second.items())
    )
    return LatencySummary(
        direction=direction,
        count=stats.count,
        mean_ns=stats.total_ns / stats.count if stats.count else None,
        max_ns=stats.max_ns if stats.count else None,
        percentiles_ns=tuple((p, stats.percentile_ns(p)) for p in PERCENTILES),
        series=series,
    )
