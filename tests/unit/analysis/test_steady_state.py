"""SNIA PTS steady state (pts.md §2): hand-computed windows, exact boundaries, and an independent
oracle (numpy.polyfit and a brute-force float re-implementation) under hypothesis."""

import math

import numpy as np
import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from ssdlab.analysis.steady_state import (
    SteadyStateVerdict,
    WindowCheck,
    check_window,
    detect_steady_state,
)


def window_of(values: list[float], first_round: int = 1) -> WindowCheck:
    return check_window("y", values, first_round=first_round)


# --- single windows, arithmetic written out -------------------------------------------------
#
# For rounds x = 1..5, x̄ = 3 and Σ(x − x̄)² = 4 + 1 + 0 + 1 + 4 = 10, so
# m = Σ(x − x̄)·y / 10 and b = ȳ − 3·m.


def test_flat_window_passes_with_zero_excursions() -> None:
    check = window_of([100.0] * 5)
    assert check.rounds == (1, 5)
    assert check.average == 100.0
    assert check.data_excursion == 0.0
    assert check.slope == 0.0
    assert check.slope_excursion == 0.0
    assert check.intercept == 100.0
    assert check.allowed_data_excursion == 20.0
    assert check.allowed_slope_excursion == 10.0
    assert check.passes_range
    assert check.passes_slope
    assert check.passes


def test_data_excursion_of_exactly_20_pct_passes() -> None:
    # y = 90, 110, 100, 100, 100: Σ = 500, Ave = 100, range = 110 − 90 = 20 = 20 % of 100.
    # Σ(x − x̄)·y = −2·90 − 1·110 + 0 + 1·100 + 2·100 = 10 → m = 1, slope excursion 4·1 = 4 ≤ 10.
    check = window_of([90.0, 110.0, 100.0, 100.0, 100.0])
    assert check.average == 100.0
    assert check.data_excursion == 20.0
    assert check.allowed_data_excursion == 20.0
    assert check.data_excursion_pct == 20.0
    assert check.slope == 1.0
    assert check.intercept == 97.0
    assert check.slope_excursion == 4.0
    assert check.passes_range
    assert check.passes_slope
    assert check.passes


def test_data_excursion_just_above_20_pct_fails() -> None:
    # y = 90, 110.001, 100, 100, 99.999: Σ = 500, Ave = 100, range = 20.001 > 20.
    # Σ(x − x̄)·y = −180 − 110.001 + 0 + 100 + 199.998 = 9.997 → m = 0.9997, excursion 3.9988.
    check = window_of([90.0, 110.001, 100.0, 100.0, 99.999])
    assert check.data_excursion == pytest.approx(20.001)
    assert check.slope == pytest.approx(0.9997)
    assert not check.passes_range
    assert check.passes_slope
    assert not check.passes


def test_slope_excursion_of_exactly_10_pct_passes() -> None:
    # y = 95, 97.5, 100, 102.5, 105 (a straight line): Ave = 100, range = 10 (10 % ≤ 20 %).
    # Σ(x − x̄)·y = −190 − 97.5 + 0 + 102.5 + 210 = 25 → m = 2.5, b = 100 − 3·2.5 = 92.5,
    # slope excursion = |m|·(5 − 1) = 10 = 10 % of 100.
    check = window_of([95.0, 97.5, 100.0, 102.5, 105.0])
    assert check.slope == 2.5
    assert check.intercept == 92.5
    assert check.slope_excursion == 10.0
    assert check.allowed_slope_excursion == 10.0
    assert check.slope_excursion_pct == 10.0
    assert check.passes_range
    assert check.passes_slope
    assert check.passes


def test_slope_excursion_just_above_10_pct_fails() -> None:
    # y = 100 + 2.5001·(x − 3): Ave = 100, m = 2.5001, excursion 10.0004 > 10; range 10.0004 ≤ 20.
    values = [100.0 + 2.5001 * (x - 3) for x in range(1, 6)]
    check = window_of(values)
    assert check.slope == pytest.approx(2.5001)
    assert check.slope_excursion == pytest.approx(10.0004)
    assert check.passes_range
    assert not check.passes_slope
    assert not check.passes


