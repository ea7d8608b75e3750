"""How sure a cache cliff is: 95 % intervals of its position and speeds, and whether there is one.

**One write** (`--repeat 1`, the default): the write's bandwidth log is its own evidence. The
points of the two segments around the cliff are split into the segment's median and what is
left (the residuals); a moving-block bootstrap (blocks of ∛n consecutive points, so the
correlation of neighbouring seconds is kept) draws each segment anew `DRAWS` times from its
median and its resampled residuals. In every draw the in-cache and post-cache speeds are the
segments' medians, the drop is their difference, and the cliff is put where the draw's points
are best split between the two levels (the L1 cost of the detection's refinement step, within
a minimum segment of where it was found). The 2.5th and 97.5th percentiles of the draws are the
95 % intervals; the seed is taken from the log and stored with them. This says how clearly the
log shows the cliff, not how the next write would differ.

**Several writes** (`--repeat N`): each write's cliff is found on its own, and the intervals
are Student's over the writes that showed one (analysis/intervals.py): how much the cache size
and speeds vary from write to write.

The verdict answers "is there a cache cliff?": *yes* when the 95 % interval of the drop is at
or past the detection's threshold (30 %) and every write showed one, *no* when no write showed
one and (one write) the largest drop its log holds is short of the threshold for sure,
*inconclusive* when the drop's interval straddles the threshold, some writes showed a cliff and
others none, or the write was too short to tell.
"""

import json
import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ssdlab.analysis.cliff import CacheCliffVerdict
from ssdlab.analysis.intervals import LEVEL, Basis, Interval, mean_interval, sample_of_repeats
from ssdlab.analysis.verdict_state import State, at_least

DRAWS = 1000


@dataclass(frozen=True, slots=True)
class WriteCliff:
    """One write's cliff: the bytes before it and the speeds around it (None: no cliff)."""

    cliff_bytes: float | None
    in_cache_bw_bytes_per_s: float | None
    post_cache_bw_bytes_per_s: float | None
    drop_pct: float | None


@dataclass(frozen=True, slots=True)
class CliffUncertainty:
    """Whether there is a cliff (`state`: yes, no, inconclusive), from `writes` writes of which
    `cliffs_found` showed one, and the 95 % intervals of the cache size, the speeds and the
    drop; `basis` is what they come from (repeats, the per-second log, or once: none), with
    the bootstrap's `draws` and `seed` when it made them."""

    state: str
    basis: str
    writes: int
    cliffs_found: int
    cliff_bytes_interval: Interval | None
    in_cache_interval: Interval | None
    post_cache_interval: Interval | None
    drop_pct_interval: Interval | None
    draws: int = 0
    seed: int | None = None
    per_write: tuple[WriteCliff, ...] = ()


def write_cliff(verdict: CacheCliffVerdict) -> WriteCliff:
    return WriteCliff(
        verdict.cliff_bytes,
        verdict.in_cache_bw_bytes_per_s,
        verdict.post_cache_bw_bytes_per_s,
        verdict.drop_pct,
    )


def cliff_uncertainty(verdicts: Sequence[CacheCliffVerdict]) -> CliffUncertainty:
    """The uncertainty of a cache run's cliff from its writes' verdicts (the first write first)."""
    if not verdicts:
        raise ValueError("a cliff's uncertainty needs at least one write")
    threshold = verdicts[0].criteria.min_drop_pct
    per_write = tuple(write_cliff(v) for v in verdicts)
    found = [v for v in verdicts if v.cliff_bytes is not None]
    short = any(v.short is not None for v in verdicts)
    if len(verdicts) >= 2:
        return _repeated(verdicts, found, threshold, short, per_write)
    verdict = verdicts[0]
    if verdict.short is not None:
        return CliffUncertainty(State.INCONCLUSIVE.value, Basis.ONCE.value, 1, 0, None, None,
                                None, None)  # fmt: skip
    if verdict.cliff_segment is None or not found:
        return no_cliff(verdict)
    return bootstrap_cliff(verdict)


def no_cliff(verdict: CacheCliffVerdict) -> CliffUncertainty:
    """A write in which no cliff was found: is the largest drop it shows short of the threshold
    for sure? The write is split where two levels fit it best (least squares, each part at
    least a minimum segment), and the drop between the parts' medians is bootstrapped as a
    cliff's is: *no* when its whole interval is short of the threshold, else *inconclusive*
    (a drop the detection did not take for a step: a slope, or one the data cannot place)."""
    bw = np.array([b for _, b in verdict.series], dtype=float)
    least = max(verdict.criteria.min_segment_points, 1)
    if len(bw) < 2 * least:
        return CliffUncertainty(State.NO.value, Basis.ONCE.value, 1, 0, None, None, None, None)
    sums = np.cumsum(bw)
    squares = np.cumsum(bw * bw)
    cuts = np.arange(least, len(bw) - least + 1)
    left_n, right_n = cuts, len(bw) - cuts
    left_sum, right_sum = sums[cuts - 1], sums[-1] - sums[cuts - 1]
    left_sq, right_sq = squares[cuts - 1], squares[-1] - squares[cuts - 1]
    cost = (left_sq - left_sum**2 / left_n) + (right_sq - right_sum**2 / right_n)
    cut = int(cuts[np.argmin(cost)])
    seed = _seed(bw)
    generator = np.random.default_rng(seed)
    left, right = bw[:cut], bw[cut:]
    fast = np.median(np.median(left) + _resampled(generator, left - np.median(left)), axis=1)
    slow = np.median(np.median(right) + _resampled(generator, right - np.median(right)), axis=1)
    drop = 100.0 * (fast - slow) / fast
    interval = _percentiles(drop, Basis.PER_SECOND.value, len(bw))
    measured = 100.0 * (float(np.median(left)) - float(np.median(right))) / float(np.median(left))
    state = at_least(measured, interval, verdict.criteria.min_drop_pct)
    return CliffUncertainty(
        (State.NO if state is State.NO else State.INCONCLUSIVE).value,
        Basis.PER_SECOND.value,
        1,
        0,
        None,
        None,
        None,
        interval,
        DRAWS,
        seed,
        (write_cliff(verdict),),
    )


