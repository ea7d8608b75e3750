"""Fitting the simulator's parameters to a measured drive: cache size, SLC and native write
rates, effective spare and GC policy class, each with its 95 % interval and the run it came
from, or the run that is missing for it (docs/model-fit.md). Pure: the inputs are figures
already read from stored runs (app/model_fit.py reads them).

**Cache size and rates** come from a sustained write's cliff (analysis/cliff.py) and its
uncertainty (analysis/cliff_uncertainty.py): the bytes written before the cliff, the median
speed before it (the SLC rate) and after it (the native rate).

**Spare and GC class** come from steady-state WAF at two active ranges (reference/ftl.md §2,
measurement-frontiers.md §2.3). Uniform random writes over a fraction f of the LBAs of a drive
that holds no other data see α/f physical pages per logical page they use (α: the drive's own
ratio, native pages ÷ logical pages); each GC policy class has a closed form WAF(α)
(sim/analytic.py). For each class, each point's WAF interval (widened by the closed forms'
own error, `MODEL_TOLERANCE`) is inverted into an interval of α; a class fits when the two
points' α intervals meet. One class fitting names it; two or more is *inconclusive* and the
spare interval spans every class that fits; none says the closed forms do not describe the
drive.

**Idle GC** comes from a PTS Host Idle Recovery run: the gain of writes after an idle over a
baseline without one (analysis/idle_gc.py). The simulator has no idle time, so the fitted
model does not use it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import TYPE_CHECKING

from ssdlab.analysis.cache_kind import CliffAtFill, fit_cache_kind
from ssdlab.analysis.cliff import CacheCliffVerdict
from ssdlab.analysis.cliff_uncertainty import CliffUncertainty, cliff_uncertainty
from ssdlab.analysis.idle_gc import HirRow, IdleGc, judge_idle_gc
from ssdlab.analysis.intervals import Interval, mean_interval, sample_of_seconds
from ssdlab.model.units import GiB, MiB
from ssdlab.sim.analytic import wa_fifo, wa_greedy, wa_random

if TYPE_CHECKING:  # the simulator runs only when a skewed run is fitted
    from ssdlab.analysis.model_fit_joint import Measured

MODEL_TOLERANCE = 0.04
"""Relative error allowed between a closed form and a drive it describes: the simulator's own
steady-state WAF (cost-benefit and d-choices against the greedy form, finite-block FIFO against
the FIFO form, 64–256 pages a block) was measured within 3.8 % of its class's closed form."""
WARMUP_FILLS = 5.0
"""Host writes, in fills of the active range, before the WAF window starts (steady state)."""
MIN_WINDOW_READINGS = 4
"""Fewest health-reading intervals the WAF window must hold."""
ALPHA_MAX = 50.0
"""Largest physical ÷ logical ratio the inversion searches (beyond it WAF is 1 to 2 %)."""
GREEDY_BLOCK_PAGES = (64, 1024)
"""Pages per block the greedy form is evaluated at: the range of real NAND; the fit takes the
union of the α each gives (the drive's block size is not measured)."""
# a tighter ratio tells greedy from FIFO; the second range at most this far from the first
SECOND_RANGE_HINT = 0.8
NO_NAND_COUNTER = (
    "the drive reports no NAND writes: WAF cannot be measured on it; spare and GC class need "
    "a NAND-written counter (OCP C0h 'Physical media units written', an NVMe endurance-group "
    "log, or a vendor SMART attribute: docs/model-fit.md, *On a real drive*)"
)


class GcClass:
    GREEDY = "greedy-like"  # greedy, cost-benefit, d-choices: the emptiest victim, or nearly
    FIFO = "fifo-like"  # FIFO / least recently written
    RANDOM = "random-like"  # a random victim
    INCONCLUSIVE = "inconclusive"
    NONE_FITS = "none fits"
    UNKNOWN = "unknown"


def _greedy_curves() -> dict[str, tuple[Callable[[float], float], ...]]:
    greedy = tuple((lambda a, np_=np_: wa_greedy(a, np_)) for np_ in GREEDY_BLOCK_PAGES)
    return {GcClass.GREEDY: greedy, GcClass.FIFO: (wa_fifo,), GcClass.RANDOM: (wa_random,)}


