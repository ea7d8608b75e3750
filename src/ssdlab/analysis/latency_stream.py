"""Percentiles, a histogram and a per-second series from per-I/O latency logs of any length, in
bounded memory.

fio writes one line per I/O with `log_avg_msec=0` (`time_ms, value_ns, ddir, bs, ...`): a day
of a fast drive is 10^10 lines, more than memory holds. This reducer keeps, per direction, a
log-linear histogram (2^7 sub-buckets per power of two: every value is known to within 1/256 =
0.39 % of itself, its bucket's midpoint, clamped to the smallest and largest value seen) and,
per second, a count, a sum and a coarse histogram (2^4 sub-buckets, 3.1 %) for that second's
p99. Memory is one fixed histogram (7,424 buckets) per direction plus the seconds, never the
number of lines.

Two cores fill the same totals: the compiled one (`ssdlab_logcore`, built from logcore/, which
parses the text itself, two threads over a large block) and this numpy reference, fed the rows
parse/fio_lat_log.py reads. Percentiles are computed here from the totals, so both cores give
the same numbers whenever their histograms agree (tests/unit/analysis check that they do).
"""

import importlib
import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, cast

import numpy as np
import numpy.typing as npt

from ssdlab.analysis.tail_intervals import TAIL_FROM, TailEstimate, block_bootstrap, histogram_tail

SUB_BITS = 7
RELATIVE_ERROR = 1.0 / (2 << SUB_BITS)  # half a bucket: 0.39 %
BUCKETS = (64 - SUB_BITS + 1) << SUB_BITS  # every int64 latency has a bucket below this
SERIES_SUB_BITS = 4  # the per-second histograms: 3.1 %
SERIES_CAP_BITS = 40  # per-second values are capped at 2^40 ns (18 minutes)
SERIES_BUCKETS = (SERIES_CAP_BITS - SERIES_SUB_BITS + 1) << SERIES_SUB_BITS
DIRECTIONS = {0: "read", 1: "write", 2: "trim"}
PERCENTILES = (50.0, 90.0, 95.0, 99.0, 99.9, 99.99, 99.999, 99.9999)
HISTOGRAM_SUB_BITS = 2  # the histogram shown: 4 buckets per power of two
Ints = npt.NDArray[np.int64]


def bucket_of(value_ns: int, sub_bits: int = SUB_BITS) -> int:
    """The bucket of a latency: exact below 2^sub_bits ns, log-linear above."""
    if value_ns < (1 << sub_bits):
        return max(value_ns, 0)
    exponent = value_ns.bit_length() - 1 - sub_bits
    return ((exponent + 1) << sub_bits) + ((value_ns >> exponent) & ((1 << sub_bits) - 1))


def bucket_bounds(bucket: int, sub_bits: int = SUB_BITS) -> tuple[int, int]:
    """The lowest and highest latency (ns) of a bucket."""
    if bucket < (1 << sub_bits):
        return bucket, bucket
    exponent = (bucket >> sub_bits) - 1
    low = ((1 << sub_bits) + (bucket & ((1 << sub_bits) - 1))) << exponent
    return low, low + (1 << exponent) - 1


def bucket_value(bucket: int, sub_bits: int = SUB_BITS) -> float:
    """The midpoint of a bucket (its representative latency in ns)."""
    low, high = bucket_bounds(bucket, sub_bits)
    return (low + high) / 2


def buckets_of(values: Ints, sub_bits: int = SUB_BITS) -> Ints:
    """bucket_of for a whole array at once (frexp is exact for integers below 2^53)."""
    exponent = np.frexp(values.astype(np.float64))[1].astype(np.int64) - 1 - sub_bits
    exponent = np.maximum(exponent, 0)
    log_linear = ((exponent + 1) << sub_bits) + ((values >> exponent) & ((1 << sub_bits) - 1))
    return np.where(values < (1 << sub_bits), np.maximum(values, 0), log_linear)


