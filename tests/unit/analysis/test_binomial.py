"""The binomial quantile without scipy (analysis/binomial.py) against scipy's binom.ppf, for
the percentiles and levels the tails use and for counts from one I/O to ten million."""

import random

import pytest
from scipy.stats import binom

from ssdlab.analysis import binomial
from ssdlab.analysis.tail_intervals import tail_fraction

PERCENTILES = (1.0, 50.0, 90.0, 99.0, 99.5, 99.9, 99.95, 99.99, 99.999, 99.9999)
LEVELS = (0.9, 0.95, 0.99)


def _counts() -> list[int]:
    chosen = random.Random(20261129)  # a fixed draw: the same counts every run
    return [*range(1, 400), *(10**k for k in range(3, 8)), *chosen.sample(range(400, 10**6), 12)]


@pytest.mark.parametrize("pct", PERCENTILES)
def test_every_count_agrees_with_scipy_exactly(pct: float) -> None:
    q = 1 - tail_fraction(pct)
    differ = []
    for level in LEVELS:
        for n in _counts():
            for prob in ((1 - level) / 2, (1 + level) / 2):
                expected = int(binom.ppf(prob, n, q))
                got = binomial.quantile(prob, n, q)
                if got != expected:
                    differ.append((n, prob, expected, got))
    assert differ == []


def test_the_quantile_is_the_smallest_k_whose_cdf_reaches_the_probability() -> None:
    # binomial(2, 1/2): P(X ≤ 0) = 1/4, P(X ≤ 1) = 3/4, P(X ≤ 2) = 1
    assert [binomial.quantile(p, 2, 0.5) for p in (0.1, 0.25, 0.3, 0.75, 0.8)] == [0, 0, 1, 1, 2]
    # a single trial: P(X ≤ 0) = 1 − q
    assert binomial.quantile(0.5, 1, 0.99) == 1
    assert binomial.quantile(0.005, 1, 0.99) == 0


@pytest.mark.parametrize(("prob", "n", "q"), [(0.5, 0, 0.5), (0.0, 5, 0.5), (1.0, 5, 0.5),
                                              (0.5, 5, 0.0), (0.5, 5, 1.0)])  # fmt: skip
def test_outside_its_range_it_says_so(prob: float, n: int, q: float) -> None:
    with pytest.raises(ValueError, match="no binomial quantile here"):
        binomial.quantile(prob, n, q)