CLASS_CURVES = _greedy_curves()


@dataclass(frozen=True, slots=True)
class Source:
    """The stored run a figure came from."""

    run_id: int | None
    uuid: str | None
    label: str  # 'cache run 12', 'endurance run 14'


@dataclass(frozen=True, slots=True)
class CliffInput:
    """A sustained write's cliff verdicts (one per repeat, the first write first)."""

    source: Source
    verdicts: tuple[CacheCliffVerdict, ...]
    # the fraction of the drive written before the write (`--prefill`); None: not known
    fill: float | None = None


@dataclass(frozen=True, slots=True)
class WafInput:
    """Uniform random writes over `range_bytes` of a drive of `capacity_bytes` (nothing else
    on it), read as cumulative (host bytes, NAND bytes) health readings, oldest first."""

    source: Source
    range_bytes: float
    capacity_bytes: float
    readings: tuple[tuple[float, float], ...]

    @property
    def active_fraction(self) -> float:
        return self.range_bytes / self.capacity_bytes


@dataclass(frozen=True, slots=True)
class HirInput:
    """A PTS Host Idle Recovery run's measured steps (analysis/idle_gc.py)."""

    source: Source
    rows: tuple[HirRow, ...]


@dataclass(frozen=True, slots=True)
class WafPoint:
    """Steady-state WAF at one active range: over the readings after `WARMUP_FILLS` fills,
    with its 95 % interval (batch means of the per-reading WAFs) or None and the reason."""

    source: Source
    active_fraction: float
    waf: float | None
    interval: Interval | None
    fills: float  # host writes over the whole run, in fills of the range
    window_readings: int
    reason: str | None = None
    window_start: float = WARMUP_FILLS  # fills of the range written when the window starts


@dataclass(frozen=True, slots=True)
class Estimate:
    """One fitted parameter: its value and 95 % interval (None: not fitted), the runs it came
    from, and when not fitted, the command that would give it (`needs`)."""

    name: str
    value: float | str | None
    low: float | None
    high: float | None
    unit: str
    sources: tuple[Source, ...]
    needs: str | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class ModelFit:
    estimates: tuple[Estimate, ...]
    gc_classes: tuple[str, ...]  # the classes whose closed forms fit both WAF points
    waf_points: tuple[WafPoint, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)
    # the simulator's policy the spare was fitted with (the joint fit's best), else None
    fitted_policy: str | None = None
    nand_counter: bool | None = None  # FitInputs.nand_counter
    # the model's pages a block the spare's value was fitted at (the joint fit's), else None
    fitted_block_pages: int | None = None
    # the capacity the spare is the ratio of (model_fit_joint.drive_alpha); None: the
    # model's own α, or a closed form's
    spare_capacity_bytes: int | None = None
    # the cliff of every cache run with a known fill level, emptiest first (the cache kind's
    # evidence): what `model predict --fill` reads the cliff at another fill from
    cache_fills: tuple[CliffAtFill, ...] = ()

    def estimate(self, name: str) -> Estimate:
        return next(e for e in self.estimates if e.name == name)


# -- WAF points --------------------------------------------------------------------------------


def waf_point(data: WafInput) -> WafPoint:
    """Steady-state WAF of one run: NAND ÷ host bytes over the readings written after
    `WARMUP_FILLS` fills of the range; its interval from batch means of the per-reading WAFs
    (correlated neighbours, as fio's per-second values are)."""
    readings = sorted(data.readings)
    host0 = readings[0][0] if readings else 0.0
    fills = (readings[-1][0] - host0) / data.range_bytes if readings else 0.0
    start = host0 + WARMUP_FILLS * data.range_bytes
    window = [r for r in readings if r[0] >= start]
    steps = [((n1 - n0) / (h1 - h0)) for (h0, n0), (h1, n1) in pairwise(window) if h1 > h0]
    fraction = data.active_fraction
    if len(steps) < MIN_WINDOW_READINGS:
        reason = (
            f"{fills:.1f} fills of the range written; steady state needs {WARMUP_FILLS:g} fills, "
            f"then at least {MIN_WINDOW_READINGS} health readings"
        )
        return WafPoint(data.source, fraction, None, None, fills, len(steps), reason)
    waf = (window[-1][1] - window[0][1]) / (window[-1][0] - window[0][0])
    interval = mean_interval(sample_of_seconds(waf, steps))
    start_fills = (window[0][0] - host0) / data.range_bytes
    return WafPoint(data.source, fraction, waf, interval, fills, len(steps), None, start_fills)