@dataclass
class DirectionTotals:
    """What either core accumulates for one direction."""

    count: int = 0
    sum_ns: int = 0
    min_ns: int = 0
    max_ns: int = 0
    histogram: Ints = field(default_factory=lambda: np.zeros(BUCKETS, dtype=np.int64))
    first_second: int = 0
    second_counts: Ints = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    second_sums: Ints = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    second_histograms: Ints = field(
        default_factory=lambda: np.zeros((0, SERIES_BUCKETS), dtype=np.int64)
    )

    def _cover(self, first: int, last: int) -> None:
        """Grow the per-second arrays to hold seconds first..last."""
        if not self.second_counts.size:
            self.first_second = first
        low = min(first, self.first_second)
        high = max(last, self.first_second + self.second_counts.size - 1)
        before = self.first_second - low
        after = high - low + 1 - before - self.second_counts.size
        if before or after:
            self.second_counts = np.pad(self.second_counts, (before, after))
            self.second_sums = np.pad(self.second_sums, (before, after))
            self.second_histograms = np.pad(self.second_histograms, ((before, after), (0, 0)))
            self.first_second = low

    def add(self, times_ms: Ints, values_ns: Ints) -> None:
        """One block of I/Os of this direction."""
        if values_ns.size == 0:
            return
        low, high = int(values_ns.min()), int(values_ns.max())
        self.min_ns = low if self.count == 0 else min(self.min_ns, low)
        self.max_ns = max(self.max_ns, high)
        self.count += int(values_ns.size)
        self.sum_ns += int(values_ns.sum())
        self.histogram += np.bincount(buckets_of(values_ns), minlength=BUCKETS)[:BUCKETS]
        seconds = times_ms // 1000
        first, last = int(seconds.min()), int(seconds.max())
        self._cover(first, last)
        index = seconds - self.first_second
        span = last - self.first_second + 1
        self.second_counts[:span] += np.bincount(index, minlength=span)
        sums = np.bincount(index, weights=values_ns.astype(np.float64), minlength=span)
        self.second_sums[:span] += sums.astype(np.int64)
        capped = np.minimum(values_ns, (1 << SERIES_CAP_BITS) - 1)
        cells = index * SERIES_BUCKETS + buckets_of(capped, SERIES_SUB_BITS)
        counts = np.bincount(cells, minlength=span * SERIES_BUCKETS)
        self.second_histograms[:span] += counts.reshape(span, SERIES_BUCKETS)


class NumpyReducer:
    """The reference core: (time_ms, value_ns, ddir) rows, a block at a time."""

    core = "python"

    def __init__(self) -> None:
        self._totals: dict[int, DirectionTotals] = {}

    def add_rows(self, rows: Ints) -> None:
        for ddir in np.unique(rows[:, 2]).tolist():
            mine = rows[rows[:, 2] == ddir]
            self._totals.setdefault(int(ddir), DirectionTotals()).add(mine[:, 0], mine[:, 1])

    def totals(self) -> dict[int, DirectionTotals]:
        return dict(sorted(self._totals.items()))


class _CompiledModule(Protocol):
    def LogReducer(self) -> Any: ...  # the Rust class


def _load_compiled() -> _CompiledModule | None:
    try:
        return cast(_CompiledModule, importlib.import_module("ssdlab_logcore"))
    except ImportError:
        return None


_COMPILED = _load_compiled()


def compiled_core_available() -> bool:
    return _COMPILED is not None


class CompiledReducer:
    """The compiled core: blocks of whole lines of text, parsed and reduced in Rust. A bad line
    raises ValueError((its number within the block, from 1), reason)."""

    core = "compiled"

    def __init__(self) -> None:
        if _COMPILED is None:
            raise RuntimeError("the compiled log core (ssdlab_logcore) is not installed")
        self._reducer = _COMPILED.LogReducer()

    def feed(self, block: bytes) -> int:
        return int(self._reducer.feed(block))

    def totals(self) -> dict[int, DirectionTotals]:
        found = {}
        for ddir, row in enumerate(self._reducer.result()):
            if row is None:
                continue
            count, sum_ns, min_ns, max_ns, hist, first, counts, sums, second_hist = row
            found[ddir] = DirectionTotals(
                count=count,
                sum_ns=sum_ns,
                min_ns=min_ns,
                max_ns=max_ns,
                histogram=np.frombuffer(hist, dtype="<u8").astype(np.int64),
                first_second=first,
                second_counts=np.frombuffer(counts, dtype="<u8").astype(np.int64),
                second_sums=np.frombuffer(sums, dtype="<u8").astype(np.int64),
                second_histograms=np.frombuffer(second_hist, dtype="<u4")
                .astype(np.int64)
                .reshape(-1, SERIES_BUCKETS),
            )
        return found


def histogram_percentile_ns(
    histogram: Ints, count: int, pct: float, sub_bits: int, low_ns: int, high_ns: int
) -> float:
    """The nearest-rank percentile of a bucketed histogram: the midpoint of the bucket holding
    the ceil(pct/100 * count)-th value, kept within the smallest and largest value seen."""
    rank = max(1, math.ceil(pct / 100.0 * count - 1e-9))
    bucket = int(np.searchsorted(np.cumsum(histogram), rank, side="left"))
    return min(max(bucket_value(bucket, sub_bits), float(low_ns)), float(high_ns))


@dataclass(frozen=True, slots=True)
class SecondPoint:
    """One second of one direction: I/Os completed in it, their mean and p99 latency."""

    elapsed_s: float  # end of the second, from the log's time zero
    ios: int
    mean_ns: float
    p99_ns: float


