"""Intervals are computed, never assumed: targets whose truth is known (samples drawn with a seed
from a known distribution) are measured over and over, and the 95 % interval must hold the
truth in about 95 % of the repeats. Each test states the band it accepts over its repeats (the
binomial spread of 400 repeats at 95 % is ±2.2 points, so 90–99 % leaves room for the small
bias of each method but catches an interval that is too narrow or too wide), and that a
verdict says "inconclusive" where the data cannot decide."""

import math
from dataclasses import replace

import numpy as np
import pytest

from ssdlab.analysis.alignment import AlignResult, alignment_verdict
from ssdlab.analysis.cliff import detect_cache_cliff
from ssdlab.analysis.cliff_uncertainty import cliff_uncertainty
from ssdlab.analysis.intervals import (
    Interval,
    fieller_interval,
    mean_interval,
    ratio_interval,
    sample_of_repeats,
    sample_of_seconds,
    slope_interval,
)
from ssdlab.analysis.knee import KneeVerdict, SweepCell, select_knee
from ssdlab.analysis.knee_uncertainty import knee_uncertainty
from ssdlab.analysis.lifetime import (
    RatedEndurance,
    days_interval,
    project_life,
    rating_comparison,
)
from ssdlab.analysis.profiles.pts import window_interval
from ssdlab.analysis.verdict_state import State, at_least
from ssdlab.analysis.wear import WearSeries, fit_wear_series, least_squares

REPEATS = 400
BAND = (0.90, 0.99)
NO_DEVICE = {
    "partition_start_bytes": None,
    "logical_block_bytes": None,
    "physical_block_bytes": None,
}


def share(hits: list[bool]) -> float:
    return sum(hits) / len(hits)


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.mark.parametrize(("n", "cv"), [(3, 0.05), (5, 0.02), (2, 0.10)])
def test_the_mean_of_repeats(n: int, cv: float) -> None:
    hits = []
    for seed in range(REPEATS):
        values = rng(seed).normal(20_000, 20_000 * cv, n)
        interval = mean_interval(sample_of_repeats(list(values)))
        assert interval is not None
        hits.append(interval.holds(20_000))
    assert BAND[0] <= share(hits) <= BAND[1]


@pytest.mark.parametrize(("n", "cv", "truth"), [(3, 0.05, 1.5), (3, 0.30, 1.5), (2, 0.05, 0.8)])
def test_a_ratio_of_two_means(n: int, cv: float, truth: float) -> None:
    """The interval of a ratio of two independently measured means (Welch's on the logs)."""
    hits = []
    for seed in range(REPEATS):
        r = rng(seed)
        a = r.normal(10_000 * truth, 10_000 * truth * cv, n)
        b = r.normal(10_000, 10_000 * cv, n)
        interval = ratio_interval(sample_of_repeats(list(a)), sample_of_repeats(list(b)))
        assert interval is not None
        hits.append(interval.holds(truth))
    assert BAND[0] <= share(hits) <= BAND[1]


def test_a_noisy_denominator_widens_a_ratio_but_never_unbounds_it() -> None:
    """Three null-engine passes scattered by 50 % against a drive a thousand times slower: on
    the logarithms a fall beyond doubt; on the raw values (Fieller) the denominator may be zero,
    so the ratio has no upper end."""
    slow = sample_of_repeats([3_000.0, 3_100.0, 2_900.0])
    fast = sample_of_repeats([1e6, 2e6, 3e6])
    interval = ratio_interval(slow, fast)
    assert interval is not None
    assert interval.high is not None
    assert interval.high < 0.95
    raw = fieller_interval(slow, fast)
    assert raw is not None
    assert raw.high is None
    with_zero = sample_of_repeats([0.0, 10.0, 20.0])  # no logarithm: Fieller's, bounded here
    assert ratio_interval(with_zero, sample_of_repeats([100.0, 101.0, 99.0])) is not None


def ar1(r: np.random.Generator, points: int, phi: float, mean: float, sd: float) -> np.ndarray:
    """A per-second series whose neighbouring seconds are correlated (φ), around `mean`."""
    noise = r.normal(0, sd, points + 50)
    x = np.zeros(points + 50)
    for t in range(1, points + 50):
        x[t] = phi * x[t - 1] + noise[t]
    return mean + x[50:]


