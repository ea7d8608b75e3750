"""Write-cache cliff: where a sustained write slows down, read from its bandwidth log.

Reviewers find a drive's write cache by writing until the speed falls and reading the graph by
eye. This module does it with a change-point method that tolerates noise and outliers.

**Input.** `(bytes_written_cumulative, bw_bytes_per_s)` points, one per log interval of a
sustained write (fio's bw log, summed over jobs). Bytes count from the start of the write, so
the first interval starts at 0 bytes; a point's bytes are those written by the end of its
interval.

**Method.**

1. *Minimum segment.* A level must last at least `min_segment_points` points (default: the
   larger of 5 points and 1 % of the series) and, when given, `min_segment_bytes`. Anything
   shorter (a spike, a dip, fio's ramp-up or its last partial interval) is not a segment. A
   series with fewer than two minimum segments is not searched at all: the verdict says so
   (`short`: the points it had and the points it needed), never "no cliff".
2. *Blocks.* Series longer than `max_blocks` points are cut into at most `max_blocks` blocks
   of (nearly) equal point counts, and each block is replaced by its median (a spike shorter
   than half a block vanishes). Shorter series are used point by point.
3. *Noise.* σ = 1.4826 × median(|first differences|) / √2 of the block values: a robust
   standard deviation that a few level changes and outliers do not move. It is floored at 0.1 %
   of the median level, so a noise-free series still has a positive scale.
4. *Segmentation.* Optimal partitioning (Jackson et al. 2005: the exact optimum that PELT
   finds faster) of the block values minimising Σ over segments of the L1 cost
   Σ|x − median(segment)| plus a penalty β = `penalty_factor` × σ × ln(blocks) per segment,
   with the minimum length as a constraint. The L1 cost is that of a Laplace likelihood: an
   outlier costs its distance, not its square. On pure noise the best split gains about
   0.6 σ × a χ²₁ maximum (≈ 10 σ for 500 blocks), so β = 2 σ ln(B) (≈ 12 σ) keeps noise from
   being cut while a true step of height δ over ℓ blocks gains ≈ ℓ δ.
5. *Merging.* Segments shorter than the minimum are merged into the neighbour with the closer
   median; then, while two adjacent segments' medians differ by less than `min_drop_pct`
   (relative to the larger), the closest pair is merged. Noise and small drifts therefore
   never make a boundary; every surviving boundary is a change of at least `min_drop_pct`.
   (This, not the penalty, is what keeps flat data free of false cliffs; the penalty only
   spares the search needless cuts.)
6. *Refinement.* Each surviving boundary is moved to the single point, within a block or a
   minimum segment on either side, that best separates the two segments' medians (L1 cost),
   and the merges of step 5 run again. This also dissolves a "segment" that met the minimum
   length only by borrowing normal points around a shorter dip (its median is the dip's when
   the dip is most of it).
7. *Step or slope.* A boundary is a step when the two segments around it fit a step (their
   medians) with a smaller L1 cost than one straight line through both against bytes written
   (Tukey's resistant line). A drive that slows steadily (or a disk from outer to inner
   tracks) is cut into two levels by the search, but a line fits it better: no cliff.
8. *Verdict.* The cliff is the first step where the bandwidth falls. `cliff_bytes` (the
   write-cache size) is the bytes written by the end of the last interval before it; the
   interval straddling the change belongs to whichever side its bandwidth is closer to, so the
   position is good to about one interval. In-cache MB/s is the median of the segment before
   the cliff, post-cache MB/s that of the segment after it, the floor the slowest segment
   after it. Later segments (a slower folding phase, a recovery) are kept with their change.
"""

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from heapq import heappop, heappush
from itertools import pairwise

from ssdlab.model.units import format_gb, format_mb_per_s

