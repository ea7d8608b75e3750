"""The binomial quantile the tails' order-statistic intervals need, without scipy.

Kept by hand for one reason: `analysis/tail_intervals.rank_bounds` runs for every pass of every
run a command shows (`quick`, `show`, `report`, `export`, `compare`), and importing scipy.stats
for `binom.ppf` alone took about half a second of each such command. scipy stays the
reference: tests/unit/analysis/test_binomial.py checks this against `scipy.stats.binom.ppf`.

`quantile(prob, n, q)` is the smallest k with P(X ≤ k) ≥ prob for X ~ binomial(n, q). The
probabilities are summed over a window around the mode, each term from its neighbour by the
ratio P(k + 1)/P(k) = (n − k)/(k + 1) · q/(1 − q), from 1 at the mode out to where a term is
below 1e-30 of it (about eleven standard deviations each way), and normalised by the window's
sum: no factorial or power is formed, so nothing overflows, and the mass left outside the
window (below 1e-28 of the whole) is far below a float's last bit at the levels asked for.
"""

import functools
import math

CUTOFF = 1e-30  # a term this small beside the mode's ends the window


def _window(n: int, q: float) -> tuple[int, list[float]]:
    """(first k, the terms P(k)/P(mode) from there on): the window holding all but a
    negligible part of binomial(n, q)'s mass."""
    mode = min(n, math.floor((n + 1) * q))
    odds = q / (1 - q)
    below: list[float] = []
    term, k = 1.0, mode
    while k > 0:
        term *= k / ((n - k + 1) * odds)  # P(k − 1)/P(k)
        k -= 1
        if term < CUTOFF:
            break
        below.append(term)
    above: list[float] = []
    term, k = 1.0, mode
    while k < n:
        term *= (n - k) / (k + 1) * odds  # P(k + 1)/P(k)
        k += 1
        if term < CUTOFF:
            break
        above.append(term)
    below.reverse()
    return mode - len(below), [*below, 1.0, *above]


@functools.cache
def quantile(prob: float, n: int, q: float) -> int:
    """The smallest k with P(X ≤ k) ≥ `prob` for X ~ binomial(n, q) (scipy's binom.ppf).
    ValueError for n < 1, or q or prob outside (0, 1)."""
    if n < 1 or not 0 < q < 1 or not 0 < prob < 1:
        raise ValueError(f"no binomial quantile here for prob={prob}, n={n}, q={q}")
    first, terms = _window(n, q)
    total = math.fsum(terms)
    running = 0.0
    for offset, term in enumerate(terms):
        running += term
        if running / total >= prob:
            return first + offset
    return first + len(terms) - 1