@pytest.mark.parametrize("points", [10, 60, 300])
def test_one_pass_from_batch_means_of_its_per_second_log(points: int) -> None:
    """Seconds that follow each other are correlated (φ = 0.3 here; at 0.6 the coverage falls
    to about 90 %): batch means of ⌊√m⌋ seconds hold the pass's true mean."""
    hits = []
    for seed in range(REPEATS):
        series = ar1(rng(seed), points, 0.3, 5_000, 150)
        interval = mean_interval(sample_of_seconds(float(series.mean()), list(series)))
        assert interval is not None
        hits.append(interval.holds(5_000))
    assert BAND[0] <= share(hits) <= BAND[1]


def test_a_percentile_bootstrap_of_three_repeats_is_too_narrow() -> None:
    """Why ssdlab does not bootstrap three repeats: ten distinct resampled means cover the truth
    in about three cases of four, far from 19 in 20."""
    hits = []
    for seed in range(200):
        r = rng(seed)
        values = r.normal(1_000, 50, 3)
        means = r.choice(values, (500, 3)).mean(axis=1)
        low, high = np.percentile(means, [2.5, 97.5])
        hits.append(bool(low <= 1_000 <= high))
    assert share(hits) < 0.85


def test_truth_on_the_threshold_is_inconclusive() -> None:
    """A drive whose misaligned writes are exactly 1.5× slower (the threshold): the verdict must
    not say yes or no, except in the few repeats whose interval misses the truth."""
    states = []
    for seed in range(REPEATS):
        r = rng(seed)
        aligned = r.normal(15_000, 300, 3)
        misaligned = r.normal(10_000, 200, 3)
        results = [AlignResult(4096, 4096, float(v)) for v in aligned] + [
            AlignResult(4096, 512, float(v)) for v in misaligned
        ]
        states.append(alignment_verdict(results, **NO_DEVICE).misaligned_state)
    assert share([s == "inconclusive" for s in states]) >= BAND[0]


@pytest.mark.parametrize(("truth", "expected"), [(3.0, State.YES), (1.0, State.NO)])
def test_truth_far_from_the_threshold_is_decided(truth: float, expected: State) -> None:
    states = []
    for seed in range(REPEATS):
        r = rng(seed)
        a = r.normal(10_000 * truth, 10_000 * truth * 0.03, 3)
        b = r.normal(10_000, 300, 3)
        sa, sb = sample_of_repeats(list(a)), sample_of_repeats(list(b))
        states.append(at_least(sa.mean / sb.mean, ratio_interval(sa, sb), 1.5))
    assert share([s is expected for s in states]) >= 0.97


# A sweep whose truth is known: IOPS saturate with outstanding I/O (o / (o + 8) of 500,000,
# each doubling of threads costing 4 %), p99 latency from Little's law × 2.5; every cell is
# measured twice with 3 % noise on its IOPS and 5 % on its latency.
THREADS, DEPTHS = (1, 2, 4), (1, 2, 4, 8, 16, 32)


def true_cell(threads: int, depth: int) -> SweepCell:
    outstanding = threads * depth
    iops = 500e3 * outstanding / (outstanding + 8) * (1 - 0.04 * math.log2(threads))
    return SweepCell(
        threads, depth, iops, iops * 4096, None, outstanding / iops * 2.5e9, None, None
    )


def measured_knee(seed: int, bound_ns: float | None) -> KneeVerdict:
    r = rng(seed)
    passes = {}
    for t in THREADS:
        for q in DEPTHS:
            truth = true_cell(t, q)
            assert truth.lat_p99_ns is not None
            passes[(t, q)] = [
                replace(
                    truth,
                    iops=truth.iops * math.exp(r.normal(0, 0.03)),
                    lat_p99_ns=truth.lat_p99_ns * math.exp(r.normal(0, 0.05)),
                )
                for _ in range(2)
            ]
    means = [
        replace(
            cells[0],
            iops=float(np.mean([c.iops for c in cells])),
            lat_p99_ns=float(np.mean([c.lat_p99_ns or 0.0 for c in cells])),
        )
        for cells in passes.values()
    ]
    return knee_uncertainty(select_knee(means, max_latency_ns=bound_ns), passes)