def _invert(curve: Callable[[float], float], waf: float) -> float | None:
    """α with curve(α) = waf (curves fall with α); 1 for a WAF past the curve's top, None
    (unbounded) for one at or below the curve's value at `ALPHA_MAX`."""
    if waf <= curve(ALPHA_MAX):
        return None
    lo, hi = 1.0 + 1e-9, ALPHA_MAX
    if waf >= curve(lo):
        return lo
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if curve(mid) > waf:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def _widened(point: WafPoint) -> tuple[float, float]:
    assert point.waf is not None
    low = point.interval.low if point.interval and point.interval.low is not None else point.waf
    high = point.interval.high if point.interval and point.interval.high is not None else point.waf
    return low / (1.0 + MODEL_TOLERANCE), high * (1.0 + MODEL_TOLERANCE)


def alpha_range(gc_class: str, point: WafPoint) -> tuple[float, float | None]:
    """The drive's own α (native ÷ logical pages) that `gc_class` allows for one point: the
    point's widened WAF interval inverted, times its active fraction (high None: unbounded)."""
    low_waf, high_waf = _widened(point)
    lows: list[float] = []
    highs: list[float | None] = []
    for curve in CLASS_CURVES[gc_class]:
        top = _invert(curve, high_waf)
        bottom = _invert(curve, low_waf)
        lows.append((top if top is not None else ALPHA_MAX) * point.active_fraction)
        highs.append(None if bottom is None else bottom * point.active_fraction)
    high = None if any(h is None for h in highs) else max(h for h in highs if h is not None)
    return min(lows), high


def _alpha_value(gc_class: str, point: WafPoint) -> float | None:
    assert point.waf is not None
    found = [_invert(curve, point.waf) for curve in CLASS_CURVES[gc_class]]
    if any(a is None for a in found):
        return None
    return statistics.fmean(a for a in found if a is not None) * point.active_fraction


def _meet(ranges: Sequence[tuple[float, float | None]]) -> tuple[float, float | None] | None:
    """The α every range allows, and a drive can have (α > 1: it holds its logical pages)."""
    low = max(1.0, *(r[0] for r in ranges))
    highs = [r[1] for r in ranges if r[1] is not None]
    high = min(highs) if highs else None
    return None if high is not None and high < low else (low, high)


@dataclass(frozen=True, slots=True)
class SpareFit:
    classes: tuple[str, ...]
    value: float | None  # spare of logical (α − 1)
    low: float | None
    high: float | None
    note: str


def fit_spare(points: Sequence[WafPoint]) -> SpareFit:
    """Effective spare (α − 1) and the GC classes whose closed forms fit every point."""
    usable = [p for p in points if p.waf is not None]
    ranges = {c: _meet([alpha_range(c, p) for p in usable]) for c in CLASS_CURVES}
    fitting = tuple(c for c, r in ranges.items() if r is not None)
    if not fitting:
        return SpareFit((), None, None, None, "no GC class's closed form fits every WAF point")
    lows, highs = [], []
    for c in fitting:
        low, high = ranges[c] or (1.0, None)
        lows.append(low)
        highs.append(high)
    best, alpha = min(((c, best_alpha(c, usable)) for c in fitting), key=lambda x: x[1][1])
    value: float | None = alpha[0] - 1.0
    high_all = None if any(h is None for h in highs) else max(h for h in highs if h is not None)
    ranges_text = ", ".join(f"{c}: {_alpha_text(ranges[c])}" for c in fitting)
    return SpareFit(
        fitting,
        value,
        min(lows) - 1.0,
        None if high_all is None else high_all - 1.0,
        f"α (physical ÷ logical pages) allowed by every point: {ranges_text}; the value is "
        f"{best}'s least-squares α",
    )


