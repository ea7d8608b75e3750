"""Student's t quantile without scipy (analysis/student_t.py) against scipy's, for every whole
number of degrees of freedom it answers and the levels ssdlab uses."""

import math

import pytest
from scipy import stats

from ssdlab.analysis import student_t
from ssdlab.analysis.intervals import t_quantile

LEVELS = (0.5, 0.8, 0.9, 0.95, 0.99, 0.999)


@pytest.mark.parametrize("level", LEVELS)
def test_every_whole_df_agrees_with_scipy_to_the_last_digits(level: float) -> None:
    worst = 0.0
    for df in range(1, student_t.MAX_DF + 1):
        expected = float(stats.t.ppf((1 + level) / 2, df))
        got = student_t.quantile(df, level)
        worst = max(worst, abs(got - expected) / expected)
    assert worst < 1e-12, worst


def test_known_table_values() -> None:
    # printed tables (two-sided 95 %): 12.706 (1), 4.303 (2), 2.228 (10), 2.009 (50)
    assert [round(student_t.quantile(df, 0.95), 3) for df in (1, 2, 10, 50)] == [
        12.706, 4.303, 2.228, 2.009,
    ]  # fmt: skip
    assert student_t.quantile(1, 0.95) == pytest.approx(math.tan(math.pi * 0.475), rel=1e-14)
    assert student_t.quantile(2, 0.95) == pytest.approx(
        math.sqrt(2 / (0.05 * (2 - 0.05)) - 2), rel=1e-14
    )


def test_fractional_and_large_df_go_to_scipy() -> None:
    assert t_quantile(7.5) == float(stats.t.ppf(0.975, 7.5))
    assert t_quantile(5000.0) == float(stats.t.ppf(0.975, 5000.0))
    assert t_quantile(7.0) == student_t.quantile(7, 0.95)


@pytest.mark.parametrize(("df", "level"), [(0, 0.95), (1001, 0.95), (5, 0.0), (5, 1.0)])
def test_outside_its_range_it_says_so(df: int, level: float) -> None:
    with pytest.raises(ValueError, match="no quantile here"):
        student_t.quantile(df, level)