def _seed(bw: npt.NDArray[np.float64]) -> int:
    """A seed taken from the log itself: the same write draws the same resamples."""
    return zlib.crc32(json.dumps([round(b, 1) for b in bw.tolist()]).encode())


def _repeated(
    verdicts: Sequence[CacheCliffVerdict],
    found: Sequence[CacheCliffVerdict],
    threshold: float,
    short: bool,
    per_write: tuple[WriteCliff, ...],
) -> CliffUncertainty:
    def interval(values: list[float]) -> Interval | None:
        return mean_interval(sample_of_repeats(values)) if len(values) >= 2 else None

    drops = [v.drop_pct for v in found if v.drop_pct is not None]
    drop_interval = interval(drops)
    if short or (found and len(found) < len(verdicts)):
        state = State.INCONCLUSIVE
    elif not found:
        state = State.NO
    else:
        state = at_least(sum(drops) / len(drops), drop_interval, threshold)
    return CliffUncertainty(
        state.value,
        Basis.REPEATS.value,
        len(verdicts),
        len(found),
        interval([v.cliff_bytes for v in found if v.cliff_bytes is not None]),
        interval([v.in_cache_bw_bytes_per_s for v in found if v.in_cache_bw_bytes_per_s]),
        interval([v.post_cache_bw_bytes_per_s for v in found if v.post_cache_bw_bytes_per_s]),
        drop_interval,
        per_write=per_write,
    )


def bootstrap_cliff(verdict: CacheCliffVerdict) -> CliffUncertainty:
    """The moving-block bootstrap of the two segments around a found cliff (module text)."""
    assert verdict.cliff_segment is not None
    before = verdict.segments[verdict.cliff_segment - 1]
    after = verdict.segments[verdict.cliff_segment]
    bw = np.array([b for _, b in verdict.series], dtype=float)
    positions = np.array([x for x, _ in verdict.series], dtype=float)
    left = bw[before.start_index : before.end_index]
    right = bw[after.start_index : after.end_index]
    seed = _seed(bw)
    generator = np.random.default_rng(seed)
    levels_left = np.median(left) + _resampled(generator, left - np.median(left))
    levels_right = np.median(right) + _resampled(generator, right - np.median(right))
    fast = np.median(levels_left, axis=1)
    slow = np.median(levels_right, axis=1)
    drop = 100.0 * (fast - slow) / fast
    both = np.concatenate([levels_left, levels_right], axis=1)
    window = max(verdict.criteria.block_points, verdict.criteria.min_segment_points)
    cut = _best_cut(both, fast, slow, len(left), window)
    cliff_bytes = positions[before.start_index + cut - 1]
    drop_interval = _percentiles(drop, Basis.PER_SECOND.value, len(bw))
    state = at_least(float(np.median(drop)), drop_interval, verdict.criteria.min_drop_pct)
    return CliffUncertainty(
        state.value,
        Basis.PER_SECOND.value,
        1,
        1,
        _percentiles(cliff_bytes, Basis.PER_SECOND.value, len(bw)),
        _percentiles(fast, Basis.PER_SECOND.value, len(left)),
        _percentiles(slow, Basis.PER_SECOND.value, len(right)),
        drop_interval,
        DRAWS,
        seed,
        (write_cliff(verdict),),
    )


def _resampled(
    generator: np.random.Generator, residuals: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """DRAWS rows of `residuals` resampled in circular blocks of ∛n points."""
    n = len(residuals)
    length = max(1, round(n ** (1 / 3)))
    blocks = math.ceil(n / length)
    starts = generator.integers(0, n, size=(DRAWS, blocks))
    index = (starts[:, :, None] + np.arange(length)) % n
    drawn: npt.NDArray[np.float64] = residuals[index.reshape(DRAWS, blocks * length)[:, :n]]
    return drawn


def _best_cut(
    draws: npt.NDArray[np.float64],
    fast: npt.NDArray[np.float64],
    slow: npt.NDArray[np.float64],
    found: int,
    window: int,
) -> npt.NDArray[np.int64]:
    """Per draw, the split (points before the cliff) within `window` of where it was found
    that fits the draw's two levels best (L1)."""
    n = draws.shape[1]
    cuts = np.arange(max(1, found - window), min(n - 1, found + window) + 1)
    to_fast = np.abs(draws - fast[:, None])
    to_slow = np.abs(draws - slow[:, None])
    # cost of a cut k: Σ_{i<k} |x − fast| + Σ_{i≥k} |x − slow|
    before = np.concatenate([np.zeros((len(draws), 1)), np.cumsum(to_fast, axis=1)], axis=1)
    after = np.concatenate([np.cumsum(to_slow[:, ::-1], axis=1)[:, ::-1],
                            np.zeros((len(draws), 1))], axis=1)  # fmt: skip
    cost = before[:, cuts] + after[:, cuts]
    best: npt.NDArray[np.int64] = cuts[np.argmin(cost, axis=1)]
    return best


def _percentiles(values: npt.NDArray[np.float64], basis: str, count: int) -> Interval:
    low, high = np.percentile(values, [100 * (1 - LEVEL) / 2, 100 * (1 + LEVEL) / 2])
    return Interval(float(low), float(high), LEVEL, basis, count)
