"""A watch series: per-interval WAF, last-N-hours WAF, least-squares wear rate vs numpy."""

import math
from dataclasses import replace

import numpy as np
import pytest

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.analysis.wear import (
    WearSeries,
    analyse_series,
    fit_projection,
    fit_wear_series,
    least_squares,
)
from ssdlab.model.health import HealthSample
from ssdlab.model.units import GB, TB, GiB
from tests.unit.analysis.health_samples import make_sample

HOUR = 3600.0
DAY = 86_400.0


def sample(
    t_s: float | None,
    *,
    host: float | None = None,
    nand: float | None = None,
    wear: float | None = None,
    erase: float | None = None,
    serial: str = "S1",
) -> HealthSample:
    return make_sample(
        t_s, host=host, nand=nand, wear=wear, erase=erase, serial=serial, capacity=1 * TB
    )


def hourly_series(hours: int, host_gib_per_h: float = 5.0, waf: float = 2.0) -> list[HealthSample]:
    """GiB counters (floored), 5 GiB/h of host writes at WAF 2: one interval never resolves."""
    return [
        sample(
            h * HOUR,
            host=math.floor(h * host_gib_per_h) * GiB,
            nand=math.floor(h * host_gib_per_h * waf) * GiB,
        )
        for h in range(hours + 1)
    ]


def test_single_intervals_are_refused_and_resolved_windows_merge_them() -> None:
    report = analyse_series(hourly_series(48), last_hours=24)
    assert report.reason is None
    assert len(report.intervals) == 48
    assert all(i.waf.waf is None and i.waf.reason for i in report.intervals)
    # 1/ΔH + 1/ΔN ≤ 5 % with ΔN = 2 ΔH (in GiB): ΔH ≥ 30 GiB = 6 hours at 5 GiB/h
    assert report.resolved_windows
    for window in report.resolved_windows:
        assert window.end_s - window.start_s == pytest.approx(6 * HOUR)
        assert window.waf.waf == pytest.approx(2.0)
        assert window.waf.quantisation_error_pct is not None
        assert window.waf.quantisation_error_pct <= 5.0
    # the last 24 h: from the sample taken at hour 24 to hour 48
    assert report.recent is not None
    assert (report.recent.start_s, report.recent.end_s) == (24 * HOUR, 48 * HOUR)
    assert report.recent.waf.waf == pytest.approx(2.0)
    assert report.overall is not None
    assert report.overall.waf.waf == pytest.approx(2.0)


def test_recent_window_longer_than_the_series_is_noted() -> None:
    report = analyse_series(hourly_series(10), last_hours=24)
    assert report.recent is not None
    assert report.recent.start_s == 0.0
    assert any("covers only 10 h" in n for n in report.notes)


def test_least_squares_matches_numpy() -> None:
    xs = [0.0, 1.0, 2.5, 4.0, 7.0, 8.5]
    ys = [0.0, 1.0, 1.0, 3.0, 5.0, 6.0]
    fit = least_squares(xs, ys)
    assert fit is not None
    slope, intercept = np.polyfit(xs, ys, 1)
    assert fit.slope == pytest.approx(slope)
    assert fit.intercept == pytest.approx(intercept)
    assert fit.r_squared == pytest.approx(np.corrcoef(xs, ys)[0, 1] ** 2)
    residuals = np.array(ys) - np.polyval([slope, intercept], xs)
    _, cov = np.polyfit(xs, ys, 1, cov=True)
    assert fit.slope_stderr == pytest.approx(math.sqrt(cov[0, 0]))
    assert fit.residual_rms == pytest.approx(math.sqrt(np.mean(residuals**2)))
    assert least_squares([1.0, 1.0], [0.0, 1.0]) is None
    assert least_squares([1.0], [0.0]) is None


def test_least_squares_is_scipys_linregress_to_the_last_bit() -> None:
    """The fit is linregress' figures exactly (what `ssdlab metrics` and `health` printed
    when it called linregress), not merely close: stored exports stay byte for byte."""
    from scipy import stats

    rng = np.random.default_rng(7)
    for n in (3, 7, 8, 9, 16, 17, 50, 129):
        xs = sorted(float(x) for x in rng.uniform(0.0, 400.0, n))
        for ys in (
            [float(int(x / 9)) for x in xs],  # a stepping wear indicator
            [x * 4e10 + float(e) for x, e in zip(xs, rng.normal(0, 1e9, n), strict=True)],
        ):
            fit = least_squares(xs, ys)
            line = stats.linregress(xs, ys)
            assert fit is not None
            assert fit.slope == float(line.slope)
            assert fit.intercept == float(line.intercept)
            assert fit.r_squared == float(line.rvalue) ** 2
            assert fit.slope_stderr == float(line.stderr)


def test_least_squares_of_two_points_and_of_a_flat_line() -> None:
    two = least_squares([0.0, 2.0], [1.0, 5.0])
    assert two is not None
    assert (two.slope, two.intercept) == pytest.approx((2.0, 1.0))
    assert two.slope_stderr is None
    flat = least_squares([0.0, 1.0, 2.0], [3.0, 3.0, 3.0])
    assert flat is not None
    assert flat.slope == pytest.approx(0.0)
    assert flat.r_squared is None


