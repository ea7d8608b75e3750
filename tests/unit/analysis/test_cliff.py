"""Write-cache cliff detection on synthetic bandwidth logs with known cliffs, noise and spikes.

Tolerance: a detected boundary is within ±2 log intervals of the true one (an interval's bytes
at the faster of the two levels). Oracles: exhaustive enumeration of every segmentation for the
optimal partition, numpy for medians, MADs and means.
"""

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ssdlab.analysis.cliff import (
    CacheCliffVerdict,
    ShortSeries,
    detect_cache_cliff,
    l1_costs,
    optimal_partition_l1,
    recovery_fraction,
    robust_sigma,
)
from ssdlab.model.units import GB, MB

Series = list[tuple[float, float]]
SLOW = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def synth(
    phases: list[tuple[float, float]],
    *,
    interval_s: float,
    cv: float,
    spike_fraction: float,
    seed: int,
) -> Series:
    """A sustained write through phases of (bw_bytes_per_s, phase_bytes).

    Each interval writes at the level of the phase it is in, crossing into the next phase
    mid-interval when a boundary falls inside it (that interval's bandwidth is the mix). The
    measured bandwidth has Gaussian noise of `cv` and, with probability `spike_fraction`, is
    replaced by an outlier between 0 and 3 times the true value.
    """
    rng = np.random.default_rng(seed)
    edges = np.cumsum([size for _, size in phases])
    levels = [bw for bw, _ in phases]
    total = float(edges[-1])
    written, series = 0.0, []
    while written < total * (1 - 1e-12):
        position, left_s = written, interval_s
        while left_s > 0 and position < total:
            k = min(int(np.searchsorted(edges, position, side="right")), len(levels) - 1)
            need_s = (edges[k] - position) / levels[k]
            if need_s >= left_s:
                position += levels[k] * left_s
                left_s = 0.0
            else:
                position, left_s = float(edges[k]), left_s - need_s
        true_bw = (position - written) / (interval_s - left_s)
        measured = true_bw * (1 + cv * rng.standard_normal())
        if rng.random() < spike_fraction:
            measured = true_bw * rng.uniform(0, 3)
        written = position
        series.append((written, max(measured, 0.0)))
    return series


def series_of(bw: np.ndarray, interval_s: float = 1.0) -> Series:
    bw = np.clip(np.asarray(bw, dtype=float), 0, None)
    return list(zip(np.cumsum(bw * interval_s).tolist(), bw.tolist(), strict=True))


def median_tolerance(cv: float, points: int) -> float:
    """4σ of a median of `points` normal values with noise `cv` (σ ≈ 1.2533 × cv / √points),
    plus 2 % for the outliers and the interval straddling a boundary."""
    return 4 * 1.2533 * cv / math.sqrt(points) + 0.02


def boundaries(verdict: CacheCliffVerdict) -> list[float]:
    return [s.end_bytes for s in verdict.segments[:-1]]


TWO_LEVEL = [(2000 * MB, 20.3 * GB), (500 * MB, 40 * GB)]
THREE_STEP = [
    (3000 * MB, 30.3 * GB),
    (1500 * MB, 50.7 * GB),
    (600 * MB, 30 * GB),
    (1500 * MB, 20 * GB),
]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("cv", [0.0, 0.05, 0.10])
@pytest.mark.parametrize("interval_s", [1.0, 0.1])
def test_two_levels_cliff_within_two_intervals(seed: int, cv: float, interval_s: float) -> None:
    series = synth(TWO_LEVEL, interval_s=interval_s, cv=cv, spike_fraction=0.02, seed=seed)
    verdict = detect_cache_cliff(series)
    assert verdict.reason is None
    assert verdict.cliff_bytes is not None
    assert verdict.cliff_bytes == pytest.approx(20.3 * GB, abs=2 * interval_s * 2000 * MB)
    assert verdict.cliff_segment == 1
    assert len(verdict.segments) == 2
    fast, slow = verdict.segments
    assert verdict.in_cache_bw_bytes_per_s == pytest.approx(
        2000 * MB, rel=median_tolerance(cv, fast.points)
    )
    assert verdict.post_cache_bw_bytes_per_s == pytest.approx(
        500 * MB, rel=median_tolerance(cv, slow.points)
    )
    assert verdict.floor_bw_bytes_per_s == verdict.post_cache_bw_bytes_per_s
    assert verdict.drop_pct == pytest.approx(75, abs=3)
    assert verdict.total_bytes == pytest.approx(60.3 * GB)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("cv", [0.05, 0.10])
