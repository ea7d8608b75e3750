"""How sure a sweep's knee is, and whether its matrix rises as it should.

**Spread.** A sweep's cells are repeated `--repeat` times. Their noise is alike in relative
terms (a cell at 400,000 IOPS varies by about the same percentage as one at 20,000), so the
spread is pooled over the cells of a workload on a log scale: s² = Σ (nᵢ − 1) sᵢ² / Σ (nᵢ − 1),
with Σ (nᵢ − 1) degrees of freedom. Two repeats of 36 cells then give every cell an interval
with 36 degrees of freedom instead of one. A cell's 95 % interval is its mean × exp(± t · s/√n).

**Knee.** Each cell's log IOPS and log latency (and, for the knee without a bound, its log
IOPS per latency) are drawn from Student's distribution around their means with the pooled
spread — the distribution of a mean given its repeats — and the knee is chosen anew in every
draw (`DRAWS` of them, from a seed taken from the data and stored with the verdict, so the same
run gives the same answer). The share of draws each cell wins is its chance of being the knee;
the smallest set of cells that wins 95 % of the draws is the knee's 95 % set. The verdict is
*yes* when the set is the knee alone, *inconclusive* when other cells share it, *no* when no
cell meets the latency bound in 95 % of the draws.

**Monotonic.** More outstanding I/O should never buy fewer IOPS: along each row (threads fixed,
queue depth rising) and each column (queue depth fixed, threads rising) a cell is set against
the one before it. A fall of more than 5 % whose 95 % interval lies wholly below 1 makes the
matrix *not monotonic* (no); a fall of more than 5 % that the spread cannot confirm (or that was
measured once) makes it *inconclusive*; otherwise it is monotonic (yes). A drive that slows with
more outstanding I/O has a knee that a second run may put elsewhere: the verdict says so.
"""

import json
import math
import statistics
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

from ssdlab.analysis.intervals import LEVEL, Basis, Interval, t_quantile
from ssdlab.analysis.knee import KneeShare, KneeVerdict, MatrixDip, SweepCell
from ssdlab.analysis.verdict_state import State

DRAWS = 2000
"""Draws of the matrix the knee is chosen in: a share is known to about ±1 point."""
KNEE_SET = 0.95
FALL_RATIO = 0.95
"""A cell with less than 95 % of the IOPS of the one before it has fallen (5 %, as compare's
threshold): smaller dips are noise or a plateau."""
NONE = "none"  # the outcome of a draw in which no cell meets the latency bound

Passes = Mapping[tuple[int, int], Sequence[SweepCell]]  # (threads, depth) → one cell per repeat


@dataclass(frozen=True, slots=True)
class LogSpread:
    """The pooled standard deviation of one figure's logs over a workload's cells (None: no cell
    was measured twice) and its degrees of freedom."""

    sd: float | None
    df: int

    @property
    def relative_pct(self) -> float | None:
        """The spread as a percentage of a value (for the noise note)."""
        return None if self.sd is None else (math.exp(self.sd) - 1) * 100


def pooled_log_spread(groups: Sequence[Sequence[float | None]]) -> LogSpread:
    """The pooled sd of the logs of each group's positive values."""
    total = 0.0
    df = 0
    for group in groups:
        logs = [math.log(v) for v in group if v is not None and v > 0]
        if len(logs) >= 2:
            total += statistics.variance(logs) * (len(logs) - 1)
            df += len(logs) - 1
    return LogSpread(None if df == 0 else math.sqrt(total / df), df)


def cell_interval(values: Sequence[float | None], spread: LogSpread) -> Interval | None:
    """A cell's 95 % interval: its mean × exp(± t · s/√n) with the pooled spread; None without
    one, or for a cell with a value missing."""
    known = [v for v in values if v is not None]
    if spread.sd is None or not known or len(known) < len(values) or min(known) <= 0:
        return None
    mean = statistics.fmean(known)
    half = t_quantile(spread.df) * spread.sd / math.sqrt(len(known))
    return Interval(mean * math.exp(-half), mean * math.exp(half), LEVEL, Basis.REPEATS.value,
                    len(known))  # fmt: skip


def data_seed(passes: Passes) -> int:
    """A seed taken from the measured values themselves: the same run draws the same matrices."""
    values = sorted((key, [round(c.iops, 3) for c in cells]) for key, cells in passes.items())
    return zlib.crc32(json.dumps(values).encode())


def knee_uncertainty(verdict: KneeVerdict, passes: Passes) -> KneeVerdict:
    """`verdict` (the knee of the cells' means) with its 95 % set, state, the intervals of the
    knee's IOPS and latency, and whether the matrix is monotonic."""
    metric = verdict.latency_metric
    keys = sorted(passes)
    iops = pooled_log_spread([[c.iops for c in passes[k]] for k in keys])
    latency = pooled_log_spread([[c.latency_ns(metric) for c in passes[k]] for k in keys])
    power = pooled_log_spread([[_power(c, metric) for c in passes[k]] for k in keys])
    monotonic, dips = matrix_dips(passes, iops)
    knee = verdict.knee
    found = replace(
        verdict,
        monotonic=monotonic.value,
        dips=dips,
        iops_spread_pct=iops.relative_pct,
        knee_iops_interval=None if knee is None else _of(passes, knee, iops, "iops", metric),
        knee_latency_interval=None if knee is None else _of(passes, knee, latency, "lat", metric),
    )
    if iops.sd is None or latency.sd is None or power.sd is None:  # measured once
        state = State.NO if knee is None else State.YES
        return replace(found, state=state.value)
    seed = data_seed(passes)
    shares = _shares(verdict, passes, iops, latency, power, seed)
    chosen = knee.label if knee is not None else NONE
    top = next((s.share for s in shares if s.label == chosen), 0.0)
    decided = State.YES if knee is not None else State.NO
    state = decided if top >= KNEE_SET else State.INCONCLUSIVE
    return replace(
        found,
        state=state.value,
        shares=shares,
        knee_set=_smallest_set(shares),
        draws=DRAWS,
        seed=seed,
    )


