"""Thermal throttling read from one pass's per-second series of temperature and throughput.

**Input.** One point per second of sustained work: the drive's composite temperature (°C, as
the drive reports it, usually whole degrees) and the pass's throughput (bytes/s).

**Method.**

1. *Two levels.* The throughput is smoothed by a running median of `SMOOTH_S` seconds (a dip
   or spike of two seconds vanishes) and split into two levels by 1-D k-means.
2. *Noise.* σ is the larger of 1.4826 × median |first difference| / √2 (the cache cliff's
   robust σ, analysis/cliff.py: a few steps do not move it) and 1.4826 × the median absolute
   deviation of each second from its own level (a slow wander of correlated noise, which first
   differences do not see, is not a step either). When the levels differ by less than
   `STEP_SIGMAS` σ there is no throttling: the series is flat within its own noise. A throttle
   smaller than that is not told from noise (a fixed percentage is never used: a noisy pass
   needs a larger step, a steady one a smaller).
3. *Episodes.* Each second is throttled or not by the midpoint of the two levels; runs shorter
   than `MIN_RUN_S` seconds are joined to the run before them. An episode is a run of throttled
   seconds: its onset the first throttled second, its exit the first unthrottled one after.
4. *Where exactly, and how sure.* Each boundary is moved to the second that best splits the raw
   throughput around it into two means (least squares, within `WINDOW_S` seconds and never past
   the neighbouring boundaries). A moving-block bootstrap (blocks of ∛m seconds) redraws the
   window from its two means and its resampled residuals `DRAWS` times and finds the split
   again; the 2.5th and 97.5th percentiles of the splits, widened by a second on each side (a
   change inside a second leaves that second between the two levels), bound the boundary (seed
   taken from the series: the same series gives the same interval).
5. *Temperatures.* A drive throttles when its reading reaches a threshold T: the reading just
   before onset is below T, the one at onset at or above it, so T ∈ [reading before + q,
   reading at onset], q the readings' resolution (1 °C for whole degrees). Over every second
   the bootstrap allows for the boundary this gives the onset interval; the exit threshold E
   (throttling ends once the reading is below E) is bracketed the same way, [reading at exit + q,
   reading before exit]. An episode is *explained by temperature* only when no second before its
   onset ran unthrottled at a reading at or above the onset interval's top: a fall that a
   temperature threshold cannot explain (a write cache running out) is reported but not judged
   as throttling.
6. *Throttled throughput.* The throttled seconds against the unthrottled ones (the uncertain
   seconds around each boundary left out), as a ratio with Welch's interval on the logs of
   batch means (analysis/intervals.py). Time throttled: the episodes' seconds, bounded by the
   boundaries' intervals, and its share of the series.
"""

import bisect
import json
import math
import statistics
import zlib
from collections.abc import Sequence
from itertools import pairwise

import numpy as np
import numpy.typing as npt

from ssdlab.analysis.cliff import MAD_TO_SIGMA, robust_sigma
from ssdlab.analysis.intervals import (
    LEVEL,
    Basis,
    Interval,
    ratio_interval,
    sample_of_seconds,
)
from ssdlab.analysis.throttling import Boundary, Episode, ThermalPoint, ThermalSeries
from ssdlab.model.result import SeriesPoint

SMOOTH_S = 5
STEP_SIGMAS = 4.0
MIN_RUN_S = 5
WINDOW_S = 30
DRAWS = 400
MIN_POINTS = 30


def thermal_points(
    series: Sequence[SeriesPoint],
    readings: Sequence[tuple[float, float]],
    tolerance_s: float = 1.0,
) -> list[ThermalPoint]:
    """One point per interval of a pass's throughput series (read and write summed, as the drive
    sees them), each with the temperature reading nearest in time within `tolerance_s`
    (None when there is none). `readings`: (elapsed seconds from the pass's start, °C)."""
    totals: dict[float, float] = {}
    for point in series:
        if point.bw_bytes_per_s is not None:
            key = round(point.elapsed_s, 3)
            totals[key] = totals.get(key, 0.0) + point.bw_bytes_per_s
    ordered = sorted(readings)
    times = [t for t, _ in ordered]
    points = []
    for elapsed, bw in sorted(totals.items()):
        i = bisect.bisect_left(times, elapsed)
        near = [j for j in (i - 1, i) if 0 <= j < len(times)]
        best = min(near, key=lambda j: abs(times[j] - elapsed), default=None)
        temperature = (
            ordered[best][1]
            if best is not None and abs(times[best] - elapsed) <= tolerance_s
            else None
        )
        points.append(ThermalPoint(elapsed, temperature, bw))
    return points