@pytest.mark.parametrize("interval_s", [1.0, 0.25])
def test_three_steps_and_a_recovery(seed: int, cv: float, interval_s: float) -> None:
    """SLC cache, direct-to-TLC, a slower folding phase, then back to direct-to-TLC."""
    series = synth(THREE_STEP, interval_s=interval_s, cv=cv, spike_fraction=0.02, seed=seed)
    verdict = detect_cache_cliff(series)
    truth = [30.3 * GB, 81 * GB, 111 * GB]
    faster = [3000 * MB, 1500 * MB, 1500 * MB]
    found = boundaries(verdict)
    assert len(found) == 3
    for got, want, bw in zip(found, truth, faster, strict=True):
        assert got == pytest.approx(want, abs=2 * interval_s * bw)
    assert verdict.cliff_bytes == found[0]
    medians = [s.median_bw_bytes_per_s for s in verdict.segments]
    for segment, want in zip(verdict.segments, [3000, 1500, 600, 1500], strict=True):
        assert segment.median_bw_bytes_per_s == pytest.approx(
            want * MB, rel=median_tolerance(cv, segment.points)
        )
    assert verdict.post_cache_bw_bytes_per_s == medians[1]
    assert verdict.floor_bw_bytes_per_s == medians[2]
    changes = [s.change_pct for s in verdict.segments]
    assert changes[0] is None
    assert changes[1:] == pytest.approx([100 * (b - a) / a for a, b in itertools.pairwise(medians)])
    assert [c is not None and c > 0 for c in changes[1:]] == [False, False, True]
    assert [s.step for s in verdict.segments] == [None, True, True, True]


def test_long_fine_grained_log_uses_blocks_and_keeps_interval_precision() -> None:
    """A whole-drive fill at 100 ms logging: ~47,000 points, searched in 500 blocks."""
    series = synth(
        [(3000 * MB, 300.05 * GB), (800 * MB, 3700 * GB)],
        interval_s=0.1,
        cv=0.1,
        spike_fraction=0.02,
        seed=3,
    )
    verdict = detect_cache_cliff(series)
    assert verdict.criteria.block_points > 50
    assert verdict.cliff_bytes == pytest.approx(300.05 * GB, abs=2 * 0.1 * 3000 * MB)
    assert len(verdict.segments) == 2


def test_segment_numbers_match_numpy() -> None:
    series = synth(TWO_LEVEL, interval_s=0.5, cv=0.1, spike_fraction=0.02, seed=11)
    verdict = detect_cache_cliff(series)
    bw = np.array([p[1] for p in series])
    for segment in verdict.segments:
        values = bw[segment.start_index : segment.end_index]
        assert segment.median_bw_bytes_per_s == pytest.approx(np.median(values))
        mad = np.median(np.abs(values - np.median(values)))
        assert segment.spread_bw_bytes_per_s == pytest.approx(1.4826 * mad)
        assert segment.written_bytes == pytest.approx(
            series[segment.end_index - 1][0]
            - (series[segment.start_index - 1][0] if segment.start_index else 0.0)
        )
    first, second = verdict.segments
    assert (first.start_index, first.start_bytes, second.end_index) == (0, 0.0, len(series))
    assert first.end_index == second.start_index
    assert first.end_bytes == second.start_bytes
    assert verdict.sustained_bw_bytes_per_s == pytest.approx(bw[second.start_index :].mean())
    assert verdict.criteria.noise_bw_bytes_per_s == pytest.approx(
        1.4826 * np.median(np.abs(np.diff(bw))) / math.sqrt(2)
    )
    assert verdict.series == tuple(series)