def _power(cell: SweepCell, metric: str) -> float | None:
    latency = cell.latency_ns(metric)
    return None if latency is None or latency <= 0 or cell.iops <= 0 else cell.iops / latency


def _of(
    passes: Passes, knee: SweepCell, spread: LogSpread, what: str, metric: str
) -> Interval | None:
    cells = passes.get((knee.numjobs, knee.iodepth), ())
    values = [c.iops if what == "iops" else c.latency_ns(metric) for c in cells]
    return cell_interval(values, spread)


def _shares(
    verdict: KneeVerdict,
    passes: Passes,
    iops: LogSpread,
    latency: LogSpread,
    power: LogSpread,
    seed: int,
) -> tuple[KneeShare, ...]:
    """Each cell's share of the draws it is the knee in, most first (cells that never are left
    out), with 'none' for bounded draws that found no cell within the bound."""
    import numpy as np
    import numpy.typing as npt

    metric = verdict.latency_metric
    usable = [c for c in verdict.usable if (c.numjobs, c.iodepth) in passes]
    if not usable:
        return ()
    generator = np.random.default_rng(seed)
    counts = np.array([len(passes[(c.numjobs, c.iodepth)]) for c in usable], dtype=float)

    def drawn(values: list[float], spread: LogSpread) -> "npt.NDArray[np.float64]":
        assert spread.sd is not None
        noise = generator.standard_t(spread.df, size=(DRAWS, len(values)))
        logs: npt.NDArray[np.float64] = np.log(np.array(values)) + noise * spread.sd / np.sqrt(
            counts
        )
        return logs

    if verdict.max_latency_ns is None:
        winners = np.argmax(drawn([_mean_power(passes, c, metric) for c in usable], power), axis=1)
        labels = [usable[i].label for i in winners]
    else:
        log_iops = drawn([c.iops for c in usable], iops)
        log_lat = drawn([_lat(c, metric) for c in usable], latency)
        within = log_lat <= math.log(verdict.max_latency_ns)
        masked = np.where(within, log_iops, -np.inf)
        best = np.argmax(masked, axis=1)
        labels = [usable[i].label if within[d, i] else NONE for d, i in enumerate(best)]
    tally: dict[str, int] = {}
    for label in labels:
        tally[label] = tally.get(label, 0) + 1
    return tuple(
        KneeShare(label, count / DRAWS)
        for label, count in sorted(tally.items(), key=lambda item: (-item[1], item[0]))
    )


def _lat(cell: SweepCell, metric: str) -> float:
    value = cell.latency_ns(metric)
    assert value is not None
    return value


def _mean_power(passes: Passes, cell: SweepCell, metric: str) -> float:
    """The cell's IOPS per latency, as the geometric mean over its repeats."""
    powers = [p for c in passes[(cell.numjobs, cell.iodepth)] if (p := _power(c, metric))]
    return math.exp(statistics.fmean(math.log(p) for p in powers)) if powers else 1e-300


def _smallest_set(shares: Sequence[KneeShare]) -> tuple[str, ...]:
    """The fewest outcomes (most often first) that hold 95 % of the draws."""
    chosen: list[str] = []
    total = 0.0
    for share in shares:
        chosen.append(share.label)
        total += share.share
        if total >= KNEE_SET - 1e-9:
            break
    return tuple(chosen)


def matrix_dips(passes: Passes, spread: LogSpread) -> tuple[State, tuple[MatrixDip, ...]]:
    """Whether IOPS rise (or hold) with more outstanding I/O along every row and column, and the
    falls of more than 5 % found, each with its interval and whether it is shown or may be
    noise."""
    threads = sorted({t for t, _ in passes})
    depths = sorted({q for _, q in passes})
    lines = [[(t, q) for q in depths if (t, q) in passes] for t in threads]
    lines += [[(t, q) for t in threads if (t, q) in passes] for q in depths]
    dips = []
    for line in lines:
        for before, after in pairwise(line):
            dip = _dip(passes, before, after, spread)
            if dip is not None:
                dips.append(dip)
    if any(d.state == State.YES.value for d in dips):
        return State.NO, tuple(dips)
    return (State.INCONCLUSIVE if dips else State.YES), tuple(dips)


def _dip(
    passes: Passes, before: tuple[int, int], after: tuple[int, int], spread: LogSpread
) -> MatrixDip | None:
    a = [math.log(c.iops) for c in passes[after] if c.iops > 0]
    b = [math.log(c.iops) for c in passes[before] if c.iops > 0]
    if not a or not b:
        return None
    difference = statistics.fmean(a) - statistics.fmean(b)
    ratio = math.exp(difference)
    if ratio >= FALL_RATIO:
        return None
    interval = None
    state = State.INCONCLUSIVE
    if spread.sd is not None:
        half = t_quantile(spread.df) * spread.sd * math.sqrt(1 / len(a) + 1 / len(b))
        interval = Interval(math.exp(difference - half), math.exp(difference + half), LEVEL,
                            Basis.REPEATS.value, min(len(a), len(b)))  # fmt: skip
        if interval.high is not None and interval.high < 1:
            state = State.YES
    return MatrixDip(_label(before), _label(after), ratio, interval, state.value)


def _label(cell: tuple[int, int]) -> str:
    return f"T{cell[0]} Q{cell[1]}"
