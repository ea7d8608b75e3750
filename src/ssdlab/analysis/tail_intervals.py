"""Tails you can trust: every latency percentile from p99 up with the number of I/Os it was
estimated from, how many lie above it, and its 95 % interval — or "needs ≥ N I/Os".

**The interval from order statistics** (distribution-free): of n I/Os, the number B at or below
the true q-quantile ξ is binomial(n, q) whatever the latency's distribution. With
l = binom.ppf(0.025; n, q) and u = binom.ppf(0.975; n, q) + 1, the l-th smallest I/O lies
above ξ with probability P(B < l) < 2.5 % and the u-th lies below it with probability
P(B ≥ u) ≤ 2.5 %, so [x₍l₎, x₍u₎] holds ξ in at least 95 % of runs (the quantiles from
`analysis/binomial`, scipy's binom.ppf without importing scipy). Only ranks are assumed, so
a histogram or a percentile table can give the ends:

- from ssdlab's log histogram (`ssdlab latency`): the lowest value of the bucket holding rank
  l and the highest of the bucket holding rank u, so the bucket error (0.39 % each way) widens
  the interval rather than moving it;
- from fio's percentile table (quick, PTS LAT): the value fio lists at the highest percentile
  whose rank is at most l and at the lowest whose rank is at least u (the rank of fio's
  percentile p being ⌈p/100 · n⌉). When the table lists nothing at or beyond a needed rank,
  that end is unknown and said so: no value is invented.

**Needs ≥ N I/Os.** A percentile is estimable from n I/Os when its upper rank u is at most n:
otherwise the interval's upper end would be an I/O that was never measured, and the interval
is unbounded above. u ≤ n exactly when qⁿ ≤ 2.5 %, so the least n is
N(q) = ⌈ln 0.025 / ln q⌉: 368 I/Os for p99, 3,688 for p99.9, 36,887 for p99.99 and 3,688,878
for p99.9999 (about 3.7 I/Os expected above the percentile). Below N(q) the percentile is
printed "needs ≥ N I/Os", never as a number.

**Bursty tails: a block bootstrap over seconds.** Order statistics assume the I/Os are
independent; a drive that stalls for a second at a time puts its slow I/Os together, and then
the tail moves more from run to run than independent I/Os would. Where the log has per-second
histograms, blocks of ∛m consecutive seconds (m seconds; more than 2,000 are first merged
into 2,000 windows) are drawn with replacement `DRAWS` times, and the 2.5th and 97.5th
percentiles of the draws' percentile make a second
interval (each draw's percentile is the midpoint of its bucket in the per-second histograms,
2^4 sub-buckets per power of two: steady seconds give draws in one bucket and add nothing, a
stall that comes and goes spreads them), its seed taken from the data and kept with it. The
interval a tail is judged by (`envelope`) spans both: the wider claim stands.
"""

import math
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ssdlab.analysis import binomial
from ssdlab.analysis.intervals import LEVEL, Basis, Interval
from ssdlab.model.json_fields import encode

if TYPE_CHECKING:  # numpy is imported by the first histogram, not by every command with tails
    import numpy as np
    import numpy.typing as npt

    Ints = npt.NDArray[np.int64]

TAIL_FROM = 99.0
"""Percentiles from this one up carry n, the I/Os above them and an interval."""
DRAWS = 1000
MIN_SECONDS = 10  # fewer seconds than this: no block bootstrap
MOST_WINDOWS = 2000
BucketBounds = Callable[[int], tuple[int, int]]


def tail_fraction(pct: float) -> float:
    """1 − q for a percentile given in per cent, without the float noise of 100 − 99.9999."""
    return round(100.0 - pct, 9) / 100.0


def needs_ios(pct: float, level: float = LEVEL) -> int:
    """The fewest I/Os from which the percentile has a bounded interval (module text):
    ⌈ln((1 − level)/2) / ln q⌉."""
    tail = tail_fraction(pct)
    if tail <= 0:
        raise ValueError(f"p{pct:g} has no finite interval: no number of I/Os bounds it")
    return math.ceil(math.log((1 - level) / 2) / math.log1p(-tail) - 1e-9)


def nearest_rank(n: int, pct: float) -> int:
    """The rank of the nearest-rank percentile: ⌈q · n⌉ (at least 1)."""
    return max(1, math.ceil((1 - tail_fraction(pct)) * n - 1e-9))