def best_alpha(gc_class: str, points: Sequence[WafPoint]) -> tuple[float, float]:
    """(α, squared log residual) of `gc_class`'s closed form fitted to every point by least
    squares on log WAF (a golden-section search on α in 1 … 4)."""

    def cost(alpha: float) -> float:
        total = 0.0
        for p in points:
            assert p.waf is not None
            model = statistics.fmean(
                curve(alpha / p.active_fraction) for curve in CLASS_CURVES[gc_class]
            )
            total += (math.log(p.waf) - math.log(model)) ** 2
        return total

    lo, hi = 1.0 + 1e-6, 4.0
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(80):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if cost(a) < cost(b):
            hi = b
        else:
            lo = a
    alpha = (lo + hi) / 2.0
    return alpha, cost(alpha)


def _alpha_text(r: tuple[float, float | None] | None) -> str:
    if r is None:
        return "none"
    return f"{r[0]:.3f}–{'∞' if r[1] is None else f'{r[1]:.3f}'}"


# -- the whole fit -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FitInputs:
    cliffs: tuple[CliffInput, ...] = ()
    wafs: tuple[WafInput, ...] = ()
    target: str = "TARGET"  # the drive, as the advice's commands name it
    capacity_bytes: int | None = None  # the drive's, for the sizes in the advice
    skews: tuple[WafInput, ...] = ()  # JESD219 runs: spare and GC class fitted jointly
    # whether the drive's health readings hold NAND bytes written: False when readings were
    # taken and none does (spare and GC class cannot be measured), None when none was taken
    nand_counter: bool | None = None
    hir: HirInput | None = None  # a PTS Host Idle Recovery run: idle GC


def _interval_ends(interval: Interval | None) -> tuple[float | None, float | None]:
    return (None, None) if interval is None else (interval.low, interval.high)


def cache_command(target: str) -> str:
    return f"ssdlab run cache {target} --destroy-data"


def waf_command(target: str, capacity: int | None, fraction: float) -> str:
    """The endurance run that measures steady-state WAF over `fraction` of the drive: from a
    discarded drive, uniform 4 KiB random writes over the range, ten fills of it (steady state
    takes about five)."""
    if capacity is None:
        size, written = f"<{fraction:.0%} of the capacity>", "<10 × that>"
    else:
        unit = GiB if capacity * fraction >= 10 * GiB else MiB  # a round size to type
        region = int(capacity * fraction) // unit * unit
        size, written = _size_arg(region), _size_arg(10 * region)
    return (
        f"blkdiscard {target} && ssdlab run endurance {target} --destroy-data --size {size} "
        f"--workload randwrite-4k --until-written {written}"
    )


def _size_arg(nbytes: int) -> str:
    """A whole number of MiB as --size reads it: GiB when whole, else MiB."""
    return f"{nbytes // GiB}GiB" if nbytes % GiB == 0 else f"{nbytes // MiB}MiB"


