"""The knee of a threads × queue-depth sweep: how much outstanding I/O is worth having.

Each cell of the sweep ran `numjobs` jobs at `iodepth`; `numjobs × iodepth` I/Os were
outstanding. More outstanding I/O buys IOPS until the drive saturates; after that it buys
only latency (Little's law: IOPS = outstanding / mean latency).

**With a latency bound** (`max_latency_ns`): the knee is the cell with the most IOPS whose
chosen latency (`mean`, `p99`, `p999` or `max`) is within the bound. Ties in IOPS go to the
lower latency, then to fewer outstanding I/Os, then to fewer jobs. (Equal IOPS at a higher
latency is dominated, and by Little's law fewer outstanding I/Os at equal IOPS means a lower
mean latency.) Near-ties are not merged: 0.1 % more IOPS wins; the table shows the rest.

**Without a bound**: the knee is the cell of greatest *power* IOPS / latency (Kleinrock's
power, the classic optimum operating point of a queue). Because the logarithm turns ratios into
differences, the rule reads:

- from any cell of lower latency, reaching the knee bought at least 1 % more IOPS for each 1 %
  more latency (in log terms: ln(IOPS ratio) ≥ ln(latency ratio));
- beyond the knee, every cell buys less than 1 % more IOPS for each 1 % more latency.

The knee is always on the Pareto front (cells not beaten in both IOPS and latency): a cell
beaten in both has less power. Unlike a Kneedle-style distance to the chord, the answer does not
depend on which extreme cells the sweep happened to include, and it does not change when the
latency or IOPS unit changes. Ties in power go to fewer outstanding I/Os, then lower latency.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ssdlab.analysis.intervals import Interval
from ssdlab.model.units import format_latency_us

LATENCY_METRICS = ("mean", "p99", "p999", "max")
"""The latencies a knee can be chosen by: SweepCell.lat_<metric>_ns."""


@dataclass(frozen=True, slots=True)
class SweepCell:
    """One cell of a threads × queue-depth sweep; a latency fio did not report is None."""

    numjobs: int
    iodepth: int
    iops: float
    bw_bytes_per_s: float
    lat_mean_ns: float | None
    lat_p99_ns: float | None
    lat_p999_ns: float | None
    lat_max_ns: float | None

    def __post_init__(self) -> None:
        if self.numjobs < 1 or self.iodepth < 1:
            raise ValueError(f"numjobs and iodepth must be ≥ 1, not {self.numjobs}×{self.iodepth}")
        for name in ("iops", "bw_bytes_per_s", *(f"lat_{m}_ns" for m in LATENCY_METRICS)):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be a finite number ≥ 0, not {value}")

    @property
    def outstanding(self) -> int:
        """I/Os in flight: numjobs × iodepth."""
        return self.numjobs * self.iodepth

    @property
    def label(self) -> str:
        """CrystalDiskMark's notation: T (threads) and Q (queue depth): 'T4 Q32'."""
        return f"T{self.numjobs} Q{self.iodepth}"

    def latency_ns(self, metric: str) -> float | None:
        """The named latency (`mean`, `p99`, `p999` or `max`) in ns."""
        if metric not in LATENCY_METRICS:
            raise ValueError(
                f"unknown latency metric {metric!r}; known: {', '.join(LATENCY_METRICS)}"
            )
        value: float | None = getattr(self, f"lat_{metric}_ns")
        return value


@dataclass(frozen=True, slots=True)
class KneeShare:
    """How often a cell (its label, 'T1 Q4') was the knee among the draws; 'none' for draws in
    which no cell met the latency bound."""

    label: str
    share: float


@dataclass(frozen=True, slots=True)
class MatrixDip:
    """A cell with fewer IOPS than the one before it in its row or column: the ratio of their
    IOPS (below analysis/knee_uncertainty.FALL_RATIO), its 95 % interval, and whether the fall
    is shown (yes) or may be noise (inconclusive)."""

    from_label: str
    to_label: str
    ratio: float
    interval: Interval | None
    state: str


@dataclass(frozen=True, slots=True)
class KneeVerdict:
    """The chosen cell of a sweep, with the cells and the rule it was chosen by.

    `method` is "latency bound" or "max IOPS/latency"; `knee` is None with `reason` when no
    usable cell meets the bound (or none is usable). `usable` are the cells with IOPS > 0 and a
    positive latency of the chosen metric; `excluded` the others. `front` is the Pareto front of
    the usable cells, by latency. `peak` is the usable cell with the most IOPS (ties as for the
    knee). `next_on_front` is the front cell just beyond the knee, and `next_iops_gain_pct` /
    `next_latency_increase_pct` say what going there would buy and cost; None when the knee is
    the last cell on the front.

    How sure it is (analysis/knee_uncertainty.py; None or empty in a verdict of cells measured
    once, and in one stored before ssdlab repeated them): `state` yes (the knee's 95 % set is
    the knee alone), inconclusive (other cells share it) or no (no cell meets the bound);
    `shares` each cell's share of the `draws` (drawn from `seed`) it was the knee in, and
    `knee_set` the fewest that hold 95 % of them; the knee's IOPS and latency intervals;
    `monotonic` (yes, no, inconclusive) with the `dips` found, and `iops_spread_pct`, the
    pooled spread of the cells' IOPS between repeats.
    """

    cells: tuple[SweepCell, ...]
    latency_metric: str
    max_latency_ns: float | None
    method: str
    usable: tuple[SweepCell, ...]
    excluded: tuple[SweepCell, ...]
    front: tuple[SweepCell, ...]
    knee: SweepCell | None
    peak: SweepCell | None
    knee_latency_ns: float | None
    knee_iops_of_peak_pct: float | None
    next_on_front: SweepCell | None
    next_iops_gain_pct: float | None
    next_latency_increase_pct: float | None
    reason: str | None
    state: str | None = None
    shares: tuple[KneeShare, ...] = ()
    knee_set: tuple[str, ...] = ()
    draws: int = 0
    seed: int | None = None
    knee_iops_interval: Interval | None = None
    knee_latency_interval: Interval | None = None
    monotonic: str | None = None
    dips: tuple[MatrixDip, ...] = ()
    iops_spread_pct: float | None = None