def rank_bounds(n: int, pct: float, level: float = LEVEL) -> tuple[int, int] | None:
    """(l, u): the ranks (from 1) of the order statistics that bound the percentile at `level`;
    None when it needs more I/Os than `n`."""
    if n < needs_ios(pct, level):
        return None
    q = 1 - tail_fraction(pct)
    alpha = (1 - level) / 2
    low = binomial.quantile(alpha, n, q)  # scipy's binom.ppf, without importing scipy.stats
    high = binomial.quantile(1 - alpha, n, q) + 1
    return max(1, low), min(n, high)


@dataclass(frozen=True, slots=True)
class TailEstimate:
    """One percentile from p99 up: `n` I/Os, `above` of them ranked above it (n − ⌈q·n⌉), the
    I/Os it needs (`needs`); its `value_ns` and 95 % `interval` (order statistics) when
    estimable, and the block bootstrap's interval over seconds (`bootstrap`, with its `seed`)
    where per-second data exist. `unknown` says why an end of the interval is not given."""

    pct: float
    n: int
    needs: int
    value_ns: float | None
    above: int | None
    interval: Interval | None
    bootstrap: Interval | None = None
    seed: int | None = None
    unknown: str | None = None

    @property
    def estimable(self) -> bool:
        return self.n >= self.needs

    @property
    def envelope(self) -> Interval | None:
        """The interval a tail is judged by: the order statistics' and the bootstrap's together
        (an unknown end stays unknown)."""
        if self.interval is None or self.bootstrap is None:
            return self.interval
        first, second = self.interval, self.bootstrap
        low = None if first.low is None else min(first.low, _or(second.low, first.low))
        high = None if first.high is None else max(first.high, _or(second.high, first.high))
        return Interval(low, high, first.level, first.basis, first.count)


def _interval_data(interval: Interval | None) -> dict[str, Any] | None:
    return None if interval is None else dict(encode(interval))


def tail_data(tail: TailEstimate) -> dict[str, Any]:
    """One percentile's tail as the JSON documents give it (every key present, None when it
    does not apply; `judged` is the envelope)."""
    return {
        "n": tail.n,
        "needs_ios": tail.needs,
        "estimable": tail.estimable,
        "value_ns": tail.value_ns,
        "above": tail.above,
        "interval": _interval_data(tail.interval),
        "interval_unknown": tail.unknown,
        "bootstrap": _interval_data(tail.bootstrap),
        "bootstrap_seed": tail.seed,
        "judged": _interval_data(tail.envelope),
    }


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


def unestimable(pct: float, n: int, level: float = LEVEL) -> TailEstimate:
    return TailEstimate(pct, n, needs_ios(pct, level), None, None, None)


def histogram_rank_range(histogram: "Ints", low_rank: int, high_rank: int) -> tuple[int, int]:
    """The buckets holding the `low_rank`-th and the `high_rank`-th smallest value."""
    import numpy as np

    cumulative = np.cumsum(histogram)
    low = int(np.searchsorted(cumulative, low_rank, side="left"))
    high = int(np.searchsorted(cumulative, high_rank, side="left"))
    return low, high


def histogram_tail(
    histogram: "Ints",
    pct: float,
    bounds: BucketBounds,
    value_ns: float,
    seen: tuple[int, int],
    level: float = LEVEL,
) -> TailEstimate:
    """A percentile of a counted histogram (`bounds`: a bucket's lowest and highest value),
    its interval's ends the outer bounds of the buckets holding ranks l and u, kept within
    `seen` (the smallest and largest value measured)."""
    n = int(histogram.sum())
    ranks = rank_bounds(n, pct, level)
    if ranks is None:
        return unestimable(pct, n, level)
    low_bucket, high_bucket = histogram_rank_range(histogram, *ranks)
    low = max(float(bounds(low_bucket)[0]), float(seen[0]))
    high = min(float(bounds(high_bucket)[1]), float(seen[1]))
    interval = Interval(low, high, level, Basis.ORDER_STATISTICS.value, n)
    return TailEstimate(pct, n, needs_ios(pct, level), value_ns, n - nearest_rank(n, pct), interval)


def table_tail(
    table: Sequence[tuple[float, float]], n: int, pct: float, level: float = LEVEL
) -> TailEstimate:
    """A percentile of fio's table (percentile, value) from n = total_ios: its value as fio
    listed it, the interval's ends fio's values at the listed percentiles bracketing ranks l
    and u; an end the table does not bracket is None, and `unknown` says so."""
    listed = dict(table)
    ranks = rank_bounds(n, pct, level)
    if ranks is None:
        return unestimable(pct, n, level)
    value = listed.get(pct)
    by_rank = sorted((nearest_rank(n, p), float(v)) for p, v in listed.items() if p > 0)
    lows = [v for rank, v in by_rank if rank <= ranks[0]]
    highs = [v for rank, v in by_rank if rank >= ranks[1]]
    low, high = (lows[-1] if lows else None), (highs[0] if highs else None)
    unknown = None
    if low is None or high is None:
        unknown = "fio's percentile table does not reach the " + (
            "interval's upper rank" if high is None else "interval's lower rank"
        )
    interval = Interval(low, high, level, Basis.PERCENTILE_TABLE.value, n)
    return TailEstimate(
        pct,
        n,
        needs_ios(pct, level),
        None if value is None else float(value),
        n - nearest_rank(n, pct),
        interval,
        unknown=unknown,
    )