def _cache_estimates(cliffs: Sequence[CliffInput], target: str) -> list[Estimate]:
    needs = cache_command(target)
    names = ("cache size", "SLC write rate", "native write rate", SUSTAINED)
    units = ("B", "B/s", "B/s", "B/s")
    if not cliffs:
        return [
            Estimate(n, None, None, None, u, (), needs) for n, u in zip(names, units, strict=True)
        ]
    cliff = cliffs[0]
    found: CliffUncertainty = cliff_uncertainty(list(cliff.verdicts))
    first = cliff.verdicts[0]
    src = (cliff.source,)
    if first.cliff_bytes is None:
        why = first.reason or "no cliff in the write"
        note = (
            f"no cache cliff found ({why}): no cache, or one larger than the write; "
            f"the write's median rate is {_rate(_median_rate(first))}"
        )
        return [
            Estimate("cache size", None, None, None, "B", src, needs, note),
            Estimate("SLC write rate", None, None, None, "B/s", src, None, note),
            Estimate(
                "native write rate",
                _median_rate(first),
                None,
                None,
                "B/s",
                src,
                None,
                "the whole write's median: no cliff to split it",
            ),
            sustained_estimate(first, src),
        ]
    state = f"cliff {found.state} ({found.basis}), ± one log interval (the cliff's resolution)"
    low, high = _interval_ends(found.cliff_bytes_interval)
    step = _log_step(first)
    return [
        Estimate(
            "cache size",
            first.cliff_bytes,
            None if low is None else max(low - step, 0.0),
            None if high is None else high + step,
            "B",
            src,
            None,
            state,
        ),
        Estimate(
            "SLC write rate",
            first.in_cache_bw_bytes_per_s,
            *_interval_ends(found.in_cache_interval),
            "B/s",
            src,
            None,
            "median before the cliff",
        ),
        Estimate(
            "native write rate",
            first.post_cache_bw_bytes_per_s,
            *_interval_ends(found.post_cache_interval),
            "B/s",
            src,
            None,
            "median after the cliff",
        ),
        sustained_estimate(first, src),
    ]


SUSTAINED = "sustained write rate"
SUSTAINED_BATCHES = 8


def _byte_weighted(points: Sequence[tuple[float, float]]) -> float | None:
    """Bytes ÷ time over (bytes written in the interval, rate) pairs: the rate a long write
    keeps, whether the log's intervals are equal in time (fio) or in bytes."""
    seconds = sum(b / r for b, r in points if r > 0)
    return sum(b for b, _ in points) / seconds if seconds > 0 else None