@SLOW
@given(
    seed=st.integers(0, 2**32 - 1),
    cv=st.floats(0.0, 0.10),
    n=st.integers(10, 1500),
    spike_fraction=st.sampled_from([0.0, 0.01, 0.02]),
)
def test_no_false_cliff_on_flat_noisy_data(
    seed: int, cv: float, n: int, spike_fraction: float
) -> None:
    rng = np.random.default_rng(seed)
    bw = 1000 * MB * (1 + cv * rng.standard_normal(n))
    spikes = rng.random(n) < spike_fraction
    bw[spikes] *= rng.uniform(0, 3, spikes.sum())
    verdict = detect_cache_cliff(series_of(bw, 0.5))
    assert verdict.cliff_bytes is None
    assert len(verdict.segments) == 1
    assert verdict.in_cache_bw_bytes_per_s is None
    assert verdict.post_cache_bw_bytes_per_s is None
    assert verdict.reason is not None
    assert verdict.reason.startswith("no sustained drop of ≥ 30 % found")


@SLOW
@given(seed=st.integers(0, 2**32 - 1), exponent=st.integers(-30, 30))
def test_scaling_bandwidth_leaves_positions_unchanged(seed: int, exponent: int) -> None:
    series = synth(TWO_LEVEL, interval_s=1.0, cv=0.1, spike_fraction=0.02, seed=seed % 1000)
    k = 2.0**exponent
    base = detect_cache_cliff(series)
    scaled = detect_cache_cliff([(b, bw * k) for b, bw in series])
    assert [(s.start_index, s.end_index) for s in scaled.segments] == [
        (s.start_index, s.end_index) for s in base.segments
    ]
    assert scaled.cliff_bytes == base.cliff_bytes
    assert base.in_cache_bw_bytes_per_s is not None
    assert scaled.in_cache_bw_bytes_per_s == pytest.approx(k * base.in_cache_bw_bytes_per_s)


@pytest.mark.parametrize("k", [1e-3, 3.7, 1e3 / 1024, 12345.6])
@pytest.mark.parametrize("seed", range(4))
def test_scaling_by_any_factor(k: float, seed: int) -> None:
    """Bandwidth × k: same positions; bytes × k: positions × k."""
    series = synth(THREE_STEP, interval_s=1.0, cv=0.08, spike_fraction=0.02, seed=seed)
    base = detect_cache_cliff(series)
    by_bw = detect_cache_cliff([(b, bw * k) for b, bw in series])
    by_bytes = detect_cache_cliff([(b * k, bw) for b, bw in series])
    assert boundaries(by_bw) == boundaries(base)
    assert boundaries(by_bytes) == pytest.approx([k * b for b in boundaries(base)])
    assert base.cliff_bytes is not None
    assert by_bytes.cliff_bytes == pytest.approx(k * base.cliff_bytes)


