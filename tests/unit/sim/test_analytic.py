"""The closed forms against scipy's Lambert W and against ftl.md's computed tables."""

import pytest
from scipy.special import lambertw

from ssdlab.sim.analytic import (
    greedy_victim_valid,
    lambertw0,
    lifetime_ratio,
    steady_levels,
    trim_live_fraction,
    wa_agarwal,
    wa_fifo,
    wa_fifo_hotcold,
    wa_greedy,
    wa_random,
)


@pytest.mark.parametrize("x", [-0.3678, -0.35, -0.3, -0.2, -0.05, -1e-6])
def test_lambertw0_matches_scipy(x: float) -> None:
    assert lambertw0(x) == pytest.approx(float(lambertw(x, 0).real), abs=1e-7)


# ftl.md Table A (spare ÷ logical): α, Agarwal, FIFO, greedy Np=64, 128, 256, 1024, random
TABLE_A = [
    (1.07, 7.64, 7.82, 7.00, 7.39, 7.60, 7.76, 15.29),
    (1.125, 4.50, 4.68, 4.38, 4.53, 4.60, 4.66, 9.00),
    (1.20, 3.00, 3.19, 3.05, 3.12, 3.15, 3.18, 6.00),
    (1.25, 2.50, 2.69, 2.60, 2.64, 2.67, 2.69, 5.00),
    (1.28, 2.29, 2.48, 2.40, 2.44, 2.46, 2.48, 4.57),
    (1.50, 1.50, 1.72, 1.68, 1.70, 1.71, 1.71, 3.00),
    (2.00, 1.00, 1.26, 1.24, 1.25, 1.25, 1.25, 2.00),
]


@pytest.mark.parametrize("row", TABLE_A)
def test_closed_forms_reproduce_the_reference_table(row: tuple[float, ...]) -> None:
    alpha, agarwal, fifo, g64, g128, g256, g1024, rnd = row
    assert wa_agarwal(alpha) == pytest.approx(agarwal, abs=0.006)
    assert wa_fifo(alpha) == pytest.approx(fifo, abs=0.006)
    for np_, expected in ((64, g64), (128, g128), (256, g256), (1024, g1024)):
        assert wa_greedy(alpha, np_) == pytest.approx(expected, abs=0.006)
    assert wa_random(alpha) == pytest.approx(rnd, abs=0.006)


def test_greedy_tends_to_fifo_as_blocks_grow() -> None:
    assert wa_greedy(1.07, 1 << 20) == pytest.approx(wa_fifo(1.07), rel=1e-4)


@pytest.mark.parametrize(
    ("alpha", "writes", "space", "expected"),
    [
        (1.0737, 0.8, 0.2, 7.82),
        (1.0737, 0.9, 0.1, 8.50),
        (1.25, 0.9, 0.1, 3.53),
        (1.5, 0.8, 0.2, 2.03),
    ],
)
def test_fifo_hotcold_formula(alpha: float, writes: float, space: float, expected: float) -> None:
    assert wa_fifo_hotcold(alpha, writes, space) == pytest.approx(expected, abs=0.011)
    # no skew: the uniform FIFO formula
    assert wa_fifo_hotcold(alpha, 0.5, 0.5) == pytest.approx(wa_fifo(alpha), rel=1e-6)


def test_trim_live_fraction_and_lifetime_ratio() -> None:
    assert trim_live_fraction(0.1) == pytest.approx(0.889, abs=5e-4)
    assert trim_live_fraction(0.3) == pytest.approx(0.571, abs=5e-4)
    assert lifetime_ratio(7.0, 3.5) == 2.0


def test_steady_levels_place_every_logical_page_once() -> None:
    levels = steady_levels(
        native_blocks=1100, pages_per_block=64, logical_pages=64_000, free_blocks=2
    )
    assert len(levels) == 1100 - 3
    assert sum(levels) == 64_000
    assert all(0 <= v <= 64 for v in levels)
    # the emptiest blocks hold what the greedy model says a victim holds
    alpha = (1100 - 3) * 64 / 64_000
    assert min(levels) == pytest.approx(greedy_victim_valid(alpha, 64), abs=1.5)
