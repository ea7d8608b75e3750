"""How sure a measured figure is: its 95 % interval, from repeats or from one pass's log.

**A figure measured N ≥ 2 times** (N repeats of the same fio job) is the mean of the repeats;
its uncertainty is the standard error s/√N with N − 1 degrees of freedom, and its interval is
Student's: mean ± t(0.975, N − 1) · s/√N. The spread between repeats is what a second run of
the same command would see (the drive's state, the host, the placement of the file), so this
is the interval that says whether a verdict would hold on the next run.

**A figure measured once with a per-second log** (fio's `log_avg_msec=1000`): the seconds are
cut into k batches of b = ⌊√m⌋ consecutive seconds (batch means, the standard method for the
mean of correlated simulation output: neighbouring seconds are not independent, batches of
them nearly are), and the interval is mean ± t(0.975, k − 1) · s_batches/√k. It says how
steady the pass was, not how the next run would differ: its `basis` says so.

**A figure measured once without a log** has no interval (`None`): the verdicts built on it say
"no interval (measured once)".

**Ratios** (aligned / misaligned IOPS, discarded / dirty, inside / beyond the cache, a fill
level against the emptiest, one run against another) are multiplicative, and IOPS and MB/s are
positive and skewed: the interval is Welch's on the logarithms — the difference of the two mean
logs ± t · √(s²ₐ/nₐ + s²ᵦ/nᵦ) with Welch–Satterthwaite degrees of freedom, exponentiated (a
ratio of geometric means). A noisy denominator widens it but never makes it reach zero or run
to infinity, as the interval on the raw values (Fieller's) does once the denominator's interval
touches zero: a reference of three null-engine passes scattered by 50 % against a real drive a
thousand times slower is a fall beyond doubt on the logarithms and "unbounded" on the raw
values. Values of zero (a pass that did no I/O) have no logarithm: Fieller's interval is used
then, `high` None when it has no upper end.

Why Student and Welch, not a percentile bootstrap over the repeats: a bootstrap resamples
the repeats it has, and three repeats have only ten distinct resampled means, so its interval
is far too narrow — it covers the truth in roughly three cases of four, not 19 in 20
(tests/unit/analysis/test_interval_coverage.py measures both). The bootstrap is used where it
does not run out of values: the knee of a sweep (analysis/knee_uncertainty.py) and a cache
cliff found in one write's log (analysis/cliff_uncertainty.py), each with its seed stored.
"""

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from ssdlab.analysis import student_t

LEVEL = 0.95
"""Every interval ssdlab gives is a 95 % interval."""


class Basis(StrEnum):
    """What an interval's spread was measured from."""

    REPEATS = "repeats"  # the spread between repeated passes: what the next run would see
    PER_SECOND = "per-second log"  # one pass's seconds: how steady that pass was
    ONCE = "once"  # measured once, no log: no spread, no interval
    # a latency percentile's interval (analysis/tail_intervals.py): `count` is its I/Os
    ORDER_STATISTICS = "order statistics"  # ranks of the I/Os, ends from ssdlab's histogram
    PERCENTILE_TABLE = "fio's percentile table"  # ranks of the I/Os, ends from fio's table
    FIO_HISTOGRAM = "fio's json+ histogram"  # ranks of the I/Os, ends from fio's bucket bounds
    BLOCK_BOOTSTRAP = "block bootstrap over seconds"  # `count` is its seconds (or windows)
    # a SNIA PTS window mean: Student's over the rounds of the steady-state measurement window
    WINDOW_ROUNDS = "rounds of the steady-state window"
    # a least-squares slope (analysis/wear.py): `count` is its points, n − 2 degrees of freedom
    LINE_FIT = "least-squares fit"


@dataclass(frozen=True, slots=True)
class Sample:
    """A measured figure: its mean, the standard error of that mean and its degrees of freedom
    (None when measured once without a log), how many values it came from (repeats, or batches
    of seconds) and what they were; and the mean and standard error of the values' logarithms
    (None when a value is not positive, or with no spread)."""

    mean: float
    se: float | None
    df: float | None
    count: int
    basis: str  # a Basis value
    log_mean: float | None = None
    log_se: float | None = None