def test_falling_line_fails_slope_by_absolute_value() -> None:
    # y = 105, 102.5, 100, 97.5, 95: m = −2.5, excursion |m|·4 = 10 → passes; steeper fails.
    assert window_of([105.0, 102.5, 100.0, 97.5, 95.0]).passes
    steeper = window_of([106.0, 103.0, 100.0, 97.0, 94.0])  # m = −3, excursion 12 > 10
    assert steeper.slope == -3.0
    assert not steeper.passes_slope


def test_passes_range_but_fails_slope() -> None:
    # y = 94, 97, 100, 103, 106: Ave = 100, range 12 (≤ 20) passes;
    # Σ(x − x̄)·y = −188 − 97 + 0 + 103 + 212 = 30 → m = 3, excursion 12 > 10 fails.
    check = window_of([94.0, 97.0, 100.0, 103.0, 106.0])
    assert (check.data_excursion, check.slope, check.slope_excursion) == (12.0, 3.0, 12.0)
    assert check.passes_range
    assert not check.passes_slope
    assert not check.passes


def test_passes_slope_but_fails_range() -> None:
    # y = 110, 85, 100, 115, 90: Σ = 500, Ave = 100, range 115 − 85 = 30 > 20 fails;
    # Σ(x − x̄)·y = −220 − 85 + 0 + 115 + 180 = −10 → m = −1, b = 100 + 3 = 103, excursion 4 ≤ 10.
    check = window_of([110.0, 85.0, 100.0, 115.0, 90.0])
    assert check.data_excursion == 30.0
    assert check.data_excursion_pct == 30.0
    assert check.slope == -1.0
    assert check.intercept == 103.0
    assert check.slope_excursion == 4.0
    assert not check.passes_range
    assert check.passes_slope
    assert not check.passes


def test_fit_uses_round_numbers_not_window_positions() -> None:
    # The same values in rounds 8..12: x̄ = 10, m unchanged (2.5), b = 100 − 10·2.5 = 75.
    check = window_of([95.0, 97.5, 100.0, 102.5, 105.0], first_round=8)
    assert check.rounds == (8, 12)
    assert check.slope == 2.5
    assert check.intercept == 75.0


def test_range_criterion_is_max_minus_min_not_distance_from_average() -> None:
    # pts.md §2.2: y = 1, 1, 1, 1, 0.81: Ave = 0.962, range 0.19 = 19.75 % of Ave → (a) passes
    # although 0.81 is 15.8 % below Ave (a ±10 % band would reject it). Slope: Σ(x − x̄)·y =
    # −2 − 1 + 0 + 1 + 1.62 = −0.38 → m = −0.038, excursion 0.152 = 15.8 % > 10 % → (b) fails.
    check = window_of([1.0, 1.0, 1.0, 1.0, 0.81])
    assert check.data_excursion_pct == pytest.approx(100 * 0.19 / 0.962)
    assert check.passes_range
    assert check.slope == pytest.approx(-0.038)
    assert not check.passes_slope


def test_zero_average_is_not_steady_and_has_no_percentages() -> None:
    check = window_of([0.0] * 5)
    assert check.average == 0.0
    assert check.data_excursion_pct is None
    assert check.slope_excursion_pct is None
    assert not check.passes


def test_custom_limits() -> None:
    # y = 94, 97, 100, 103, 106: range 12 %, slope excursion 12 %.
    values = [94.0, 97.0, 100.0, 103.0, 106.0]
    assert check_window("y", values, first_round=1, max_slope_excursion_pct=12.0).passes
    tight = check_window("y", values, first_round=1, max_data_excursion_pct=11.9)
    assert not tight.passes_range


# --- the search over rounds -------------------------------------------------------------------