def _noise(
    bw: npt.NDArray[np.float64], smooth: npt.NDArray[np.float64], low: float, high: float
) -> float:
    """σ of the throughput's noise: the larger of the robust σ of first differences and the
    robust spread of each second around its own level (1.4826 × MAD). The first alone misses a
    slow wander (noise correlated from second to second), which is not a step either; floored
    at 0.1 % of the median so that a noise-free series has a scale."""
    by_differences = robust_sigma(bw.tolist()) or 0.0
    level = np.where(smooth < (low + high) / 2, low, high)
    residuals = bw - level
    spread = MAD_TO_SIGMA * float(np.median(np.abs(residuals - np.median(residuals))))
    return max(by_differences, spread, 1e-3 * float(np.median(bw)))


def _running_median(values: npt.NDArray[np.float64], width: int) -> npt.NDArray[np.float64]:
    half = width // 2
    return np.array(
        [np.median(values[max(0, i - half) : i + half + 1]) for i in range(len(values))]
    )


def _two_levels(values: npt.NDArray[np.float64]) -> tuple[float, float]:
    """1-D k-means with two centres, started at the extremes: (low, high)."""
    low, high = float(values.min()), float(values.max())
    for _ in range(50):
        cut = (low + high) / 2
        below, above = values[values < cut], values[values >= cut]
        if len(below) == 0 or len(above) == 0:
            break
        new = float(below.mean()), float(above.mean())
        if new == (low, high):
            break
        low, high = new
    return low, high


def _runs(labels: list[bool]) -> list[tuple[int, int, bool]]:
    """(start, end, label) of each run of equal labels."""
    runs: list[tuple[int, int, bool]] = []
    start = 0
    for i in range(1, len(labels) + 1):
        if i == len(labels) or labels[i] != labels[start]:
            runs.append((start, i, labels[start]))
            start = i
    return runs


def _joined(labels: list[bool]) -> list[tuple[int, int, bool]]:
    """Runs shorter than MIN_RUN_S joined to the run before them (the first to the next)."""
    runs = _runs(labels)
    while len(runs) > 1:
        short = [i for i, (s, e, _) in enumerate(runs) if e - s < MIN_RUN_S]
        if not short:
            break
        i = min(short, key=lambda k: runs[k][1] - runs[k][0])
        neighbour = i - 1 if i > 0 else 1
        label = runs[neighbour][2]
        relabelled = list(labels)
        for j in range(runs[i][0], runs[i][1]):
            relabelled[j] = label
        labels = relabelled
        runs = _runs(labels)
    return runs


def _seed(bw: npt.NDArray[np.float64]) -> int:
    return zlib.crc32(json.dumps([round(b, 1) for b in bw.tolist()]).encode())