def _with_logs(sample: Sample, values: Sequence[float]) -> Sample:
    """`sample` with the mean and standard error of the logs of `values` (its repeats or
    batch means), when every one is positive and there are two or more."""
    if len(values) < 2 or min(values) <= 0:
        return sample
    logs = [math.log(v) for v in values]
    se = statistics.stdev(logs) / math.sqrt(len(logs))
    return replace(sample, log_mean=statistics.fmean(logs), log_se=se)


@dataclass(frozen=True, slots=True)
class Interval:
    """A 95 % interval of a figure: `low` to `high` (None: unbounded on that side, when a
    ratio's denominator is not bounded away from zero by the data), its `level`, the `basis`
    it was computed from (a Basis value) and `count`, the repeats (or batches of seconds)."""

    low: float | None
    high: float | None
    level: float
    basis: str
    count: int

    @property
    def bounded(self) -> bool:
        return self.low is not None and self.high is not None

    def holds(self, value: float) -> bool:
        """Whether `value` lies in the interval (an unbounded side holds everything)."""
        return (self.low is None or self.low <= value) and (self.high is None or value <= self.high)


def t_quantile(df: float, level: float = LEVEL) -> float:
    """Student's two-sided quantile t((1 + level) / 2, df): for whole degrees of freedom up to
    1,000 from `analysis/student_t` (no scipy import, for `metrics`), else scipy's."""
    if df == int(df) and 1 <= df <= student_t.MAX_DF:
        return student_t.quantile(int(df), level)
    from scipy import stats

    return float(stats.t.ppf((1 + level) / 2, df))


def sample_of_repeats(values: Sequence[float]) -> Sample:
    """The mean of repeated passes; its standard error s/√N with N − 1 degrees of freedom
    (None with one pass). Raises ValueError for no values or a value that is not finite."""
    if not values:
        raise ValueError("a sample needs at least one value")
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"values must be finite, not {list(values)}")
    mean = statistics.fmean(values)
    if len(values) < 2:
        return Sample(mean, None, None, 1, Basis.ONCE.value)
    se = statistics.stdev(values) / math.sqrt(len(values))
    sample = Sample(mean, se, len(values) - 1.0, len(values), Basis.REPEATS.value)
    return _with_logs(sample, values)


def slope_interval(
    slope: float, stderr: float | None, points: int, level: float = LEVEL
) -> Interval | None:
    """Student's interval of a least-squares slope through `points` points: slope ± t(0.975,
    n − 2) · its standard error (scipy's `linregress` stderr); None without a standard error
    (two points fit exactly and say nothing about their scatter)."""
    if stderr is None or points < 3 or not math.isfinite(stderr):
        return None
    half = t_quantile(points - 2.0, level) * stderr
    return Interval(slope - half, slope + half, level, Basis.LINE_FIT.value, points)


def batch_size(points: int) -> int:
    """Seconds a batch of a per-second log holds: ⌊√m⌋ (1 for fewer than four)."""
    return max(1, math.isqrt(points))


def sample_of_seconds(mean: float, per_second: Sequence[float]) -> Sample:
    """One pass measured once: `mean` (fio's figure for the whole pass) with the standard error
    of batch means of its per-second values; no spread (se None) with fewer than two batches.
    A remainder of seconds that fills no batch is left out at the start (fio's ramp-up)."""
    finite = [v for v in per_second if math.isfinite(v)]
    size = batch_size(len(finite))
    batches = len(finite) // size
    if batches < 2:
        return Sample(mean, None, None, 1, Basis.ONCE.value)
    used = finite[len(finite) - batches * size :]
    means = [statistics.fmean(used[i * size : (i + 1) * size]) for i in range(batches)]
    se = statistics.stdev(means) / math.sqrt(batches)
    sample = Sample(mean, se, batches - 1.0, batches, Basis.PER_SECOND.value)
    return _with_logs(sample, means)