def test_first_window_where_all_variables_pass_together() -> None:
    # a: steady in rounds 1-5 (flat 100), then drops to 60 in round 8; steady again in 8-12.
    # b: falls from 200 to 100 by round 4; windows ending 5, 6, 7 fail:
    #   1-5 [200,150,120,100,100] range 100; 2-6 [150,120,100,100,100] Ave 114, range 50 > 22.8;
    #   3-7 [120,100,100,100,100] Ave 104, range 20 ≤ 20.8 but Σ(x − x̄)·y = −240 − 100 + 0 +
    #   100 + 200 = −40 → m = −4, excursion 16 > 10.4; 4-8 onwards flat 100 → pass.
    # a fails every window holding both 100 and 60 (4-8 … 7-11: range 40 > 20 % of ≤ 92).
    # First common window: 8-12.
    a = [100.0] * 7 + [60.0] * 5
    b = [200.0, 150.0, 120.0] + [100.0] * 9
    assert check_window("a", a[0:5], first_round=1).passes
    assert check_window("b", b[3:8], first_round=4).passes
    three_to_seven = check_window("b", b[2:7], first_round=3)
    assert three_to_seven.passes_range
    assert not three_to_seven.passes_slope
    assert three_to_seven.slope == -4.0

    verdict = detect_steady_state({"a": a, "b": b})
    assert verdict.steady
    assert verdict.reason is None
    assert verdict.window == verdict.measurement_window == (8, 12)
    assert verdict.rounds_examined == 12
    assert [c.variable for c in verdict.checks] == ["a", "b"]
    assert all(c.rounds == (8, 12) and c.passes for c in verdict.checks)
    assert detect_steady_state({"a": a}).window == (1, 5)
    assert detect_steady_state({"b": b}).window == (4, 8)


def test_fresh_drive_cliff_is_steady_only_past_the_fall() -> None:
    # FOB: fast, then the write cliff, then a slow settle.
    iops = [520.0, 510.0, 480.0, 300.0, 180.0, 130.0, 110.0, 104.0, 100.0, 98.0, 97.0, 97.0]
    # 5-9  [180,130,110,104,100]: range 80 ≫ 20 %.
    # 6-10 [130,110,104,100,98]: Σ = 542, Ave 108.4, range 32 > 21.68.
    # 7-11 [110,104,100,98,97]: Σ = 509, Ave 101.8, range 13 ≤ 20.36 passes;
    #      Σ(x − x̄)·y = −220 − 104 + 0 + 98 + 194 = −32 → m = −3.2, excursion 12.8 > 10.18 fails.
    # 8-12 [104,100,98,97,97]: Σ = 496, Ave 99.2, range 7 ≤ 19.84;
    #      Σ(x − x̄)·y = −208 − 100 + 0 + 97 + 194 = −17 → m = −1.7, excursion 6.8 ≤ 9.92;
    #      b = 99.2 − 10·(−1.7) = 116.2.
    seven_to_eleven = check_window("iops", iops[6:11], first_round=7)
    assert seven_to_eleven.passes_range
    assert not seven_to_eleven.passes_slope
    assert seven_to_eleven.slope == pytest.approx(-3.2)

    verdict = detect_steady_state({"iops": iops})
    assert verdict.steady
    assert verdict.window == (8, 12)
    (check,) = verdict.checks
    assert check.values == (104.0, 100.0, 98.0, 97.0, 97.0)
    assert check.average == pytest.approx(99.2)
    assert check.data_excursion == 7.0
    assert check.slope == pytest.approx(-1.7)
    assert check.intercept == pytest.approx(116.2)
    assert check.slope_excursion == pytest.approx(6.8)
    assert check.allowed_slope_excursion == pytest.approx(9.92)


def test_not_steady_within_25_rounds() -> None:
    # Alternating 100, 150: every window has range 50 > 20 % of an average ≤ 130.
    values = [100.0 if r % 2 else 150.0 for r in range(1, 26)]
    verdict = detect_steady_state({"iops": values})
    assert not verdict.steady
    assert verdict.window is None
    assert verdict.reason == "not steady after 25 rounds"
    assert verdict.rounds_examined == 25
    assert verdict.max_rounds == 25
    assert verdict.measurement_window == (21, 25)
    (check,) = verdict.checks
    assert check.rounds == (21, 25)
    assert not check.passes_range


def test_rounds_past_max_rounds_are_not_examined() -> None:
    # Steady only in rounds 26-30: not steady under the default limit of 25; steady with 30.
    values = [100.0 if r % 2 else 150.0 for r in range(1, 26)] + [120.0] * 5
    verdict = detect_steady_state({"iops": values})
    assert not verdict.steady
    assert verdict.rounds_examined == 25
    assert verdict.measurement_window == (21, 25)
    longer = detect_steady_state({"iops": values}, max_rounds=30)
    assert longer.steady
    assert longer.window == (26, 30)
    assert longer.max_rounds == 30