@pytest.mark.parametrize("bound_ns", [None, 150e3])
def test_the_knee_of_a_repeated_sweep_is_in_its_95_percent_set(bound_ns: float | None) -> None:
    """The true knee (chosen from the true cells) lies in the cells that hold 95 % of the draws
    in 90–99 %+ of 150 seeded sweeps; the set is a single cell often enough to say yes."""
    truth = select_knee(
        [true_cell(t, q) for t in THREADS for q in DEPTHS], max_latency_ns=bound_ns
    ).knee
    assert truth is not None
    verdicts = [measured_knee(seed, bound_ns) for seed in range(150)]
    assert share([truth.label in v.knee_set for v in verdicts]) >= BAND[0]
    assert share([v.state == "yes" for v in verdicts]) >= 0.2
    assert all(v.state in ("yes", "inconclusive") for v in verdicts)


def test_a_saturating_sweep_is_rarely_called_not_monotonic() -> None:
    """27 steps of the matrix are tested at once: a fall is called only when it passes 5 % and
    its interval lies below 1, so a matrix that truly rises is called not monotonic in under
    5 % of 150 seeded sweeps."""
    verdicts = [measured_knee(seed, None) for seed in range(150)]
    assert share([v.monotonic == "no" for v in verdicts]) <= 0.05


def write_log(
    seed: int, fast: float, slow: float, phi: float = 0.3
) -> tuple[list[tuple[float, float]], float]:
    """A sustained write's log of known truth: 40 seconds at `fast` B/s, 60 at `slow`, 8 %
    noise correlated from second to second (φ); and the bytes written before the drop."""
    r = rng(seed)
    noise = ar1(r, 100, phi, 0.0, 0.08)
    series, written, before = [], 0.0, 0.0
    for second in range(100):
        bw = (fast if second < 40 else slow) * (1 + noise[second])
        written += bw
        series.append((written, bw))
        if second == 39:
            before = written
    return series, before


def test_a_cliff_found_in_one_write_holds_its_position_and_speeds() -> None:
    """The moving-block bootstrap of one write's log: the position always (the drop is clear),
    the in-cache and post-cache speeds in 87–99 % of 200 seeded writes (a percentile interval
    of a median from 40 correlated seconds runs a little narrow; at φ = 0 it holds 94–95 %)."""
    position, fast, slow, states = [], [], [], []
    for seed in range(200):
        series, before = write_log(seed, 2e9, 5e8)
        uncertainty = cliff_uncertainty([detect_cache_cliff(series)])
        states.append(uncertainty.state)
        assert uncertainty.cliff_bytes_interval is not None
        assert uncertainty.in_cache_interval is not None
        assert uncertainty.post_cache_interval is not None
        position.append(uncertainty.cliff_bytes_interval.holds(before))
        fast.append(uncertainty.in_cache_interval.holds(2e9))
        slow.append(uncertainty.post_cache_interval.holds(5e8))
    assert share(position) >= 0.95
    assert 0.87 <= share(fast) <= 0.99
    assert 0.87 <= share(slow) <= 0.99
    assert set(states) == {"yes"}


def test_a_drop_on_the_threshold_is_not_called_no() -> None:
    """A 30 % drop (the detection's threshold): found or not, the verdict is not "no" except in
    the few writes whose interval misses the truth."""
    states = [
        cliff_uncertainty([detect_cache_cliff(write_log(seed, 1e9, 7e8)[0])]).state
        for seed in range(150)
    ]
    assert share([s != "no" for s in states]) >= BAND[0]
    flat = [
        cliff_uncertainty([detect_cache_cliff(write_log(seed, 1e9, 1e9)[0])]).state
        for seed in range(50)
    ]
    assert share([s == "no" for s in flat]) >= 0.95


