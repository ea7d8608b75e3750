"""The tails of one fio pass, from its percentile table or its json+ histogram
(analysis/tail_intervals.py).

From the table, n is fio's `total_ios` of the direction; for a mix each percentile is the
slower direction's, with that direction's I/Os. From the json+ histogram (`clat_ns.bins`, both
directions added as the sweep adds them), n is the histogram's count, and the interval's ends
are the outer bounds of fio's buckets holding ranks l and u: fio keeps 64 buckets per power of
two (exact below 128 ns) and names each by its midpoint, so a bucket named v at or above 128 ns
spans v ± 2^(⌊log₂ v⌋ − 7)."""

from collections.abc import Mapping, Sequence

from ssdlab.analysis.intervals import LEVEL, Basis, Interval
from ssdlab.analysis.latency_bins import percentile_ns
from ssdlab.analysis.tail_intervals import (
    TAIL_FROM,
    TailEstimate,
    nearest_rank,
    needs_ios,
    passes_tail,
    rank_bounds,
    table_tail,
    unestimable,
)
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.step import StepResult

PassTails = dict[float, tuple[TailEstimate, tuple[TailEstimate, ...]]]
"""Per percentile: (the passes together, tail_intervals.passes_tail; each pass's own)."""
FIO_EXACT_BELOW = 128  # ns: fio's buckets hold one value each below this
FIO_SUB_BITS = 6  # 64 buckets per power of two


def _slower(step: StepResult, pct: float) -> DirectionMetrics | None:
    """The direction with the larger value at `pct` (reads and writes of a mix)."""
    found = [
        (dict(m.clat_percentiles_ns)[pct], m)
        for m in (step.read, step.write)
        if m is not None and pct in dict(m.clat_percentiles_ns)
    ]
    return max(found, key=lambda pair: pair[0])[1] if found else None


def step_tails(
    step: StepResult, percentiles: tuple[float, ...], level: float = LEVEL
) -> dict[float, TailEstimate]:
    """The tails (p99 and up) of one pass that fio's table and total_ios give."""
    tails = {}
    for pct in percentiles:
        metrics = _slower(step, pct) if pct >= TAIL_FROM else None
        if metrics is None or not metrics.total_ios:
            continue
        table = [(p, float(ns)) for p, ns in metrics.clat_percentiles_ns]
        tails[pct] = table_tail(table, metrics.total_ios, pct, level)
    return tails


def fio_bucket_bounds(value: int) -> tuple[int, int]:
    """The lowest and highest latency (ns) of the fio bucket json+ names `value`."""
    if value < FIO_EXACT_BELOW:
        return value, value
    half = 1 << (value.bit_length() - 1 - FIO_SUB_BITS - 1)
    return value - half, value + half - 1


def bins_tail(histogram: Mapping[int, int], pct: float, level: float = LEVEL) -> TailEstimate:
    """A percentile of fio's json+ histogram (latency ns → I/Os) with its interval: the value
    as the sweep reads it (latency_bins.percentile_ns), the ends the outer bounds of the buckets
    holding ranks l and u."""
    n = sum(histogram.values())
    ranks = rank_bounds(n, pct, level)
    if ranks is None:
        return unestimable(pct, n, level)
    running, low, high = 0, None, None
    for value in sorted(histogram):
        running += histogram[value]
        if low is None and running >= ranks[0]:
            low = fio_bucket_bounds(value)[0]
        if running >= ranks[1]:
            high = fio_bucket_bounds(value)[1]
            break
    value_ns = percentile_ns(histogram, pct)
    interval = Interval(
        None if low is None else float(low),
        None if high is None else float(high),
        level,
        Basis.FIO_HISTOGRAM.value,
        n,
    )
    return TailEstimate(
        pct,
        n,
        needs_ios(pct, level),
        None if value_ns is None else float(value_ns),
        n - nearest_rank(n, pct),
        interval,
    )


def window_tails(
    passes: Sequence[StepResult], percentiles: tuple[float, ...], level: float = LEVEL
) -> PassTails:
    """Each percentile over several passes of one element from fio's tables: (the passes
    together, tail_intervals.passes_tail; each pass's own), for the percentiles every pass
    gives."""
    each = [step_tails(step, percentiles, level) for step in passes]
    found = {}
    for pct in percentiles:
        mine = tuple(t[pct] for t in each if pct in t)
        if mine and len(mine) == len(each):
            found[pct] = (passes_tail(mine), mine)
    return found