def _best_splits(draws: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    """Per row, the split k (1 ≤ k < m: k points before) with the least squared error."""
    m = draws.shape[1]
    cum = np.cumsum(draws, axis=1)
    cum2 = np.cumsum(draws * draws, axis=1)
    k = np.arange(1, m)
    left_sum, left_sq = cum[:, :-1], cum2[:, :-1]
    right_sum = cum[:, -1:] - left_sum
    right_sq = cum2[:, -1:] - left_sq
    sse = left_sq - left_sum**2 / k + right_sq - right_sum**2 / (m - k)
    best: npt.NDArray[np.int64] = k[np.argmin(sse, axis=1)]
    return best


def _locate(
    bw: npt.NDArray[np.float64], guess: int, lower: int, upper: int, seed: int
) -> tuple[int, int, int]:
    """The boundary near `guess` (first second of the new level) within [lower, upper): its
    best split and the bootstrap's 95 % bounds, as indices into `bw`."""
    start = max(lower, guess - WINDOW_S)
    stop = min(upper, guess + WINDOW_S)
    window = bw[start:stop]
    if len(window) < 2:
        return guess, guess, guess
    k = int(_best_splits(window[None, :])[0])
    fitted = np.concatenate(
        [np.full(k, window[:k].mean()), np.full(len(window) - k, window[k:].mean())]
    )
    residuals = window - fitted
    n = len(window)
    length = max(1, round(n ** (1 / 3)))
    blocks = math.ceil(n / length)
    generator = np.random.default_rng(seed + guess)
    starts = generator.integers(0, n, size=(DRAWS, blocks))
    index = (starts[:, :, None] + np.arange(length)) % n
    drawn = fitted + residuals[index.reshape(DRAWS, blocks * length)[:, :n]]
    splits = _best_splits(drawn)
    low, high = np.percentile(splits, [100 * (1 - LEVEL) / 2, 100 * (1 + LEVEL) / 2])
    # a change inside a second leaves that second between the two levels: either neighbour
    # of the split may be the first second of the new level
    first = max(lower + 1, start + math.floor(low) - 1)
    last = min(upper - 1, start + math.ceil(high) + 1)
    return start + k, first, last


def _resolution(temps: Sequence[float | None]) -> float:
    """The smallest step between distinct readings (1 °C when there is none to see)."""
    distinct = sorted({t for t in temps if t is not None})
    steps = [b - a for a, b in pairwise(distinct) if b - a > 1e-9]
    return min(min(steps), 1.0) if steps else 1.0


def _threshold(
    temps: Sequence[float | None], low: int, high: int, rising: bool, q: float
) -> Interval | None:
    """The threshold a boundary anywhere in [low, high] brackets: rising (onset)
    [before + q, at], falling (exit) [at + q, before]; None without readings or when the
    readings moved the wrong way for a threshold."""
    lows: list[float] = []
    highs: list[float] = []
    for k in range(max(1, low), min(len(temps) - 1, high) + 1):
        before, at = temps[k - 1], temps[k]
        if before is None or at is None:
            continue
        bottom, top = ((before if rising else at) + q, at if rising else before)
        if bottom <= top + 1e-9:
            lows.append(bottom)
            highs.append(top)
    if not lows:
        return None
    return Interval(min(lows), max(highs), LEVEL, Basis.BLOCK_BOOTSTRAP.value, high - low + 1)


def _boundary(
    bw: npt.NDArray[np.float64],
    points: Sequence[ThermalPoint],
    guess: int,
    bounds: tuple[int, int],
    rising: bool,
    q: float,
    seed: int,
) -> Boundary:
    index, low, high = _locate(bw, guess, bounds[0], bounds[1], seed)
    temps = [p.temperature_c for p in points]
    return Boundary(
        index,
        low,
        high,
        points[index].elapsed_s,
        temps[index],
        _threshold(temps, low, high, rising, q),
    )


def _explained(points: Sequence[ThermalPoint], onset: Boundary, settled: list[bool]) -> str:
    """Why a temperature threshold cannot explain this onset ('' when it can): a second before
    it ran unthrottled (`settled`: away from every boundary's interval) at a reading at or
    above the onset's interval."""
    if onset.threshold is None or onset.threshold.high is None:
        return "no temperature bracket at the onset (readings missing or falling)"
    top = onset.threshold.high
    for i in range(onset.index_low):
        t = points[i].temperature_c
        if settled[i] and t is not None and t >= top:
            return (
                f"the drive ran unthrottled at {t:g} °C before (second {i}), at or above the "
                f"onset's {top:g} °C: not a temperature threshold"
            )
    return ""


def _no_throttle(points: Sequence[ThermalPoint], sigma: float | None, reason: str) -> ThermalSeries:
    bw = [p.bw_bytes_per_s for p in points]
    temps = [p.temperature_c for p in points if p.temperature_c is not None]
    return ThermalSeries(
        len(points),
        _duration(points),
        sigma,
        statistics.fmean(bw) if bw else None,
        None,
        None,
        None,
        (),
        0.0,
        (0.0, 0.0),
        0.0,
        max(temps) if temps else None,
        len(points) < MIN_POINTS,
        reason,
    )


def _duration(points: Sequence[ThermalPoint]) -> float:
    if len(points) < 2:
        return float(len(points))
    step = statistics.median(b.elapsed_s - a.elapsed_s for a, b in pairwise(points))
    return points[-1].elapsed_s - points[0].elapsed_s + step


def find_throttling(points: Sequence[ThermalPoint]) -> ThermalSeries:
    """Throttling episodes, their onset and exit temperatures, the throttled throughput and the
    time throttled, from one pass's per-second series (module text)."""
    if len(points) < MIN_POINTS:
        return _no_throttle(
            points, None, f"{len(points)} seconds: too short to tell (needs {MIN_POINTS})"
        )
    bw = np.array([p.bw_bytes_per_s for p in points], dtype=np.float64)
    smooth = _running_median(bw, SMOOTH_S)
    low, high = _two_levels(smooth)
    sigma = _noise(bw, smooth, low, high)
    if high - low < STEP_SIGMAS * sigma:
        return _no_throttle(
            points,
            sigma,
            f"flat within its noise: the two levels differ by {(high - low) / sigma:.1f} σ, "
            f"under {STEP_SIGMAS:g} σ",
        )
    runs = _joined([bool(v < (low + high) / 2) for v in smooth])
    throttled_runs = [r for r in runs if r[2]]
    if not throttled_runs:
        return _no_throttle(points, sigma, "no throttled stretch lasted 5 s")
    seed = _seed(bw)
    q = _resolution([p.temperature_c for p in points])
    edges = [r[0] for r in runs[1:]] + [len(points)]
    found: list[tuple[Boundary, Boundary | None]] = []
    for start, end, _ in throttled_runs:
        before = max([e for e in edges if e < start], default=0)
        after = min([e for e in edges if e > end], default=len(points))
        onset = (
            _boundary(bw, points, start, (before, end), True, q, seed)
            if start > 0
            else Boundary(0, 0, 0, points[0].elapsed_s, points[0].temperature_c, None)
        )
        exit_ = (
            _boundary(bw, points, end, (start, after), False, q, seed)
            if end < len(points)
            else None
        )
        found.append((onset, exit_))
    settled = _settled(len(points), found)
    episodes = []
    for onset, exit_ in found:
        stop = exit_.index if exit_ is not None else len(points)
        why = (
            _explained(points, onset, settled)
            if onset.index > 0
            else "throttled from the first second"
        )
        episodes.append(Episode(onset, exit_, float(stop - onset.index), not why, why))
    return _summary(points, bw, sigma, tuple(episodes))


def _settled(n: int, found: Sequence[tuple[Boundary, Boundary | None]]) -> list[bool]:
    """Per second, whether it ran unthrottled away from every boundary's interval."""
    settled = [True] * n
    for onset, exit_ in found:
        stop = exit_.index_high + 1 if exit_ is not None else n
        for i in range(max(0, onset.index_low - 1), stop):
            settled[i] = False
    return settled


def _summary(
    points: Sequence[ThermalPoint],
    bw: npt.NDArray[np.float64],
    sigma: float,
    episodes: tuple[Episode, ...],
) -> ThermalSeries:
    n = len(points)
    step = _duration(points) / n
    state = np.zeros(n, dtype=np.int8)  # 0 unthrottled, 1 throttled, 2 uncertain
    for e in episodes:
        stop = e.exit.index if e.exit is not None else n
        state[e.onset.index : stop] = 1
        state[max(0, e.onset.index_low - 1) : e.onset.index_high + 1] = 2
        if e.exit is not None:
            state[max(0, e.exit.index_low - 1) : e.exit.index_high + 1] = 2
    free = bw[state == 0].tolist()
    slow = bw[state == 1].tolist()
    ratio = None
    interval = None
    if free and slow:
        ratio = statistics.fmean(slow) / statistics.fmean(free)
        interval = ratio_interval(
            sample_of_seconds(statistics.fmean(slow), slow),
            sample_of_seconds(statistics.fmean(free), free),
        )
    seconds = sum(e.seconds for e in episodes) * step
    shortest = sum(
        max(0, (e.exit.index_low if e.exit else n) - e.onset.index_high) for e in episodes
    )
    longest = sum((e.exit.index_high if e.exit else n) - e.onset.index_low for e in episodes)
    temps = [p.temperature_c for p in points if p.temperature_c is not None]
    return ThermalSeries(
        n,
        _duration(points),
        sigma,
        statistics.fmean(free) if free else None,
        statistics.fmean(slow) if slow else None,
        ratio,
        interval,
        episodes,
        seconds,
        (shortest * step, longest * step),
        100.0 * seconds / _duration(points),
        max(temps) if temps else None,
        False,
        f"{len(episodes)} episode(s) of lower throughput",
    )
