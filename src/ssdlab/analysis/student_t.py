"""Student's two-sided t quantile for whole degrees of freedom, without scipy.

Kept by hand for one reason: importing scipy.stats takes about half a second and 60 MB, and
`ssdlab metrics` (a scrape of 1,000 drives in about a second) needs only t(0.975, n − 2) for
the wear slopes it fits. scipy stays the reference: `analysis/intervals.t_quantile` uses it for
every other case, and tests/unit/analysis/test_student_t.py checks this against
`scipy.stats.t.ppf` for 1–1,000 degrees of freedom.

For whole ν, the probability that |T| ≤ t is a finite sum in θ = atan(t / √ν) (Abramowitz and
Stegun 26.7.3–4):

- ν odd: (2/π)·(θ + sin θ·(cos θ + (2/3)·cos³ θ + … + (2·4···(ν−3))/(1·3···(ν−2))·cos^(ν−2) θ));
- ν even: sin θ·(1 + (1/2)·cos² θ + (1·3)/(2·4)·cos⁴ θ + …
  + (1·3···(ν−3))/(2·4···(ν−2))·cos^(ν−2) θ).

It rises from 0 to 1 as θ goes from 0 to π/2, so the quantile is found by bisection on θ to the
last bit of a float.
"""

import functools
import math

MAX_DF = 1000  # beyond it the sums grow long; scipy answers


def two_sided_probability(theta: float, df: int) -> float:
    """P(|T| ≤ √df·tan θ) for Student's t with `df` degrees of freedom."""
    sin, cos2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 1:
        total, term = 0.0, math.cos(theta)
        for k in range(1, df - 1, 2):  # k = 1, 3, …, ν − 2: term = (2·4···(k−1))/(1·3···k)·cos^k
            total += term
            term *= cos2 * (k + 1) / (k + 2)
        return (2 / math.pi) * (theta + sin * total)
    total, term = 0.0, 1.0
    for k in range(0, df - 1, 2):  # k = 0, 2, …, ν − 2: term = (1·3···(k−1))/(2·4···k)·cos^k
        total += term
        term *= cos2 * (k + 1) / (k + 2)
    return sin * total


@functools.cache
def quantile(df: int, level: float) -> float:
    """t((1 + level) / 2, df): the t with P(|T| ≤ t) = `level`. ValueError outside 1–MAX_DF
    degrees of freedom or a level outside (0, 1)."""
    if not 1 <= df <= MAX_DF or not 0 < level < 1:
        raise ValueError(f"no quantile here for df={df}, level={level}")
    low, high = 0.0, math.pi / 2
    while True:
        middle = (low + high) / 2
        if middle in (low, high):  # no float between them: the last bit is reached
            break
        if two_sided_probability(middle, df) < level:
            low = middle
        else:
            high = middle
    return math.sqrt(df) * math.tan(middle)