@pytest.mark.parametrize("n", [0, 1, 5, 9])
def test_too_short_series_has_no_cliff_and_says_why(n: int) -> None:
    bw = np.r_[np.full(n // 2, 2000 * MB), np.full(n - n // 2, 500 * MB)]
    verdict = detect_cache_cliff(series_of(bw))
    assert verdict.cliff_bytes is None
    assert verdict.in_cache_bw_bytes_per_s is None
    assert verdict.reason is not None
    assert verdict.reason.startswith("series too short")
    assert "needs at least 10" in verdict.reason
    assert verdict.criteria.noise_bw_bytes_per_s is None
    assert verdict.criteria.penalty is None
    # what it had and what it needed, as numbers a report can put in words
    written = float(bw.sum()) if n else 0.0  # one-second intervals: bytes = B/s
    assert verdict.short == ShortSeries(n, 10, pytest.approx(written), None)


def test_a_long_enough_series_is_not_short() -> None:
    verdict = detect_cache_cliff(series_of(np.full(10, 900 * MB)))
    assert verdict.short is None
    assert verdict.cliff_bytes is None
    assert verdict.reason is not None
    assert "larger than the write" in verdict.reason


def test_too_few_bytes_for_the_minimum_segment() -> None:
    bw = np.r_[np.full(50, 2000 * MB), np.full(50, 500 * MB)]
    verdict = detect_cache_cliff(series_of(bw), min_segment_bytes=100 * GB)
    assert verdict.cliff_bytes is None
    assert verdict.reason is not None
    assert "125 GB written" in verdict.reason
    assert "200 GB" in verdict.reason
    assert verdict.short is not None
    assert verdict.short.points == 100
    assert verdict.short.bytes_needed == 200 * GB


def test_exactly_the_minimum_detects_a_cliff() -> None:
    bw = np.r_[np.full(5, 2000 * MB), np.full(5, 500 * MB)]
    verdict = detect_cache_cliff(series_of(bw))
    assert verdict.cliff_bytes == 10 * GB


def test_short_dip_and_spikes_are_not_segments() -> None:
    bw = np.full(400, 2000 * MB)
    bw[100:104] = 300 * MB  # a 4-interval stall: shorter than the 5-point minimum
    bw[[50, 200, 201, 300]] = [0.0, 6000 * MB, 0.0, 50 * MB]
    bw[250:] = 500 * MB
    verdict = detect_cache_cliff(series_of(bw))
    assert [(s.start_index, s.end_index) for s in verdict.segments] == [(0, 250), (250, 400)]


def test_minimum_segment_bytes_ignores_a_longer_dip() -> None:
    bw = np.r_[np.full(100, 2000 * MB), np.full(10, 500 * MB), np.full(100, 2000 * MB)]
    series = series_of(bw)
    assert detect_cache_cliff(series).cliff_bytes == 200 * GB
    verdict = detect_cache_cliff(series, min_segment_bytes=10 * GB)
    assert verdict.cliff_bytes is None
    assert len(verdict.segments) == 1
    assert verdict.criteria.min_segment_bytes == 10 * GB


def test_a_temporary_slowdown_in_the_middle_is_found() -> None:
    """A symmetric dip defeats plain binary segmentation with an L1 cost; the exact search
    does not miss it."""
    series = synth(
        [(2000 * MB, 40 * GB), (500 * MB, 10 * GB), (2000 * MB, 40 * GB)],
        interval_s=1.0,
        cv=0.1,
        spike_fraction=0.02,
        seed=5,
    )
    verdict = detect_cache_cliff(series)
    assert boundaries(verdict) == pytest.approx([40 * GB, 50 * GB], abs=2 * 2000 * MB)
    assert verdict.segments[2].change_pct is not None
    assert verdict.segments[2].change_pct > 200


def test_ramp_up_at_the_start_is_not_the_cache() -> None:
    bw = np.r_[[300 * MB, 800 * MB, 1500 * MB], np.full(50, 2000 * MB), np.full(100, 500 * MB)]
    verdict = detect_cache_cliff(series_of(bw))
    assert verdict.cliff_bytes == pytest.approx(102.6 * GB)
    assert verdict.in_cache_bw_bytes_per_s == 2000 * MB


def test_slow_start_then_cache_then_cliff() -> None:
    bw = np.r_[np.full(20, 800 * MB), np.full(50, 2000 * MB), np.full(100, 500 * MB)]
    verdict = detect_cache_cliff(series_of(bw))
    assert verdict.cliff_segment == 2
    assert verdict.cliff_bytes == pytest.approx(116 * GB)
    assert verdict.in_cache_bw_bytes_per_s == 2000 * MB


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("low", [1000, 500])
def test_gradual_decline_is_not_a_cliff(seed: int, low: float) -> None:
    """A drive slowing steadily (or a disk from outer to inner tracks) has no cache cliff."""
    rng = np.random.default_rng(seed)
    n = 600
    bw = np.linspace(2000, low, n) * MB * (1 + 0.1 * rng.standard_normal(n))
    verdict = detect_cache_cliff(series_of(bw))
    assert verdict.cliff_bytes is None
    assert verdict.reason is not None
    assert verdict.reason.startswith("no sustained drop of ≥ 30 % found")
    if len(verdict.segments) > 1:
        assert "fell gradually" in verdict.reason
        assert any(s.step is False for s in verdict.segments)


@pytest.mark.parametrize("seed", range(5))
def test_a_cliff_with_a_short_ramp_is_still_a_cliff(seed: int) -> None:
    rng = np.random.default_rng(seed)
    bw = np.r_[np.full(200, 2000.0), np.linspace(2000, 500, 20), np.full(400, 500.0)] * MB
    verdict = detect_cache_cliff(series_of(bw * (1 + 0.1 * rng.standard_normal(bw.size))))
    assert verdict.segments[1].step is True
    assert verdict.cliff_segment == 1
    assert 200 <= verdict.segments[1].start_index <= 220


def test_only_a_rise_is_no_cliff() -> None:
    bw = np.r_[np.full(50, 500 * MB), np.full(50, 2000 * MB)]
    verdict = detect_cache_cliff(series_of(bw))
    assert verdict.cliff_bytes is None
    assert len(verdict.segments) == 2
    assert verdict.reason is not None
    assert "only rose (500 MB/s → 2,000 MB/s)" in verdict.reason


def test_a_stalled_write_says_so() -> None:
    verdict = detect_cache_cliff([(0.0, 0.0)] * 20)
    assert verdict.cliff_bytes is None
    assert verdict.reason is not None
    assert "made no progress" in verdict.reason


def test_drop_threshold_is_a_parameter() -> None:
    bw = np.r_[np.full(50, 1000 * MB), np.full(50, 800 * MB)]  # a 20 % drop
    assert detect_cache_cliff(series_of(bw)).cliff_bytes is None
    verdict = detect_cache_cliff(series_of(bw), min_drop_pct=15)
    assert verdict.cliff_bytes == 50 * GB
    assert verdict.drop_pct == pytest.approx(20)
    assert verdict.criteria.min_drop_pct == 15


@pytest.mark.parametrize(
    ("series", "message"),
    [
        ([(1.0, 1.0), (0.5, 1.0)], "must not decrease"),
        ([(1.0, -1.0)], "negative bandwidth"),
        ([(math.nan, 1.0)], "not finite"),
        ([(-1.0, 1.0)], "must not decrease"),
    ],
)
def test_impossible_series_are_refused(series: Series, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        detect_cache_cliff(series)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"min_drop_pct": 0},
        {"min_drop_pct": 100},
        {"min_segment_bytes": 0},
        {"min_segment_points": 0},
        {"penalty_factor": 0},
        {"max_blocks": 1},
    ],
)
def test_nonsensical_criteria_are_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError, match=next(iter(kwargs))):  # the message names the criterion
        detect_cache_cliff([(1.0, 1.0)], **kwargs)  # type: ignore[arg-type]


