"""Thermal throttling found in replayed series whose onset, exit and throttled ratio are known."""

import pytest

from ssdlab.analysis.thermal import STEP_SIGMAS, ThermalPoint, find_throttling
from tests.unit.analysis.thermal_series import drive_series, flat_series

SEEDS = range(40)


def _coverage(**kwargs: float) -> tuple[float, float, float, int]:
    onset_hits = onsets = exit_hits = exits = ratio_hits = 0
    for seed in SEEDS:
        series = find_throttling(drive_series(seed, **kwargs))  # type: ignore[arg-type]
        for episode in series.episodes:
            onsets += 1
            threshold = episode.onset.threshold
            onset_hits += threshold is not None and threshold.holds(kwargs.get("onset_c", 77.0))
            if episode.exit is not None:
                exits += 1
                threshold = episode.exit.threshold
                exit_hits += threshold is not None and threshold.holds(kwargs.get("exit_c", 75.0))
        interval = series.throttled_ratio_interval
        ratio_hits += interval is not None and interval.holds(kwargs.get("ratio", 0.5))
    assert onsets > len(SEEDS)  # the drive cycles: many episodes per series
    return onset_hits / onsets, exit_hits / exits, ratio_hits / len(SEEDS), onsets


@pytest.mark.parametrize(
    ("ratio", "cv", "decimals"),
    [(0.5, 0.05, 0), (0.5, 0.05, 1), (0.7, 0.05, 0), (0.7, 0.05, 1), (0.5, 0.02, 1)],
)
def test_onset_and_exit_intervals_cover_the_truth(ratio: float, cv: float, decimals: int) -> None:
    onset, exit_, ratio_cover, _ = _coverage(ratio=ratio, cv=cv, decimals=decimals)
    assert onset >= 0.95
    assert exit_ >= 0.95
    assert ratio_cover >= 0.85  # nominal 0.95; 40 seeds: 0.85 is 3 standard errors below


def test_other_thresholds_are_found_too() -> None:
    onset, exit_, _, _ = _coverage(onset_c=70.0, exit_c=66.0, cools_to_c=55.0, decimals=1)
    assert onset >= 0.95
    assert exit_ >= 0.95


def test_the_first_episode_is_placed_at_the_onset_temperature() -> None:
    series = find_throttling(drive_series(1))
    first = series.episodes[0]
    assert first.explained_by_temperature
    assert first.onset.threshold is not None
    assert first.onset.threshold.low == first.onset.threshold.high == 77.0
    assert first.exit is not None
    assert first.exit.threshold is not None
    assert first.exit.threshold.holds(75.0)
    assert series.throttled_ratio == pytest.approx(0.5, abs=0.02)
    low, high = series.throttled_interval_s or (0.0, 0.0)
    assert low <= series.throttled_s <= high
    assert series.throttled_share_pct == pytest.approx(100 * series.throttled_s / 600)


@pytest.mark.parametrize("phi", [0.0, 0.5, 0.8, 0.95])
def test_no_throttling_on_a_flat_series(phi: float) -> None:
    for seed in range(30):
        series = find_throttling(flat_series(seed, phi=phi))
        assert series.episodes == ()
        assert series.throttled_s == 0.0
        assert "flat within its noise" in series.reason


def test_a_step_smaller_than_the_noise_allows_is_not_throttling() -> None:
    # a 10 % fall at 5 % noise: 2 σ, under STEP_SIGMAS
    assert STEP_SIGMAS > 2
    assert find_throttling(drive_series(3, ratio=0.9)).episodes == ()


def test_a_fall_no_temperature_explains_is_not_judged_as_throttling() -> None:
    """A write cache running out: the speed falls once at 60 °C after running at 70 °C."""
    points = [
        ThermalPoint(float(i), 70.0 if i < 100 else 60.0, 2e9 if i < 200 else 5e8)
        for i in range(400)
    ]
    series = find_throttling(points)
    assert len(series.episodes) == 1
    episode = series.episodes[0]
    assert episode.exit is None
    assert not episode.explained_by_temperature
    assert series.thermal_episodes == ()


def test_too_short_a_series_says_so() -> None:
    series = find_throttling(drive_series(0, seconds=10))
    assert series.short
    assert series.episodes == ()


def test_missing_readings_leave_the_bracket_unknown() -> None:
    points = [ThermalPoint(p.elapsed_s, None, p.bw_bytes_per_s) for p in drive_series(2)]
    series = find_throttling(points)
    assert series.episodes
    assert all(e.onset.threshold is None for e in series.episodes)
    assert series.thermal_episodes == ()
    assert series.max_temperature_c is None


def test_the_same_series_gives_the_same_intervals() -> None:
    assert find_throttling(drive_series(5)) == find_throttling(drive_series(5))


def test_a_pass_series_and_its_readings_are_joined_by_time() -> None:
    from ssdlab.analysis.thermal import thermal_points
    from ssdlab.model.result import SeriesPoint

    series = [
        SeriesPoint(1.0, "read", 1e9, None, None),
        SeriesPoint(1.0, "write", 5e8, None, None),
        SeriesPoint(2.0, "write", 4e8, None, None),
        SeriesPoint(3.0, "write", None, None, None),
        SeriesPoint(4.0, "write", 3e8, None, None),
    ]
    points = thermal_points(series, [(0.9, 70.0), (2.2, 71.0), (9.0, 80.0)])
    assert points == [
        ThermalPoint(1.0, 70.0, 1.5e9),
        ThermalPoint(2.0, 71.0, 4e8),
        ThermalPoint(4.0, None, 3e8),
    ]