def sample_of(values: Sequence[float], per_second: Sequence[float] = ()) -> Sample:
    """The figure of a point measured `len(values)` times: from the repeats when there are two
    or more, else from the one pass's per-second values when it logged them."""
    if len(values) == 1 and per_second:
        return sample_of_seconds(values[0], per_second)
    return sample_of_repeats(values)


def mean_interval(sample: Sample, level: float = LEVEL) -> Interval | None:
    """Student's interval of the mean; None without a spread (measured once, no log)."""
    if sample.se is None or sample.df is None:
        return None
    half = t_quantile(sample.df, level) * sample.se
    return Interval(sample.mean - half, sample.mean + half, level, sample.basis, sample.count)


def ratio_interval(num: Sample, den: Sample, level: float = LEVEL) -> Interval | None:
    """The interval of num / den: Welch's on the logarithms when both sides' values are
    positive, else Fieller's (module text); None when either side has no spread or the
    denominator's mean is not positive."""
    if num.se is None or den.se is None or num.df is None or den.df is None or den.mean <= 0:
        return None
    logs = _log_ratio_interval(num, den, level)
    return logs if logs is not None else fieller_interval(num, den, level)


def _log_ratio_interval(num: Sample, den: Sample, level: float) -> Interval | None:
    if num.log_mean is None or den.log_mean is None or num.log_se is None or den.log_se is None:
        return None
    assert num.df is not None
    assert den.df is not None
    basis = num.basis if num.basis == den.basis else Basis.PER_SECOND.value
    count = min(num.count, den.count)
    difference = num.log_mean - den.log_mean
    va, vb = num.log_se**2, den.log_se**2
    if va + vb == 0:
        ratio = math.exp(difference)
        return Interval(ratio, ratio, level, basis, count)
    df = (va + vb) ** 2 / (va**2 / num.df + vb**2 / den.df)
    half = t_quantile(df, level) * math.sqrt(va + vb)
    return Interval(math.exp(difference - half), math.exp(difference + half), level, basis, count)


def fieller_interval(num: Sample, den: Sample, level: float = LEVEL) -> Interval | None:
    """Fieller's interval of num.mean / den.mean with Welch–Satterthwaite degrees of freedom:
    the ratios ρ for which num − ρ·den is not significantly different from zero; `high` None
    (unbounded) when the denominator is not significantly above zero."""
    if num.se is None or den.se is None or num.df is None or den.df is None or den.mean <= 0:
        return None
    a, b = num.mean, den.mean
    va, vb = num.se**2, den.se**2
    basis = num.basis if num.basis == den.basis else Basis.PER_SECOND.value
    count = min(num.count, den.count)
    ratio = a / b
    if va == 0 and vb == 0:
        return Interval(ratio, ratio, level, basis, count)
    part_b = ratio**2 * vb
    df = (va + part_b) ** 2 / (va**2 / num.df + part_b**2 / den.df)
    t = t_quantile(df, level)
    lead = b * b - t * t * vb
    if lead <= 0:
        return Interval(None, None, level, basis, count)
    root = t * math.sqrt(a * a * vb + b * b * va - t * t * va * vb)
    return Interval((a * b - root) / lead, (a * b + root) / lead, level, basis, count)


def ratio_of_samples(num: Sample, den: Sample) -> float | None:
    """num.mean / den.mean; None when the denominator is not positive."""
    return None if den.mean <= 0 else num.mean / den.mean


def relative_half_width(interval: Interval | None, value: float) -> float | None:
    """Half the interval's width as a fraction of `value` (±0.021 for ±2.1 %); None without a
    bounded interval or for a value of 0."""
    if interval is None or interval.low is None or interval.high is None or value == 0:
        return None
    return (interval.high - interval.low) / 2 / abs(value)