MAD_TO_SIGMA = 1.4826
"""Scale factor from the median absolute deviation to σ for normal data."""
MIN_SEGMENT_POINTS = 5
"""Fewest points a segment has by default, however short the series."""
MIN_SEGMENT_FRACTION = 0.01
"""Default minimum segment as a fraction of the series' points."""
NOISE_FLOOR_FRACTION = 1e-3
"""Smallest noise scale, as a fraction of the median bandwidth."""
METHOD = (
    "optimal partitioning with L1 cost on block medians, penalty = factor × robust σ × ln(blocks), "
    "minimum segment length, merge of adjacent segments closer than the drop threshold, "
    "point-level refinement, step-versus-line test"
)


@dataclass(frozen=True, slots=True)
class BandwidthSegment:
    """Points `start_index` ≤ i < `end_index` of the series, at one bandwidth level.

    The segment covers the bytes written from `start_bytes` (the end of the previous interval;
    0 for the first) to `end_bytes`. `spread_bw_bytes_per_s` is the robust σ
    (1.4826 × MAD) of its points, None for a single point. `change_pct` is the change of the
    median from the previous segment (negative: slower), None for the first. `step` says
    whether the change from the previous segment is a step (it fits the two segments better
    than one straight line through them against bytes written) rather than a gradual slope;
    None for the first.
    """

    start_index: int
    end_index: int
    start_bytes: float
    end_bytes: float
    median_bw_bytes_per_s: float
    spread_bw_bytes_per_s: float | None
    change_pct: float | None
    step: bool | None

    @property
    def points(self) -> int:
        return self.end_index - self.start_index

    @property
    def written_bytes(self) -> float:
        return self.end_bytes - self.start_bytes


@dataclass(frozen=True, slots=True)
class CliffCriteria:
    """The thresholds a cliff verdict used, and the numbers derived from the series.

    `block_points` is how many points one block of the search held (1: every point);
    `noise_bw_bytes_per_s` is the robust σ of the points (from first differences) and
    `penalty` the per-segment penalty of the search (bytes/s summed over blocks); both None
    when the series was too short to search.
    """

    min_drop_pct: float
    min_segment_points: int
    min_segment_bytes: float | None
    penalty_factor: float
    max_blocks: int
    block_points: int
    noise_bw_bytes_per_s: float | None
    penalty: float | None
    method: str = METHOD


@dataclass(frozen=True, slots=True)
class ShortSeries:
    """Why a series was too short to search for a cliff: what it had and what it needed.

    `points` log points (and `written_bytes`) against the `points_needed` (and, when a
    minimum segment in bytes was set, `bytes_needed`) of two minimum segments.
    """

    points: int
    points_needed: int
    written_bytes: float
    bytes_needed: float | None


@dataclass(frozen=True, slots=True)
class CacheCliffVerdict:
    """Where a sustained write fell off its cache, with every number it was found from.

    `cliff_bytes` is the bytes written before the first sustained drop (the write-cache size)
    and `cliff_segment` the index in `segments` of the first segment after it; both None, with
    `reason`, when there is no drop of at least `criteria.min_drop_pct`. Then the in-cache and
    post-cache speeds are None too: the whole write ran at one level, and whether that was a
    cache larger than the write or no cache at all cannot be told.
    `post_cache_bw_bytes_per_s` is the median of the segment right after the cliff,
    `floor_bw_bytes_per_s` the lowest median of any segment after it (a folding phase), and
    `sustained_bw_bytes_per_s` the mean of every point after it: with fio's equal log
    intervals, the average speed of a long write once the cache is full.
    `drop_pct` is 100 × (in-cache − post-cache) / in-cache. `short` is set (with `reason`)
    when the series was too short to be cut into two levels: then nothing was searched, and
    the write says nothing about a cache, not even that it has none.
    """

    series: tuple[tuple[float, float], ...]
    criteria: CliffCriteria
    segments: tuple[BandwidthSegment, ...]
    cliff_segment: int | None
    cliff_bytes: float | None
    in_cache_bw_bytes_per_s: float | None
    post_cache_bw_bytes_per_s: float | None
    floor_bw_bytes_per_s: float | None
    sustained_bw_bytes_per_s: float | None
    drop_pct: float | None
    reason: str | None
    short: ShortSeries | None = None

    @property
    def total_bytes(self) -> float | None:
        return self.series[-1][0] if self.series else None