@pytest.mark.parametrize(("rounds", "cv"), [(5, 0.05), (5, 0.20), (3, 0.10)])
def test_a_pts_window_mean_over_its_rounds(rounds: int, cv: float) -> None:
    """A SNIA PTS window mean: the window's rounds drawn from a normal of known mean; Student's
    interval over the rounds holds it in about 95 % of the windows (≥ 92 % of 400: a 95 %
    interval falls below that about once in a thousand)."""
    hits = []
    for seed in range(REPEATS):
        values = rng(seed).normal(50_000, 50_000 * cv, rounds)
        interval = window_interval(list(values))
        assert interval is not None
        assert (interval.count, interval.basis) == (rounds, "rounds of the steady-state window")
        hits.append(interval.holds(50_000))
    assert 0.92 <= share(hits) <= BAND[1]


def test_a_pts_window_mean_of_one_round_has_no_interval() -> None:
    assert window_interval([1000.0]) is None
    assert window_interval([1000.0, None]) is None


@pytest.mark.parametrize(("points", "noise"), [(12, 0.05), (30, 0.2), (4, 0.02)])
def test_a_wear_rate_fitted_by_least_squares(points: int, noise: float) -> None:
    """A wear series of known slope (0.05 %/day) with seeded normal scatter: Student's interval
    of the least-squares slope (n − 2 df) holds the true slope in about 95 % of the series, and
    the days to end of life from its ends hold the true days as often (they map one to one)."""
    truth = 0.05
    hits, day_hits = [], []
    for seed in range(REPEATS):
        days = np.linspace(0.0, 30.0, points)
        wear = 10.0 + truth * days + rng(seed).normal(0.0, noise, points)
        line = least_squares(list(days), list(wear))
        assert line is not None
        interval = slope_interval(line.slope, line.slope_stderr, points)
        assert interval is not None
        assert (interval.count, interval.basis) == (points, "least-squares fit")
        hits.append(interval.holds(truth))
        remaining = 90.0
        span = days_interval(remaining, interval)
        assert span is not None
        day_hits.append(span.holds(remaining / truth))
    assert 0.92 <= share(hits) <= BAND[1]
    assert 0.92 <= share(day_hits) <= BAND[1]


def test_days_to_end_of_life_from_the_wear_rate_interval() -> None:
    rate = Interval(0.04, 0.05, 0.95, "least-squares fit", 10)
    span = days_interval(80.0, rate)
    assert span is not None
    assert (span.low, span.high) == pytest.approx((1600.0, 2000.0))
    unbounded = days_interval(80.0, Interval(-0.01, 0.05, 0.95, "least-squares fit", 10))
    assert unbounded is not None
    assert (unbounded.low, unbounded.high) == (pytest.approx(1600.0), None)
    assert days_interval(80.0, None) is None
    assert slope_interval(0.05, None, 2) is None  # two samples fit exactly: no scatter to judge
    projection = project_life(20.0, 0.045, None, None, pct_per_day_interval=rate)
    assert projection.days_to_eol_interval == span


def test_a_wear_fit_carries_its_slope_interval_into_the_projection() -> None:
    days = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    wear = [1.0, 2.0, 2.0, 3.0, 4.0, 4.0]
    series = WearSeries(
        times_s=[d * 86_400 for d in days],
        wear_pct=wear,
        wear_resolution=[1.0] * 6,
        erase_count=[None] * 6,
        erase_resolution=[None] * 6,
        host_written_bytes=[None] * 6,
    )
    fit = fit_wear_series(series)
    line = least_squares(days, wear)
    assert line is not None
    assert line.slope_stderr is not None
    assert fit.pct_per_day == pytest.approx(line.slope)
    interval = fit.pct_per_day_interval
    assert interval is not None
    half = 2.7764451 * line.slope_stderr  # t(0.975, 4)
    assert (interval.low, interval.high) == pytest.approx((line.slope - half, line.slope + half))


@pytest.mark.parametrize(
    ("low", "high", "state"),
    [(0.01, 0.02, "yes"), (0.1, 0.2, "no"), (0.04, 0.05, "inconclusive")],
)
def test_outlasting_the_warranty_is_judged_by_the_interval_of_the_days(
    low: float, high: float, state: str
) -> None:
    """80 % of life left against a 5-year warranty (1,826 days): a wear rate of 0.01–0.02 %/day
    gives 4,000–8,000 days (yes), 0.1–0.2 gives 400–800 (no), 0.04–0.05 gives 1,600–2,000,
    which straddles the warranty (inconclusive)."""
    rate = Interval(low, high, 0.95, "least-squares fit", 10)
    rated = RatedEndurance(None, None, 5.0, None)
    projection = project_life(20.0, (low + high) / 2, None, None, pct_per_day_interval=rate)
    assert rating_comparison(rated, projection, None).outlasts_warranty == state