def _windows(seconds: "Ints") -> "Ints":
    """Per-second histograms merged into at most MOST_WINDOWS windows of equal length."""
    import numpy as np

    per = -(-seconds.shape[0] // MOST_WINDOWS)
    if per == 1:
        return seconds
    padded = np.pad(seconds, ((0, -seconds.shape[0] % per), (0, 0)))
    merged: Ints = padded.reshape(-1, per, seconds.shape[1]).sum(axis=1)
    return merged


def seed_of(seconds: "Ints") -> int:
    """A seed taken from the data: the same log draws the same resamples."""
    import numpy as np

    return zlib.crc32(np.ascontiguousarray(seconds.sum(axis=0)).tobytes())


def block_bootstrap(
    seconds: "Ints", pct: float, bounds: BucketBounds, level: float = LEVEL
) -> tuple[Interval | None, int | None]:
    """(the block bootstrap's interval of the percentile, its seed) from per-second histograms
    (rows: seconds, columns: buckets); (None, None) with fewer than MIN_SECONDS seconds."""
    import numpy as np

    used = seconds[seconds.sum(axis=1) > 0]
    if used.shape[0] < MIN_SECONDS:
        return None, None
    units = _windows(used)
    m = units.shape[0]
    block = max(1, round(m ** (1 / 3)))
    blocks = -(-m // block)
    cumulative = np.vstack([np.zeros((1, units.shape[1]), np.int64), np.cumsum(units, axis=0)])
    block_sums = cumulative[block:] - cumulative[:-block]
    seed = seed_of(used)
    generator = np.random.default_rng(seed)
    values = []
    for _ in range(DRAWS):
        starts = generator.integers(0, block_sums.shape[0], blocks)
        drawn = block_sums[starts].sum(axis=0)
        total = int(drawn.sum())
        bucket = int(np.searchsorted(np.cumsum(drawn), nearest_rank(total, pct), side="left"))
        values.append(sum(bounds(bucket)) / 2)
    alpha = (1 - level) / 2
    interval = Interval(
        float(np.quantile(values, alpha)),
        float(np.quantile(values, 1 - alpha)),
        level,
        Basis.BLOCK_BOOTSTRAP.value,
        m,
    )
    return interval, seed


def passes_tail(tails: Sequence[TailEstimate]) -> TailEstimate:
    """One percentile over several passes (PTS rounds of a measurement window, a sweep cell's
    repeats), each with its own n: the value is the passes' mean, n and the I/Os above are
    summed, and the interval spans every pass's, [lowest low, highest high]. That span holds the
    mean of the passes' true percentiles in at least 95 % of runs, whether or not they differ:
    the mean lies between the smallest and largest true percentile, the pass holding the
    smallest has a low end below it with probability ≥ 97.5 %, the pass holding the largest a
    high end above it with probability ≥ 97.5 %. An unknown end of any pass leaves that end
    unknown; a pass too short to bound the percentile leaves the whole unestimable (its n the
    shortest pass's), as no number it cannot support goes into the mean."""
    if not tails:
        raise ValueError("a tail over passes needs at least one pass")
    if len(tails) == 1:
        return tails[0]
    first = tails[0]
    short = [t for t in tails if not t.estimable]
    if short:
        return min(short, key=lambda t: t.n)
    values = [t.value_ns for t in tails]
    lows = [None if t.interval is None else t.interval.low for t in tails]
    highs = [None if t.interval is None else t.interval.high for t in tails]
    n = sum(t.n for t in tails)
    low = None if None in lows else min(v for v in lows if v is not None)
    high = None if None in highs else max(v for v in highs if v is not None)
    basis = first.interval.basis if first.interval is not None else Basis.PERCENTILE_TABLE.value
    level = first.interval.level if first.interval is not None else LEVEL
    unknown = next((t.unknown for t in tails if t.unknown), None)
    return TailEstimate(
        first.pct,
        n,
        first.needs,
        None if None in values else sum(v for v in values if v is not None) / len(values),
        sum(t.above or 0 for t in tails),
        Interval(low, high, level, basis, n),
        unknown=unknown,
    )