@dataclass(frozen=True, slots=True)
class CacheRecovery:
    """How much fast cache came back after an idle pause.

    `fraction` = `recovered_bytes` / `before_cliff_bytes`: the probe write's cache size against
    the first write's (it can exceed 1: dynamic caches vary). When the probe never left the
    cache, only a lower bound is known: `fraction` is None and `at_least_fraction` is the
    probe's whole size against the first cache. When the probe ran at post-cache speed from its
    start, nothing came back: `fraction` is 0.0. Otherwise None with `reason`.
    """

    before_cliff_bytes: float | None
    probe_cliff_bytes: float | None
    probe_total_bytes: float | None
    recovered_bytes: float | None
    fraction: float | None
    at_least_fraction: float | None
    notes: tuple[str, ...]
    reason: str | None


def detect_cache_cliff(
    series: Sequence[tuple[float, float]],
    *,
    min_drop_pct: float = 30.0,
    min_segment_bytes: float | None = None,
    min_segment_points: int | None = None,
    penalty_factor: float = 2.0,
    max_blocks: int = 500,
) -> CacheCliffVerdict:
    """Find the write-cache cliff and any further steps in a sustained write's bandwidth.

    Raises ValueError for a series that cannot come from a write (bytes going down, negative
    or non-finite values) and for nonsensical thresholds.
    """
    points = tuple((float(b), float(bw)) for b, bw in series)
    _check_series(points)
    if not 0 < min_drop_pct < 100:
        raise ValueError(f"min_drop_pct must be between 0 and 100, not {min_drop_pct}")
    if min_segment_bytes is not None and not min_segment_bytes > 0:
        raise ValueError(f"min_segment_bytes must be positive, not {min_segment_bytes}")
    if min_segment_points is not None and min_segment_points < 1:
        raise ValueError(f"min_segment_points must be at least 1, not {min_segment_points}")
    if not penalty_factor > 0:
        raise ValueError(f"penalty_factor must be positive, not {penalty_factor}")
    if max_blocks < 2:
        raise ValueError(f"max_blocks must be at least 2, not {max_blocks}")

    n = len(points)
    min_points = (
        min_segment_points
        if min_segment_points is not None
        else max(MIN_SEGMENT_POINTS, math.ceil(MIN_SEGMENT_FRACTION * n))
    )
    block_points = max(1, math.ceil(n / max_blocks))
    criteria = CliffCriteria(
        min_drop_pct, min_points, min_segment_bytes, penalty_factor, max_blocks, block_points,
        None, None,
    )  # fmt: skip
    bw = [p[1] for p in points]
    # positions[i]: bytes written before point i; positions[n]: the total
    positions = [0.0] + [p[0] for p in points]
    total = positions[-1]

    short = _too_short(n, total, min_points, min_segment_bytes)
    if short is not None:
        segments = _segments(bw, positions, [(0, n)]) if n else ()
        return replace(
            _verdict(points, criteria, segments, short),
            short=ShortSeries(
                n,
                2 * min_points,
                total,
                None if min_segment_bytes is None else 2 * min_segment_bytes,
            ),
        )

    # 2. blocks
    block_count = math.ceil(n / block_points)
    starts = [k * n // block_count for k in range(block_count + 1)]
    values = [statistics.median(bw[starts[k] : starts[k + 1]]) for k in range(block_count)]
    # 3. noise
    level = abs(statistics.median(values))
    sigma = max(robust_sigma(values) or 0.0, NOISE_FLOOR_FRACTION * level)
    penalty = penalty_factor * sigma * math.log(max(block_count, 2))
    criteria = replace(criteria, noise_bw_bytes_per_s=robust_sigma(bw), penalty=penalty)
    # 4. segmentation (on blocks)
    boundaries = optimal_partition_l1(
        values,
        penalty=penalty,
        min_size=max(1, min_points // block_points),
        positions=[positions[s] for s in starts],
        min_span=min_segment_bytes or 0.0,
    )
    cuts = [starts[k] for k in boundaries]
    spans = list(pairwise([0, *cuts, n]))
    # 5. merging, 6. refinement, and merging again if a moved boundary changed a median
    spans = _merge(bw, positions, spans, min_points, min_segment_bytes, min_drop_pct)
    spans = _refine(bw, spans, max(block_points, min_points))
    spans = _merge(bw, positions, spans, min_points, min_segment_bytes, min_drop_pct)
    return _verdict(points, criteria, _segments(bw, positions, spans), None)


def recovery_fraction(before: CacheCliffVerdict, probe: CacheCliffVerdict) -> CacheRecovery:
    """How much of the first write's fast cache the probe write found after an idle pause."""
    probe_total = probe.total_bytes
    if before.cliff_bytes is None or before.in_cache_bw_bytes_per_s is None:
        return CacheRecovery(
            before.cliff_bytes,
            probe.cliff_bytes,
            probe_total,
            None,
            None,
            None,
            (),
            f"the first write showed no cache cliff ({before.reason}): nothing to compare with",
        )
    fast = before.in_cache_bw_bytes_per_s
    slow = before.post_cache_bw_bytes_per_s
    threshold = before.criteria.min_drop_pct
    if before.cliff_bytes <= 0:
        return CacheRecovery(
            before.cliff_bytes, probe.cliff_bytes, probe_total, None, None, None, (),
            "the first write's cache size is 0 bytes: no fraction of it can be formed",
        )  # fmt: skip
    if probe.cliff_bytes is not None and probe.in_cache_bw_bytes_per_s is not None:
        notes = []
        if _diff_pct(probe.in_cache_bw_bytes_per_s, fast) >= threshold:
            notes.append(
                f"the probe's fast phase ran at {_mbps(probe.in_cache_bw_bytes_per_s)}, "
                f"the first write's at {_mbps(fast)}: the probe may have found a different cache"
            )
        return CacheRecovery(
            before.cliff_bytes,
            probe.cliff_bytes,
            probe_total,
            probe.cliff_bytes,
            probe.cliff_bytes / before.cliff_bytes,
            None,
            tuple(notes),
            None,
        )
    if not probe.segments or probe_total is None:
        return CacheRecovery(
            before.cliff_bytes, None, probe_total, None, None, None, (),
            "the probe write has no points",
        )  # fmt: skip
    level = statistics.median(s.median_bw_bytes_per_s for s in probe.segments)
    near_fast = _diff_pct(level, fast) < threshold
    near_slow = slow is not None and _diff_pct(level, slow) < threshold
    if near_slow and not near_fast:
        return CacheRecovery(
            before.cliff_bytes,
            None,
            probe_total,
            0.0,
            0.0,
            None,
            (f"the probe ran at post-cache speed ({_mbps(level)}) from its start",),
            None,
        )
    if near_fast and not near_slow:
        return CacheRecovery(
            before.cliff_bytes,
            None,
            probe_total,
            None,
            None,
            probe_total / before.cliff_bytes,
            (),
            f"the probe stayed at in-cache speed ({_mbps(level)}) for all of its "
            f"{format_gb(probe_total)}: at least {100 * probe_total / before.cliff_bytes:.0f} % "
            "of the cache came back; probe with more data to see all of it",
        )
    return CacheRecovery(
        before.cliff_bytes,
        None,
        probe_total,
        None,
        None,
        None,
        (),
        f"the probe ran at {_mbps(level)} without a cliff, neither the first write's in-cache "
        f"{_mbps(fast)} nor its post-cache "
        f"{_mbps(slow) if slow is not None else 'speed'}: cannot tell how much came back",
    )


def optimal_partition_l1(
    values: Sequence[float],
    *,
    penalty: float,
    min_size: int = 1,
    positions: Sequence[float] | None = None,
    min_span: float = 0.0,
) -> tuple[int, ...]:
    """The segmentation of `values` minimising Σ L1 cost + `penalty` × (number of segments).

    Returns the indices where a new segment starts (0 excluded), ascending. Every segment has
    at least `min_size` values and, when `positions` (len(values) + 1 boundary positions, e.g.
    bytes before each value and the total) is given, spans at least `min_span` of them.
    Exact dynamic programming over all segmentations, O(n² log n); ties prefer the longer last
    segment. When no segmentation meets the constraints, the whole series is one segment.
    """
    n = len(values)
    if positions is not None and len(positions) != n + 1:
        raise ValueError(f"positions needs {n + 1} entries, not {len(positions)}")
    if n < 2 * min_size:
        return ()
    rows = [l1_costs(values[s:]) for s in range(n)]  # cost of values[s:t] is rows[s][t - s - 1]
    best = [math.inf] * (n + 1)
    best[0] = 0.0
    previous = [0] * (n + 1)
    for t in range(min_size, n + 1):
        for s in range(t - min_size + 1):
            if best[s] == math.inf:
                continue
            if positions is not None and positions[t] - positions[s] < min_span:
                continue
            total = best[s] + rows[s][t - s - 1] + penalty
            if total < best[t]:
                best[t], previous[t] = total, s
    if best[n] == math.inf:
        return ()
    cuts = []
    t = previous[n]
    while t > 0:
        cuts.append(t)
        t = previous[t]
    return tuple(reversed(cuts))


def l1_costs(values: Sequence[float]) -> list[float]:
    """`costs[k]` = min over m of Σ |v − m| for the first k + 1 values (m: their median).

    A running median in two heaps with their sums: the smaller half (a max-heap) holds the
    median on top, and Σ|v − m| = Σ larger half − Σ smaller half + m × (|smaller| − |larger|).
    """
    lower: list[float] = []  # negated: a max-heap of the smaller half (one more when odd)
    upper: list[float] = []
    sum_lower = sum_upper = 0.0
    costs = []
    for x in values:
        if not lower or x <= -lower[0]:
            heappush(lower, -x)
            sum_lower += x
        else:
            heappush(upper, x)
            sum_upper += x
        if len(lower) > len(upper) + 1:
            moved = -heappop(lower)
            sum_lower -= moved
            heappush(upper, moved)
            sum_upper += moved
        elif len(upper) > len(lower):
            moved = heappop(upper)
            sum_upper -= moved
            heappush(lower, -moved)
            sum_lower += moved
        median = -lower[0]
        cost = sum_upper - sum_lower + median * (len(lower) - len(upper))
        costs.append(max(cost, 0.0))
    return costs


def robust_sigma(values: Sequence[float]) -> float | None:
    """1.4826 × median |first difference| / √2: σ of the noise, blind to a few steps and spikes.

    None for fewer than two values.
    """
    if len(values) < 2:
        return None
    return MAD_TO_SIGMA * statistics.median(abs(b - a) for a, b in pairwise(values)) / math.sqrt(2)


def _check_series(points: Sequence[tuple[float, float]]) -> None:
    previous = 0.0
    for i, (written, bw) in enumerate(points):
        if not (math.isfinite(written) and math.isfinite(bw)):
            raise ValueError(f"point {i} is not finite: ({written}, {bw})")
        if bw < 0:
            raise ValueError(f"point {i} has negative bandwidth {bw}")
        if written < previous:
            raise ValueError(
                f"bytes written must not decrease: point {i} has {written} after {previous}"
            )
        previous = written


def _too_short(
    n: int, total: float, min_points: int, min_segment_bytes: float | None
) -> str | None:
    if n < 2 * min_points:
        return (
            f"series too short: {n} point{'' if n == 1 else 's'}, and telling two levels apart "
            f"needs at least {2 * min_points} (two segments of {min_points})"
        )
    if min_segment_bytes is not None and total < 2 * min_segment_bytes:
        return (
            f"series too short: {format_gb(total)} written, and telling two levels apart "
            f"needs at least {format_gb(2 * min_segment_bytes)} (two segments of "
            f"{format_gb(min_segment_bytes)})"
        )
    return None


_Span = tuple[int, int]


def _median(bw: Sequence[float], span: _Span) -> float:
    return statistics.median(bw[span[0] : span[1]])


def _diff_pct(a: float, b: float) -> float:
    """|a − b| as a % of the larger: the drop from the larger to the smaller."""
    high = max(a, b)
    return 0.0 if high <= 0 else 100.0 * abs(a - b) / high


def _merge(
    bw: Sequence[float],
    positions: Sequence[float],
    spans: list[_Span],
    min_points: int,
    min_segment_bytes: float | None,
    min_drop_pct: float,
) -> list[_Span]:
    spans = list(spans)
    medians: dict[_Span, float] = {}

    def median(span: _Span) -> float:
        if span not in medians:
            medians[span] = _median(bw, span)
        return medians[span]

    def is_short(span: _Span) -> bool:
        if span[1] - span[0] < min_points:
            return True
        return (
            min_segment_bytes is not None
            and positions[span[1]] - positions[span[0]] < min_segment_bytes
        )

    while len(spans) > 1:
        short = [i for i, span in enumerate(spans) if is_short(span)]
        if not short:
            break
        i = min(short, key=lambda k: (spans[k][1] - spans[k][0], k))
        here = median(spans[i])
        neighbours = [j for j in (i - 1, i + 1) if 0 <= j < len(spans)]
        j = min(neighbours, key=lambda k: (_diff_pct(here, median(spans[k])), k))
        a, b = sorted((i, j))
        spans[a : b + 1] = [(spans[a][0], spans[b][1])]
    while len(spans) > 1:
        diffs = [_diff_pct(median(x), median(y)) for x, y in pairwise(spans)]
        i = min(range(len(diffs)), key=lambda k: (diffs[k], k))
        if diffs[i] >= min_drop_pct:
            break
        spans[i : i + 2] = [(spans[i][0], spans[i + 1][1])]
    return spans


def _refine(bw: Sequence[float], spans: list[_Span], reach: int) -> list[_Span]:
    """Move each boundary within `reach` points to where it best splits the two medians."""
    spans = list(spans)
    for i in range(len(spans) - 1):
        (a0, cut), (_, b1) = spans[i], spans[i + 1]
        left, right = _median(bw, spans[i]), _median(bw, spans[i + 1])
        lo, hi = max(a0 + 1, cut - reach), min(b1 - 1, cut + reach)
        if lo >= hi:
            continue
        cost = sum(abs(x - right) for x in bw[lo:hi])  # cut at lo: all of [lo, hi) on the right
        best_cost, best_cut = cost, lo
        for p in range(lo, hi):
            cost += abs(bw[p] - left) - abs(bw[p] - right)
            if cost < best_cost:
                best_cost, best_cut = cost, p + 1
        spans[i] = (a0, best_cut)
        spans[i + 1] = (best_cut, b1)
    return spans


def _segments(
    bw: Sequence[float], positions: Sequence[float], spans: Sequence[_Span]
) -> tuple[BandwidthSegment, ...]:
    segments: list[BandwidthSegment] = []
    for k, (start, end) in enumerate(spans):
        values = bw[start:end]
        median = statistics.median(values)
        spread = (
            MAD_TO_SIGMA * statistics.median(abs(x - median) for x in values)
            if len(values) > 1
            else None
        )
        previous = segments[-1].median_bw_bytes_per_s if segments else None
        change = (
            None if previous is None or previous == 0 else 100.0 * (median - previous) / previous
        )
        step = None if k == 0 else _is_step(bw, positions, spans[k - 1], spans[k])
        segments.append(
            BandwidthSegment(
                start, end, positions[start], positions[end], median, spread, change, step
            )
        )
    return tuple(segments)


def _is_step(bw: Sequence[float], positions: Sequence[float], left: _Span, right: _Span) -> bool:
    """Whether two adjacent segments fit a step better than one straight line (L1 costs).

    The line is Tukey's resistant line against bytes written (through the medians of the first
    and last thirds, intercept the median residual), so a gradual decline (a drive slowing
    steadily, a disk's outer-to-inner tracks) is not taken for a cliff.
    """
    start, cut, end = left[0], left[1], right[1]
    if end - start < 6:
        return True
    ys = bw[start:end]
    xs = positions[start + 1 : end + 1]  # bytes at the end of each point's interval
    m_left, m_right = _median(bw, left), _median(bw, right)
    step_cost = sum(abs(y - m_left) for y in bw[start:cut]) + sum(
        abs(y - m_right) for y in bw[cut:end]
    )
    third = len(ys) // 3
    x0, y0 = statistics.median(xs[:third]), statistics.median(ys[:third])
    x1, y1 = statistics.median(xs[-third:]), statistics.median(ys[-third:])
    slope = (y1 - y0) / (x1 - x0) if x1 > x0 else 0.0
    intercept = statistics.median(y - slope * x for x, y in zip(xs, ys, strict=True))
    line_cost = sum(abs(y - intercept - slope * x) for x, y in zip(xs, ys, strict=True))
    return step_cost < line_cost


def _verdict(
    points: tuple[tuple[float, float], ...],
    criteria: CliffCriteria,
    segments: tuple[BandwidthSegment, ...],
    short: str | None,
) -> CacheCliffVerdict:
    def none(reason: str) -> CacheCliffVerdict:
        return CacheCliffVerdict(
            points, criteria, segments, None, None, None, None, None, None, None, reason
        )

    if short is not None:
        return none(short)
    threshold = criteria.min_drop_pct
    gradual: list[tuple[BandwidthSegment, BandwidthSegment]] = []
    for k, (before, after) in enumerate(pairwise(segments), start=1):
        fast, slow = before.median_bw_bytes_per_s, after.median_bw_bytes_per_s
        if not (slow < fast and _diff_pct(fast, slow) >= threshold):
            continue
        if not after.step:
            gradual.append((before, after))
            continue
        later = [p[1] for p in points[after.start_index :]]
        return CacheCliffVerdict(
            points,
            criteria,
            segments,
            k,
            before.end_bytes,
            fast,
            slow,
            min(s.median_bw_bytes_per_s for s in segments[k:]),
            statistics.fmean(later),
            _diff_pct(fast, slow),
            None,
        )
    written = format_gb(points[-1][0])
    head = f"no sustained drop of ≥ {threshold:g} % found in {written} written"
    if statistics.median(p[1] for p in points) <= 0:
        return none(f"{head}: the write made no progress (median bandwidth 0 MB/s)")
    if gradual:
        before, after = gradual[0]
        return none(
            f"{head}: the bandwidth fell gradually from {_mbps(before.median_bw_bytes_per_s)} "
            f"to {_mbps(after.median_bw_bytes_per_s)} (a straight line fits it as well as a "
            "step), which is not a cache cliff"
        )
    if len(segments) > 1:
        steps = " → ".join(f"{_mbps(s.median_bw_bytes_per_s)}" for s in segments)
        return none(f"{head}: the bandwidth only rose ({steps})")
    return none(
        f"{head} at {_mbps(segments[0].median_bw_bytes_per_s)}: the cache, if any, is larger "
        "than the write"
    )


def _mbps(bw_bytes_per_s: float) -> str:
    return format_mb_per_s(bw_bytes_per_s, "MB/s", digits=0)