def sustained_estimate(verdict: CacheCliffVerdict, sources: tuple[Source, ...]) -> Estimate:
    """The write's rate from the cliff (the start: no cliff) to its end, folding and GC
    included, with Student's interval over `SUSTAINED_BATCHES` consecutive batches of the
    log."""
    cliff = verdict.cliff_bytes or 0.0
    steps = [(b - a, r) for (a, _), (b, r) in pairwise([(0.0, 0.0), *verdict.series]) if a >= cliff]
    value = _byte_weighted(steps)
    size = max(len(steps) // SUSTAINED_BATCHES, 1)
    batches = [_byte_weighted(steps[i : i + size]) for i in range(0, len(steps) - size + 1, size)]
    known = [b for b in batches if b is not None]
    interval = None
    if value is not None and len(known) >= 2:
        spread = statistics.stdev(known) / math.sqrt(len(known))
        interval = mean_interval(sample_of_seconds(value, known)) if spread > 0 else None
    low, high = _interval_ends(interval)
    return Estimate(
        SUSTAINED,
        value,
        low if low is not None else value,
        high if high is not None else value,
        "B/s",
        sources,
        None,
        "bytes ÷ time from the cliff to the end of the write (folding and GC included)",
    )


def _log_step(verdict: CacheCliffVerdict) -> float:
    """The bytes one log interval holds before the cliff (the median there): the interval
    straddling the cliff is put on one side, so the cliff is placed to about that much."""
    ends = [b for b, _ in verdict.series]
    steps = [b - a for a, b in pairwise([0.0, *ends]) if b <= (verdict.cliff_bytes or 0.0)]
    return statistics.median(steps) if steps else 0.0


def _median_rate(verdict: CacheCliffVerdict) -> float | None:
    rates = [bw for _, bw in verdict.series]
    return statistics.median(rates) if rates else None


def _rate(value: float | None) -> str:
    return "unknown" if value is None else f"{value / 1e6:.0f} MB/s"


def _cache_kind(cliffs: Sequence[CliffInput], target: str, spare: Estimate) -> Estimate:
    """Static, dynamic or hybrid from the cliffs of the cache runs with a known fill level
    (analysis/cache_kind.py), the fitted spare giving the free native space."""
    points = [cliff_at_fill(c) for c in cliffs if c.fill is not None and c.verdicts]
    found = fit_cache_kind(points, kind_alpha(spare))
    sources = tuple(c.source for c in cliffs if c.fill is not None)
    needs = None
    if found.next_fill is not None:
        needs = f"{cache_command(target)} --prefill {found.next_fill}% --prefill-idle 300"
    unknown = [c.source.label for c in cliffs if c.fill is None]
    note = found.evidence
    if unknown:
        note += (
            f"; {', '.join(unknown)}: no fill level recorded (run without --prefill), not used "
            "for the kind"
        )
    return Estimate(
        "cache kind",
        found.kind,
        None,
        None,
        "",
        sources,
        needs,
        note,
    )


KIND_SPARE_BAND = 0.02
"""± this much spare around the fitted value is the α the cache kind is judged over: the
fit's spare is within ±2 points of the truth on the simulated campaign's drives
(bench/RESULTS.md); its whole 95 % interval (±4–7 points from the closed forms) would leave
nearly every drive inconclusive."""


def kind_alpha(spare: Estimate) -> tuple[float, float] | None:
    """The physical ÷ logical interval the cache kind uses: the fitted spare's value ±
    `KIND_SPARE_BAND`, within its interval; None when the spare is not fitted."""
    if not isinstance(spare.value, float):
        return None
    low = spare.value - KIND_SPARE_BAND
    high = spare.value + KIND_SPARE_BAND
    if spare.low is not None:
        low = max(low, spare.low)
    if spare.high is not None:
        high = min(high, spare.high)
    return 1.0 + low, 1.0 + high


def cliff_at_fill(cliff: CliffInput) -> CliffAtFill:
    assert cliff.fill is not None
    first = cliff.verdicts[0]
    if first.cliff_bytes is None:
        return CliffAtFill(cliff.fill, 0.0, 0.0, 0.0, cliff.source.label)
    found = cliff_uncertainty(list(cliff.verdicts))
    low, high = _interval_ends(found.cliff_bytes_interval)
    step = _log_step(first)
    value = first.cliff_bytes
    return CliffAtFill(
        cliff.fill,
        value,
        max((value if low is None else low) - step, 0.0),
        (value if high is None else high) + step,
        cliff.source.label,
    )


def _by_fill(cliffs: Sequence[CliffInput]) -> tuple[CliffInput, ...]:
    """The cache runs, the emptiest known fill first (the cache size is the empty drive's),
    then those of unknown fill as given."""
    known = sorted((c for c in cliffs if c.fill is not None), key=lambda c: c.fill or 0.0)
    return (*known, *(c for c in cliffs if c.fill is None))


def fit_model(inputs: FitInputs) -> ModelFit:
    """Every parameter the inputs allow, each with the run it came from or the run it needs."""
    target, capacity = inputs.target, inputs.capacity_bytes
    cliffs = _by_fill(inputs.cliffs)
    estimates = _cache_estimates(cliffs, target)
    points = tuple(waf_point(w) for w in inputs.wafs)
    skews = tuple(waf_point(w) for w in inputs.skews)
    notes = [f"{p.source.label}: {p.reason}" for p in (*points, *skews) if p.reason]
    usable = [p for p in points if p.waf is not None]
    spare, gc, classes = _spare_and_class(usable, target, capacity)
    skewed = [p for p in skews if p.waf is not None]
    fitted_policy = fitted_block_pages = spare_capacity = None
    if skewed and usable:
        found = _joint(usable, skewed[0], capacity)
        spare, gc, classes, fitted_policy, fitted_block_pages = found
        spare_capacity = capacity
    elif usable and classes not in ((GcClass.GREEDY,), (GcClass.FIFO,)):
        gc = replace(gc, needs=gc.needs or skew_command(target, capacity))
    if not usable and not skewed and inputs.nand_counter is False:
        spare, gc = _no_nand()
    estimates += [_cache_kind(cliffs, target, spare), spare, gc]
    estimates.append(idle_gc_estimate(inputs.hir, target))
    return ModelFit(
        tuple(estimates),
        classes,
        (*points, *skews),
        tuple(notes),
        fitted_policy,
        inputs.nand_counter,
        fitted_block_pages,
        spare_capacity,
        tuple(cliff_at_fill(c) for c in cliffs if c.fill is not None and c.verdicts),
    )


IDLE_GC = "idle GC"
NO_IDLE_IN_MODEL = (
    "the simulator models no idle time, so model predict does not use it (docs/model-fit.md, "
    "*Idle GC*)"
)


def hir_command(target: str) -> str:
    return f"ssdlab run pts-hir {target} --destroy-data"


def idle_gc_estimate(hir: HirInput | None, target: str) -> Estimate:
    """Idle GC from a HIR run: present, absent or inconclusive (analysis/idle_gc.py), every
    wait state's gain in the note; without one, the run to add."""
    if hir is None:
        return Estimate(IDLE_GC, None, None, None, "", (), hir_command(target), NO_IDLE_IN_MODEL)
    found = judge_idle_gc(hir.rows)
    note = f"{found.reason}; {_gains_text(found)}; {NO_IDLE_IN_MODEL}"
    return Estimate(IDLE_GC, found.verdict.value, None, None, "", (hir.source,), None, note)


def _gains_text(found: IdleGc) -> str:
    """Every wait state's gain (access ÷ baseline IOPS) with its interval and samples."""
    parts = []
    for g in found.gains:
        value = "—" if g.gain is None else f"{g.gain:.3f}"
        ends = g.interval
        span = (
            "no interval"
            if ends is None or ends.low is None or ends.high is None
            else f"{ends.low:.3f}–{ends.high:.3f}"
        )
        parts.append(
            f"wait state {g.wait_state} {value} ({span}; {g.access_count} access periods after "
            f"an idle, {g.baseline_count} baseline points)"
        )
    return (
        f"gain (access ÷ baseline IOPS, 95 %) by wait state: {', '.join(parts)}; margin "
        f"±{100 * found.margin:.0f} %"
    )


def _no_nand() -> tuple[Estimate, Estimate]:
    """Spare and GC class of a drive without a NAND-written counter: not fitted, and no run
    on this drive would give them (`needs` None: the note says what would)."""
    return (
        Estimate("spare (of logical)", None, None, None, "", (), None, NO_NAND_COUNTER),
        Estimate("GC class", GcClass.UNKNOWN, None, None, "", (), None, NO_NAND_COUNTER),
    )


def skew_command(target: str, capacity: int | None) -> str:
    """The skewed run that tells greedy from FIFO: JESD219 over the whole drive, ten fills,
    from a discarded drive."""
    written = "<10 × the capacity>" if capacity is None else _size_arg(capacity // MiB * MiB * 10)
    return (
        f"blkdiscard {target} && ssdlab run endurance {target} --destroy-data "
        f"--workload jesd219-enterprise --until-written {written}"
    )


def _measured(point: WafPoint, kind: str) -> Measured:
    from ssdlab.analysis.model_fit_joint import Measured

    assert point.waf is not None
    low, high = _interval_ends(point.interval)
    half = 0.0 if low is None or high is None else (high - low) / 2.0 / point.waf
    return Measured(kind, point.active_fraction, point.waf, half, point.window_start, point.fills)


def _joint(
    uniform: Sequence[WafPoint], skewed: WafPoint, capacity: int | None
) -> tuple[Estimate, Estimate, tuple[str, ...], str, int]:
    """Spare and GC class fitted together over the uniform and the JESD219 points, the
    simulator as the forward model (model_fit_joint.py), the spare as the ratio of a drive of
    `capacity` (the model's own when it is unknown)."""
    from ssdlab.analysis.model_fit_joint import CLASS_MARGIN, GC_RESERVE_BLOCKS, joint_fit

    points = [*(_measured(p, "uniform") for p in uniform), _measured(skewed, "jesd219")]
    fit = joint_fit(points, capacity)
    sources = (*(p.source for p in uniform), skewed.source)
    misfits = ", ".join(f"{f.policy.value} {100 * f.misfit:.1f} %" for f in fit.fits)
    sizes = ", ".join(
        f"{f.block_pages}: {f.policy.value} {100 * f.misfit:.1f} %" for f in fit.block_fits
    )
    how = (
        "spare and GC policy fitted together over the uniform and JESD219 runs with the "
        f"simulator as the forward model; each policy's worst misfit at its best α "
        f"({fit.best.block_pages} pages a block): {misfits}; the best at each block size "
        f"(pages): {sizes}"
    )
    best = fit.best
    scale = (
        f"the model's α {100 * (best.alpha - 1):.1f} % as this drive's, the GC keeping "
        f"{GC_RESERVE_BLOCKS:g} blocks of {best.block_pages} pages from the host's data"
        if capacity
        else "as the model's α (the drive's capacity is unknown)"
    )
    spare = Estimate(
        "spare (of logical)",
        fit.alpha - 1.0,
        fit.alpha_low - 1.0,
        fit.alpha_high - 1.0,
        "",
        sources,
        None,
        f"{how}; the value is {best.policy.value}'s, {scale}",
    )
    name = fit.gc_class or GcClass.INCONCLUSIVE
    note = (
        f"best: {best.policy.value}; {how}"
        if fit.gc_class
        else f"neither class fits {CLASS_MARGIN:.0%} better than the other; {how}"
    )
    classes = (fit.gc_class,) if fit.gc_class else (GcClass.GREEDY, GcClass.FIFO)
    gc = Estimate("GC class", name, None, None, "", sources, None, note)
    return spare, gc, classes, best.policy.value, best.block_pages


def _spare_and_class(
    usable: Sequence[WafPoint], target: str, capacity: int | None
) -> tuple[Estimate, Estimate, tuple[str, ...]]:
    spare_name, gc_name = "spare (of logical)", "GC class"
    if not usable:
        first = waf_command(target, capacity, 1.0)
        both = f"{first}, then {waf_command(target, capacity, SECOND_RANGE_HINT)}"
        return (
            Estimate(spare_name, None, None, None, "", (), first),
            Estimate(gc_name, GcClass.UNKNOWN, None, None, "", (), both),
            (),
        )
    sources = tuple(p.source for p in usable)
    fractions = sorted({round(p.active_fraction, 3) for p in usable})
    if len(fractions) < 2:
        other = SECOND_RANGE_HINT if fractions[0] > SECOND_RANGE_HINT else 1.0
        second = waf_command(target, capacity, other)
        greedy = _only(usable, GcClass.GREEDY)
        note = "one active range cannot tell the GC class: spare assumes a greedy-like GC"
        if greedy is None:
            return (
                Estimate(spare_name, None, None, None, "", sources, second, note),
                Estimate(gc_name, GcClass.UNKNOWN, None, None, "", sources, second),
                (),
            )
        return (
            Estimate(
                spare_name,
                greedy.value,
                greedy.low,
                greedy.high,
                "",
                sources,
                second,
                f"{note}; {greedy.note}",
            ),
            Estimate(
                gc_name,
                GcClass.UNKNOWN,
                None,
                None,
                "",
                sources,
                second,
                "every class fits one point",
            ),
            (),
        )
    fit = fit_spare(usable)
    classes = fit.classes
    name = (
        classes[0]
        if len(classes) == 1
        else GcClass.NONE_FITS
        if not classes
        else GcClass.INCONCLUSIVE
    )
    note = f"closed forms that fit every point: {', '.join(classes) or 'none'}"
    if len(classes) > 1:
        note += (
            "; greedy and FIFO differ by only a few % once the effective spare (α/f) is past "
            "~20 %: a range nearer the whole drive, or a drive with less spare, separates them"
        )
    return (
        Estimate(spare_name, fit.value, fit.low, fit.high, "", sources, None, fit.note),
        Estimate(gc_name, name, None, None, "", sources, None, note),
        classes,
    )


def _only(points: Sequence[WafPoint], gc_class: str) -> SpareFit | None:
    ranges = _meet([alpha_range(gc_class, p) for p in points])
    if ranges is None:
        return None
    values = [_alpha_value(gc_class, p) for p in points]
    known = [v for v in values if v is not None]
    value = statistics.fmean(known) - 1.0 if known else None
    return SpareFit(
        (gc_class,),
        value,
        ranges[0] - 1.0,
        None if ranges[1] is None else ranges[1] - 1.0,
        f"α allowed: {_alpha_text(ranges)}",
    )