# --- recovery after idle ---------------------------------------------------------------------


def two_level(cache_points: int, after_points: int, fast: float = 2000 * MB) -> CacheCliffVerdict:
    bw = np.r_[np.full(cache_points, fast), np.full(after_points, 500 * MB)]
    return detect_cache_cliff(series_of(bw))


def test_recovery_fraction_of_a_refilled_cache() -> None:
    before = two_level(100, 100)  # 200 GB cache
    probe = two_level(25, 30)  # 50 GB came back
    recovery = recovery_fraction(before, probe)
    assert recovery.fraction == pytest.approx(0.25)
    assert recovery.recovered_bytes == 50 * GB
    assert recovery.reason is None
    assert recovery.notes == ()


def test_recovery_with_a_different_fast_speed_is_noted() -> None:
    recovery = recovery_fraction(two_level(100, 100), two_level(25, 30, fast=1000 * MB))
    assert recovery.fraction == pytest.approx(0.125)
    assert recovery.notes
    assert "different cache" in recovery.notes[0]


def test_no_recovery_is_zero_not_unknown() -> None:
    probe = detect_cache_cliff(series_of(np.full(30, 510 * MB)))
    recovery = recovery_fraction(two_level(100, 100), probe)
    assert recovery.fraction == 0.0
    assert recovery.recovered_bytes == 0.0
    assert recovery.reason is None


def test_probe_that_never_left_the_cache_gives_a_lower_bound() -> None:
    probe = detect_cache_cliff(series_of(np.full(30, 1990 * MB)))
    recovery = recovery_fraction(two_level(100, 100), probe)
    assert recovery.fraction is None
    assert recovery.at_least_fraction == pytest.approx(30 * 1990 / (200 * 1000))
    assert recovery.reason is not None
    assert "at least 30 %" in recovery.reason