def test_still_running_is_not_steady_yet() -> None:
    verdict = detect_steady_state({"iops": [100.0, 150.0] * 4})
    assert not verdict.steady
    assert verdict.rounds_examined == 8
    assert verdict.reason == "not steady after 8 rounds"
    assert verdict.measurement_window == (4, 8)


def test_too_few_rounds() -> None:
    verdict = detect_steady_state({"iops": [100.0, 100.0, 100.0]})
    assert verdict == SteadyStateVerdict(
        steady=False,
        window=None,
        measurement_window=None,
        rounds_examined=3,
        max_rounds=25,
        checks=(),
        criteria=verdict.criteria,
        reason="only 3 rounds; a window needs 5",
    )
    assert detect_steady_state({"iops": []}).reason == "only 0 rounds; a window needs 5"


def test_criteria_are_reported() -> None:
    criteria = detect_steady_state({"iops": [1.0] * 5}).criteria
    assert criteria.window_rounds == 5
    assert criteria.max_rounds == 25
    assert criteria.max_data_excursion_pct == 20.0
    assert criteria.max_slope_excursion_pct == 10.0
    assert "2.1.24" in criteria.spec


def test_window_size_is_a_parameter() -> None:
    # Window of 3 over [130, 100, 100, 100]: 1-3 range 30 > 22 fails; 2-4 flat passes.
    verdict = detect_steady_state({"iops": [130.0, 100.0, 100.0, 100.0]}, window=3)
    assert verdict.window == (2, 4)
    assert verdict.criteria.window_rounds == 3
    # slope excursion over 3 rounds is |m|·2: y = 95, 100, 105 → m = 5, 10 = 10 % → passes.
    three = check_window("y", [95.0, 100.0, 105.0], first_round=1)
    assert three.slope_excursion == 10.0
    assert three.passes