def pareto_front(cells: Sequence[SweepCell], latency_metric: str = "p99") -> tuple[SweepCell, ...]:
    """The cells no other cell beats in both IOPS (more) and latency (less), by latency.

    A cell is dominated when another has at least its IOPS and at most its latency, and is
    strictly better in one; identical cells are all kept. Cells that completed no I/O or have
    no positive latency of `latency_metric` take no part. Sorted by latency, then IOPS, then
    fewer outstanding I/Os.
    """
    usable = [c for c in cells if _usable(c, latency_metric)]
    front = [c for c in usable if not any(_dominates(o, c, latency_metric) for o in usable)]
    return tuple(sorted(front, key=lambda c: (_lat(c, latency_metric), c.iops, _order(c))))


def select_knee(
    cells: Sequence[SweepCell],
    *,
    max_latency_ns: float | None = None,
    latency_metric: str = "p99",
) -> KneeVerdict:
    """The cell worth running at: the most IOPS within a latency bound, or the knee without one.

    Raises ValueError for an unknown latency metric or a bound that is not a positive number.
    """
    if latency_metric not in LATENCY_METRICS:
        raise ValueError(
            f"unknown latency metric {latency_metric!r}; known: {', '.join(LATENCY_METRICS)}"
        )
    if max_latency_ns is not None and not (math.isfinite(max_latency_ns) and max_latency_ns > 0):
        raise ValueError(f"max_latency_ns must be a positive number, not {max_latency_ns}")
    metric = latency_metric
    usable = tuple(c for c in cells if _usable(c, metric))
    excluded = tuple(c for c in cells if not _usable(c, metric))
    front = pareto_front(usable, metric)
    method = "latency bound" if max_latency_ns is not None else "max IOPS/latency"
    peak = min(usable, key=lambda c: _best_iops_key(c, metric)) if usable else None

    def verdict(knee: SweepCell | None, reason: str | None) -> KneeVerdict:
        following = None
        if knee is not None:
            beyond = [c for c in front if _lat(c, metric) > _lat(knee, metric)]
            following = beyond[0] if beyond else None
        return KneeVerdict(
            tuple(cells),
            metric,
            max_latency_ns,
            method,
            usable,
            excluded,
            front,
            knee,
            peak,
            None if knee is None else _lat(knee, metric),
            None if knee is None or peak is None else 100.0 * knee.iops / peak.iops,
            following,
            None if knee is None or following is None else _pct(following.iops, knee.iops),
            None
            if knee is None or following is None
            else _pct(_lat(following, metric), _lat(knee, metric)),
            reason,
        )

    if not usable:
        return verdict(
            None,
            f"no cell has both IOPS and a {metric} latency to choose by"
            if cells
            else "the sweep has no cells",
        )
    if max_latency_ns is not None:
        within = [c for c in usable if _lat(c, metric) <= max_latency_ns]
        if not within:
            fastest = min(usable, key=lambda c: (_lat(c, metric), -c.iops, _order(c)))
            return verdict(
                None,
                f"no cell has {metric} latency ≤ {_us(max_latency_ns)}; the lowest is "
                f"{_us(_lat(fastest, metric))} at {fastest.label}",
            )
        return verdict(min(within, key=lambda c: _best_iops_key(c, metric)), None)
    knee = min(
        front,
        key=lambda c: (
            -c.iops / _lat(c, metric),  # correctly rounded: equal ratios tie exactly
            c.outstanding,
            _lat(c, metric),
            c.numjobs,
        ),
    )
    return verdict(knee, None)


def _usable(cell: SweepCell, metric: str) -> bool:
    return cell.iops > 0 and _latency(cell, metric) is not None


def _latency(cell: SweepCell, metric: str) -> float | None:
    value = cell.latency_ns(metric)
    return value if value is not None and value > 0 else None


def _lat(cell: SweepCell, metric: str) -> float:
    value = _latency(cell, metric)
    assert value is not None
    return value


def _order(cell: SweepCell) -> tuple[int, int]:
    return cell.outstanding, cell.numjobs


def _best_iops_key(cell: SweepCell, metric: str) -> tuple[float, float, int, int]:
    return -cell.iops, _lat(cell, metric), *_order(cell)


def _dominates(a: SweepCell, b: SweepCell, metric: str) -> bool:
    la, lb = _lat(a, metric), _lat(b, metric)
    return a.iops >= b.iops and la <= lb and (a.iops > b.iops or la < lb)


def _pct(new: float, old: float) -> float:
    return 100.0 * (new - old) / old


def _us(ns: float) -> str:
    return format_latency_us(ns, "µs")