def test_outlasting_the_warranty_without_an_interval_is_read_from_the_days() -> None:
    rated = RatedEndurance(None, None, 1.0, None)
    comparison = rating_comparison(rated, project_life(20.0, 0.01, None, None), None)
    assert comparison.outlasts_warranty == "yes"  # 8,000 days against 365, two samples
    unknown = rating_comparison(rated, project_life(20.0, None, None, None), None)
    assert unknown.outlasts_warranty is None


@pytest.mark.parametrize(("n", "pct"), [(20_000, 99.9), (400, 99.0), (200_000, 99.99)])
def test_a_percentile_of_fios_json_histogram(n: int, pct: float) -> None:
    """`qos` judges tails by bins_tail: ranks l and u of the I/Os, the ends the outer bounds
    of fio's buckets (64 per power of two) that hold them. Latencies drawn from a lognormal
    (median 100 µs, σ 0.5), binned as fio bins them: the interval holds the true percentile."""
    from scipy.stats import norm

    from ssdlab.analysis.step_tails import bins_tail

    rng = np.random.default_rng(33)
    truth = 100_000 * math.exp(0.5 * norm.ppf(pct / 100))
    hits = []
    for _ in range(REPEATS):
        ns = np.floor(rng.lognormal(math.log(100_000), 0.5, n)).astype(np.int64)
        k = np.floor(np.log2(ns)).astype(np.int64)
        width = np.left_shift(1, k - 6)
        values = (1 << k) + (ns - (1 << k)) // width * width + width // 2
        keys, counts = np.unique(values, return_counts=True)
        tail = bins_tail(dict(zip(keys.tolist(), counts.tolist(), strict=True)), pct)
        assert tail.interval is not None
        low, high = tail.interval.low, tail.interval.high
        assert low is not None
        assert high is not None
        hits.append(low <= truth <= high)
    assert BAND[0] <= share(hits) <= BAND[1]  # seeded: 0.985, 0.965, 0.970


@pytest.mark.parametrize(("pct", "slower"), [(50.0, 1.0), (99.0, 1.3)])
def test_a_ratio_of_two_percentiles_of_fios_json_histograms(pct: float, slower: float) -> None:
    """`qos` judges TRIM-6/7 by a read percentile in a phase ÷ the reads alone: each
    percentile's interval at 97.5 %, the ratio's ends their quotients. The phase's latencies are
    the baseline's × `slower`, so the true ratio is `slower`; the interval holds it in at least
    95 % of runs (conservative by construction: it may over-cover)."""
    from ssdlab.analysis.profiles.qos import judge_change
    from ssdlab.model.qos_targets import QosTarget

    target = QosTarget("read", pct, 0.0, "test", phase="trim", change_pct=5.0)
    rng = np.random.default_rng(67)

    def binned(ns: np.ndarray) -> dict[str, tuple[dict[int, int], None]]:
        ns = np.floor(ns).astype(np.int64)
        k = np.floor(np.log2(ns)).astype(np.int64)
        width = np.left_shift(1, k - 6)
        values = (1 << k) + (ns - (1 << k)) // width * width + width // 2
        keys, counts = np.unique(values, return_counts=True)
        return {"read": (dict(zip(keys.tolist(), counts.tolist(), strict=True)), None)}

    hits = []
    for _ in range(REPEATS):
        alone = binned(rng.lognormal(math.log(100_000), 0.5, 20_000))
        during = binned(slower * rng.lognormal(math.log(100_000), 0.5, 20_000))
        item = judge_change(target, alone, during)
        assert item.interval is not None
        low, high = item.interval.low, item.interval.high
        assert low is not None
        assert high is not None
        hits.append(low <= slower <= high)
    assert share(hits) >= BAND[0]  # seeded: 1.000 for both, a box of two intervals is wide