@pytest.mark.parametrize(
    ("tracking", "message"),
    [
        ({}, "no tracking variables"),
        ({"a": [1.0] * 5, "b": [1.0] * 6}, "different numbers of rounds"),
        ({"a": [1.0, math.nan, 1.0, 1.0, 1.0]}, "round 2"),
        ({"a": [1.0, 1.0, math.inf, 1.0, 1.0]}, "round 3"),
        ({"a": [1.0, 1.0, 1.0, -1.0, 1.0]}, "finite number ≥ 0"),
    ],
)
def test_bad_input_is_refused(tracking: dict[str, list[float]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        detect_steady_state(tracking)


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 2 rounds"):
        detect_steady_state({"a": [1.0] * 5}, window=1)
    with pytest.raises(ValueError, match="shorter than the window"):
        detect_steady_state({"a": [1.0] * 5}, max_rounds=4)
    with pytest.raises(ValueError, match="percentage"):
        detect_steady_state({"a": [1.0] * 5}, max_slope_excursion_pct=-1.0)
    with pytest.raises(ValueError, match="at least 2 rounds"):
        check_window("a", [1.0], first_round=1)
    with pytest.raises(ValueError, match="numbered from 1"):
        check_window("a", [1.0, 1.0], first_round=0)


# --- independent oracle -----------------------------------------------------------------------

MARGIN = 1e-9  # relative distance from a limit below which float and exact arithmetic may differ


def oracle(
    tracking: dict[str, list[float]], window: int, max_rounds: int
) -> tuple[tuple[int, int] | None, bool]:
    """Brute force in floats with numpy: (first passing window, whether any test was marginal)."""
    n = min(len(next(iter(tracking.values()))), max_rounds)
    marginal = False
    for last in range(window, n + 1):
        first = last - window + 1
        x = np.arange(first, last + 1, dtype=float)
        all_pass = True
        for values in tracking.values():
            y = np.array(values[first - 1 : last], dtype=float)
            ave = float(y.mean())
            data_exc = float(y.max() - y.min())
            m = float(np.polyfit(x, y, 1)[0])
            slope_exc = abs(m) * (window - 1)
            for measured, allowed in ((data_exc, 0.2 * ave), (slope_exc, 0.1 * ave)):
                if abs(measured - allowed) <= MARGIN * max(ave, 1e-300):
                    marginal = True
            all_pass = all_pass and ave > 0 and data_exc <= 0.2 * ave and slope_exc <= 0.1 * ave
        if all_pass:
            return (first, last), marginal
    return None, marginal


@st.composite
def tracked_series(draw: st.DrawFn) -> tuple[dict[str, list[float]], int, int]:
    """1–3 variables around a level, with noise (±15 %) and a trend, so both verdicts occur."""
    window = draw(st.integers(2, 6))
    max_rounds = draw(st.integers(window, 30))
    rounds = draw(st.integers(0, 32))
    tracking: dict[str, list[float]] = {}
    for index in range(draw(st.integers(1, 3))):
        level = draw(st.floats(1e-3, 1e7))
        trend = draw(st.floats(-0.05, 0.05))
        noise = draw(st.lists(st.floats(-0.15, 0.15), min_size=rounds, max_size=rounds))
        tracking[f"v{index}"] = [
            max(0.0, level * (1 + trend * (r - rounds / 2) + e)) for r, e in enumerate(noise)
        ]
    return tracking, window, max_rounds


@settings(max_examples=200, deadline=None)
@given(tracked_series())
def test_matches_brute_force_oracle(case: tuple[dict[str, list[float]], int, int]) -> None:
    tracking, window, max_rounds = case
    expected, marginal = oracle(tracking, window, max_rounds)
    assume(not marginal)
    verdict = detect_steady_state(tracking, window=window, max_rounds=max_rounds)
    event("steady" if expected else "not steady")
    assert verdict.window == expected
    assert verdict.steady == (expected is not None)
    for check in verdict.checks:
        first, last = check.rounds
        x = np.arange(first, last + 1, dtype=float)
        y = np.array(check.values)
        m, b = np.polyfit(x, y, 1)
        scale = max(float(np.abs(y).max()), 1e-300)
        assert check.slope == pytest.approx(m, abs=1e-9 * scale)
        assert check.intercept == pytest.approx(b, rel=1e-9, abs=1e-9 * scale * last)
        assert check.average == pytest.approx(float(y.mean()), rel=1e-12)
        assert check.data_excursion == pytest.approx(float(np.ptp(y)), rel=1e-12, abs=0.0)
        assert check.slope_excursion == pytest.approx(abs(m) * (window - 1), abs=1e-9 * scale)
        assert check.passes == (check.passes_range and check.passes_slope)


@settings(max_examples=200, deadline=None)
@given(tracked_series(), st.integers(-20, 20))
def test_scaling_by_a_power_of_two_changes_nothing(
    case: tuple[dict[str, list[float]], int, int], exponent: int
) -> None:
    # Multiplying by 2^k is exact in floats, and both criteria are relative to the average.
    tracking, window, max_rounds = case
    scaled = {k: [math.ldexp(v, exponent) for v in values] for k, values in tracking.items()}
    a = detect_steady_state(tracking, window=window, max_rounds=max_rounds)
    b = detect_steady_state(scaled, window=window, max_rounds=max_rounds)
    assert (a.steady, a.window, a.measurement_window) == (b.steady, b.window, b.measurement_window)
    assert [c.passes_range for c in a.checks] == [c.passes_range for c in b.checks]
    assert [c.passes_slope for c in a.checks] == [c.passes_slope for c in b.checks]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0.0, 1e6), min_size=2, max_size=8),
    st.integers(1, 1000),
)
def test_moving_the_window_in_rounds_keeps_slope_and_verdict(
    values: list[float], first: int
) -> None:
    at_one = check_window("y", values, first_round=1)
    moved = check_window("y", values, first_round=first)
    assert (moved.passes_range, moved.passes_slope) == (at_one.passes_range, at_one.passes_slope)
    assert moved.slope == at_one.slope
    # the line is the same line: b moves by −m·(first − 1)
    scale = max(max(values), 1.0)
    assert moved.intercept == pytest.approx(
        at_one.intercept - at_one.slope * (first - 1), abs=1e-9 * scale * first
    )