@dataclass(frozen=True, slots=True)
class HistogramBar:
    low_ns: int
    high_ns: int
    count: int


@dataclass(frozen=True, slots=True)
class LatencySummary:
    direction: str
    count: int
    mean_ns: float | None
    min_ns: int | None
    max_ns: int | None
    percentiles_ns: tuple[tuple[float, float | None], ...]
    series: tuple[SecondPoint, ...]
    histogram: tuple[HistogramBar, ...]  # 4 bars per power of two, empty ones left out
    # p99 and up: n, the I/Os above, the 95 % interval or the I/Os it needs (tail_intervals.py)
    tails: tuple[TailEstimate, ...] = ()


def _coarse_histogram(histogram: Ints) -> tuple[HistogramBar, ...]:
    """The fine histogram regrouped into 4 buckets per power of two, for showing."""
    used = np.flatnonzero(histogram)
    bars: dict[int, int] = {}
    for bucket in used.tolist():
        low, _ = bucket_bounds(bucket)
        coarse = bucket_of(low, HISTOGRAM_SUB_BITS)
        bars[coarse] = bars.get(coarse, 0) + int(histogram[bucket])
    return tuple(
        HistogramBar(*bucket_bounds(coarse, HISTOGRAM_SUB_BITS), count)
        for coarse, count in sorted(bars.items())
    )


def _bounds(bucket: int) -> tuple[int, int]:
    return bucket_bounds(bucket)


def _series_bounds(bucket: int) -> tuple[int, int]:
    return bucket_bounds(bucket, SERIES_SUB_BITS)


def tail_estimates(
    totals: DirectionTotals, percentiles: tuple[tuple[float, float | None], ...]
) -> tuple[TailEstimate, ...]:
    """Each percentile from p99 up with its interval from the order statistics (ends from the
    fine histogram's buckets) and, when the log spans enough seconds, the block bootstrap's."""
    found = []
    for pct, value in percentiles:
        if pct < TAIL_FROM or value is None:
            continue
        seen = (totals.min_ns, totals.max_ns)
        tail = histogram_tail(totals.histogram, pct, _bounds, value, seen)
        if tail.estimable:
            boot, seed = block_bootstrap(totals.second_histograms, pct, _series_bounds)
            tail = replace(tail, bootstrap=boot, seed=seed)
        found.append(tail)
    return tuple(found)


def summarise(direction: str, totals: DirectionTotals) -> LatencySummary:
    series = []
    for offset in np.flatnonzero(totals.second_counts).tolist():
        n = int(totals.second_counts[offset])
        p99 = histogram_percentile_ns(
            totals.second_histograms[offset], n, 99.0, SERIES_SUB_BITS, totals.min_ns, totals.max_ns
        )
        second = totals.first_second + offset
        series.append(SecondPoint(float(second + 1), n, int(totals.second_sums[offset]) / n, p99))
    percentiles = tuple(
        (
            p,
            histogram_percentile_ns(
                totals.histogram, totals.count, p, SUB_BITS, totals.min_ns, totals.max_ns
            )
            if totals.count
            else None,
        )
        for p in PERCENTILES
    )
    return LatencySummary(
        direction=direction,
        count=totals.count,
        mean_ns=totals.sum_ns / totals.count if totals.count else None,
        min_ns=totals.min_ns if totals.count else None,
        max_ns=totals.max_ns if totals.count else None,
        percentiles_ns=percentiles,
        series=tuple(series),
        histogram=_coarse_histogram(totals.histogram),
        tails=tail_estimates(totals, percentiles),
    )


def summarise_totals(totals: dict[int, DirectionTotals]) -> dict[str, LatencySummary]:
    """Per direction name (read, write, trim), in that order."""
    return {DIRECTIONS[d]: summarise(DIRECTIONS[d], t) for d, t in sorted(totals.items())}


def reduce_latency_rows(blocks: Iterable[Ints]) -> dict[str, LatencySummary]:
    """Blocks of (time_ms, value_ns, ddir) rows reduced by the numpy core (small logs, tests)."""
    reducer = NumpyReducer()
    for rows in blocks:
        if rows.size:
            reducer.add_rows(rows)
    return summarise_totals(reducer.totals())


@dataclass(frozen=True, slots=True)
class LatencyLogResult:
    files: tuple[str, ...]
    kind: str  # lat | clat | slat (total, completion, submission latency)
    averaged: bool  # values are window means (log_avg_msec), not one per I/O
    averaged_why: str
    core: str  # compiled | python
    lines: int
    truncated_lines: int  # last lines fio did not finish writing, left out
    directions: dict[str, LatencySummary]