def test_fitted_wear_rate_against_numpy_and_projection() -> None:
    # true wear 0.7 %/day, integer indicator, sampled every 12 h for 20 days; 100 GB/day host
    times = [i * DAY / 2 for i in range(41)]
    samples = [
        sample(t, host=t / DAY * 100 * GB, nand=t / DAY * 150 * GB, wear=math.floor(0.7 * t / DAY))
        for t in times
    ]
    report = analyse_series(samples)
    fit = report.wear_fit
    assert fit.reason is None
    assert fit.source == "wear_used_pct"
    days = np.array(times) / DAY
    wear = np.floor(0.7 * days)
    slope, _ = np.polyfit(days, wear, 1)
    assert fit.pct_per_day == pytest.approx(slope)
    assert fit.r_squared == pytest.approx(np.corrcoef(days, wear)[0, 1] ** 2)
    host_tb = days * 100 * GB / TB
    assert fit.pct_per_host_tb == pytest.approx(np.polyfit(host_tb, wear, 1)[0])
    assert fit.steps == 14
    assert fit.quantisation_error_pct == pytest.approx(100 / 14)
    assert fit.confidence is not None
    assert "14 steps" in fit.confidence
    assert "R²" in fit.confidence
    projection = report.projection
    assert fit.pct_per_host_tb is not None
    assert projection.wear_now_pct == 14
    assert projection.days_to_eol == pytest.approx(86 / slope)
    assert projection.host_written_at_eol_bytes == pytest.approx(
        2000 * GB + 86 / fit.pct_per_host_tb * TB
    )
    assert slope == pytest.approx(0.7, rel=0.05)  # the staircase fit finds the true rate


def test_a_fit_without_the_rate_per_host_tb_is_the_same_fit_without_it() -> None:
    """What `ssdlab metrics` fits: everything the full fit gives but the wear per TB of host
    writes, with the same days to end of life."""
    samples = [
        sample(t, host=t / DAY * 100 * GB, wear=math.floor(0.7 * t / DAY))
        for t in [i * DAY / 2 for i in range(41)]
    ]
    full = fit_wear_series(WearSeries.of(samples))
    fit = fit_wear_series(WearSeries.of(samples), per_host_tb=False)
    assert full.pct_per_host_tb is not None
    assert fit == replace(full, pct_per_host_tb=None)
    assert fit_projection(fit, None).days_to_eol == fit_projection(full, 2e12).days_to_eol


def test_fit_refused_below_three_steps_then_erase_counts_take_over() -> None:
    times = [i * DAY for i in range(11)]
    coarse = [sample(t, host=t / DAY * TB, wear=math.floor(t / DAY / 5)) for t in times]
    report = analyse_series(coarse)
    assert report.wear_fit.pct_per_day is None
    assert "2 step(s)" in (report.wear_fit.reason or "")
    assert "rated P/E cycles are unknown" in (report.wear_fit.reason or "")
    assert report.projection.days_to_eol is None
    assert report.projection.reason

    with_erase = [
        sample(t, host=t / DAY * TB, wear=math.floor(t / DAY / 5), erase=float(30 * i))
        for i, t in enumerate(times)
    ]
    report = analyse_series(with_erase, rated=RatedEndurance(None, None, None, None, 3000))
    fit = report.wear_fit
    assert fit.source == "erase_count_avg"
    assert fit.pct_per_day == pytest.approx(30 / 3000 * 100)  # 1 %/day, exactly linear
    assert fit.r_squared == pytest.approx(1.0)
    assert any("fitted erase counts instead" in n for n in fit.notes)
    assert report.projection.days_to_eol == pytest.approx(90.0)  # 10 % used, 1 %/day


def test_series_of_one_sample_or_mixed_drives_is_refused() -> None:
    one = analyse_series([sample(0.0, host=0.0)])
    assert one.reason is not None
    assert "at least 2" in one.reason
    assert one.overall is None
    assert one.projection.days_to_eol is None
    mixed = analyse_series([sample(0.0, serial="A"), sample(HOUR, serial="B")])
    assert mixed.reason is not None
    assert "different drives" in mixed.reason


def test_untimed_samples_are_left_out_and_order_does_not_matter() -> None:
    series = hourly_series(12)
    shuffled = [*series[6:], sample(None, host=0.0), *series[:6]]
    report = analyse_series(shuffled)
    assert report.sample_times_s == tuple(h * HOUR for h in range(13))
    assert any("without a time" in n for n in report.notes)


def test_series_with_counter_reset_restarts_resolved_windows() -> None:
    series = hourly_series(20)
    reset = [
        sample(s.taken_at_s, host=0.0 if i >= 10 else s.host_written_bytes.value, nand=None)
        for i, s in enumerate(series)
    ]
    report = analyse_series(reset)
    assert any("went down" in (i.waf.reason or "") for i in report.intervals)
    assert report.resolved_windows == ()


def test_rating_over_a_series() -> None:
    times = [i * DAY for i in range(31)]
    samples = [sample(t, host=i * 200 * GB, wear=float(i // 3)) for i, t in enumerate(times)]
    report = analyse_series(samples, rated=RatedEndurance(600 * TB, None, 5, None))
    assert report.rating is not None
    assert report.rating.capacity_bytes == TB  # from the drive
    assert report.rating.observed_dwpd == pytest.approx(0.2)
    assert report.rating.rated_dwpd == pytest.approx(600 / (365 * 5))
    assert report.rating.days_to_rated_tbw == pytest.approx((600 * TB - 6 * TB) / (200 * GB))


def test_resolved_windows_skip_samples_without_counters() -> None:
    series = hourly_series(24)
    gappy = [
        sample(s.taken_at_s, host=None, nand=None) if i in (0, 7) else s
        for i, s in enumerate(series)
    ]
    windows = analyse_series(gappy).resolved_windows
    assert windows[0].start_s == 1 * HOUR  # the first sample has no counters
    assert all(w.waf.waf == pytest.approx(2.0, rel=0.05) for w in windows)
    assert all(7 * HOUR not in (w.start_s, w.end_s) for w in windows)