def test_recovery_needs_a_first_cliff() -> None:
    flat = detect_cache_cliff(series_of(np.full(30, 1000 * MB)))
    recovery = recovery_fraction(flat, two_level(20, 20))
    assert recovery.fraction is None
    assert recovery.reason is not None
    assert "no cache cliff" in recovery.reason


def test_probe_at_an_unrelated_speed_is_unknown() -> None:
    probe = detect_cache_cliff(series_of(np.full(30, 1100 * MB)))
    recovery = recovery_fraction(two_level(100, 100), probe)
    assert recovery.fraction is None
    assert recovery.at_least_fraction is None
    assert recovery.reason is not None
    assert "cannot tell" in recovery.reason


# --- the building blocks against independent oracles ----------------------------------------

VALUES = st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=40)


@given(VALUES)
def test_running_l1_cost_matches_numpy(values: list[float]) -> None:
    costs = l1_costs(values)
    for k in range(len(values)):
        prefix = np.array(values[: k + 1])
        want = np.abs(prefix - np.median(prefix)).sum()
        assert costs[k] == pytest.approx(want, rel=1e-9, abs=1e-6)


def brute_force_optimum(values: list[float], penalty: float, min_size: int) -> float:
    """The least total cost over every way of cutting `values` into segments."""
    x = np.array(values)
    n = len(values)
    best = math.inf
    for r in range(n):
        for cuts in itertools.combinations(range(1, n), r):
            edges = [0, *cuts, n]
            if any(b - a < min_size for a, b in itertools.pairwise(edges)):
                continue
            cost = sum(
                np.abs(x[a:b] - np.median(x[a:b])).sum() + penalty
                for a, b in itertools.pairwise(edges)
            )
            best = min(best, cost)
    return best


def partition_cost(values: list[float], cuts: tuple[int, ...], penalty: float) -> float:
    x = np.array(values)
    edges = [0, *cuts, len(values)]
    return sum(
        np.abs(x[a:b] - np.median(x[a:b])).sum() + penalty for a, b in itertools.pairwise(edges)
    )


@given(
    values=st.lists(st.integers(0, 20).map(float), min_size=1, max_size=11),
    penalty=st.floats(0.0, 30.0),
    min_size=st.integers(1, 3),
)
def test_optimal_partition_matches_exhaustive_search(
    values: list[float], penalty: float, min_size: int
) -> None:
    cuts = optimal_partition_l1(values, penalty=penalty, min_size=min_size)
    edges = [0, *cuts, len(values)]
    if len(values) >= 2 * min_size:
        assert all(b - a >= min_size for a, b in itertools.pairwise(edges))
    want = (
        brute_force_optimum(values, penalty, min_size)
        if len(values) >= min_size
        else partition_cost(values, (), penalty)
    )
    assert partition_cost(values, cuts, penalty) == pytest.approx(want, abs=1e-9)


def test_optimal_partition_respects_a_minimum_span() -> None:
    values = [10.0] * 6 + [1.0] * 2 + [10.0] * 6
    assert optimal_partition_l1(values, penalty=1.0) == (6, 8)
    positions = [float(p) for p in range(15)]
    cuts = optimal_partition_l1(values, penalty=1.0, positions=positions, min_span=4)
    edges = [0, *cuts, len(values)]
    assert all(positions[b] - positions[a] >= 4 for a, b in itertools.pairwise(edges))
    assert optimal_partition_l1(values, penalty=1.0, positions=positions, min_span=8) == ()
    with pytest.raises(ValueError, match="positions needs 15"):
        optimal_partition_l1(values, penalty=1.0, positions=positions[:-1])


@given(st.lists(st.floats(-1e9, 1e9, allow_nan=False), min_size=2, max_size=50))
def test_robust_sigma_matches_numpy(values: list[float]) -> None:
    want = 1.4826 * np.median(np.abs(np.diff(values))) / math.sqrt(2)
    assert robust_sigma(values) == pytest.approx(want, rel=1e-9, abs=1e-6)


def test_robust_sigma_of_one_value_is_unknown() -> None:
    assert robust_sigma([1.0]) is None
