"""Spare and GC policy fitted together, with the simulator as the forward model, once a skewed
run is among the inputs (docs/model-fit.md).

Uniform random writes hardly tell greedy from FIFO (a few % apart); under JESD219's zones and
transfer sizes FIFO writes 11–13 % more than greedy and cost-benefit 11–14 % less, because
FIFO cleans the oldest block whatever it holds. No closed form covers greedy under skew, so
each policy's WAF at every measured point (uniform at two ranges, JESD219) is the simulator's
own: a drive of `MODEL_BYTES` with `MODEL_BLOCK_PAGES` pages a block and no SLC cache, written
the run's own history replayed (from empty, the same fills of the range, WAF over the same
window). For each policy α
(native ÷ logical pages) is fitted by least squares on log WAF over all points; its *misfit*
is the largest |log measured − log simulated| at that α. The best policy's class is named
when every policy of the other class misfits by `CLASS_MARGIN` more; else the class is
inconclusive. The spare interval is the α over which the best policy's misfit stays within
its own plus the points' measurement half-widths and `MODEL_TOLERANCE`.

Needs the compiled simulator core to be quick (a fit is a few hundred simulations, about a
second on the Rust core); on the Python core it takes minutes.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from ssdlab.sim.config import GcPolicy, SimConfig
from ssdlab.sim.engine import simulate
from ssdlab.sim.workload import Workload

MODEL_BYTES = 64 * 2**20
MODEL_BLOCK_PAGES = 64
MODEL_TOLERANCE = 0.02
"""Allowed relative error of the simulator's WAF against a drive it describes (block size,
GC thresholds and SLC cache are not fitted)."""
CLASS_MARGIN = 0.02
"""How much worse (in |log WAF|) every policy of the other class must fit to name a class."""
ALPHA_RANGE = (1.0, 2.0)
ALPHA_STEP = 0.0025
GREEDY_LIKE = "greedy-like"
FIFO_LIKE = "fifo-like"
POLICY_CLASS = {
    GcPolicy.GREEDY: GREEDY_LIKE,
    GcPolicy.COST_BENEFIT: GREEDY_LIKE,
    GcPolicy.D_CHOICES: GREEDY_LIKE,
    GcPolicy.FIFO: FIFO_LIKE,
}
_SPARE_BLOCKS = 6  # the simulator's GC needs a few free blocks beyond the logical ones


@dataclass(frozen=True, slots=True)
class Measured:
    """One point: steady-state WAF (and its 95 % interval's relative half-width) of a
    workload (`uniform` or `jesd219`) over `fraction` of the drive."""

    kind: str
    fraction: float
    waf: float
    half_width: float
    start_fills: float  # the WAF window, in fills of the range written from a discarded drive
    end_fills: float


@dataclass(frozen=True, slots=True)
class PolicyFit:
    policy: GcPolicy
    alpha: float
    misfit: float  # largest |log measured − log simulated| over the points at `alpha`


@dataclass(frozen=True, slots=True)
class JointFit:
    fits: tuple[PolicyFit, ...]  # every policy, best first
    gc_class: str | None  # None: inconclusive
    alpha_low: float
    alpha_high: float

    @property
    def best(self) -> PolicyFit:
        return self.fits[0]


@cache
def model_waf(
    policy: GcPolicy, alpha: float, kind: str, fraction: float, window: tuple[float, float]
) -> float:
    """The simulator's WAF for `kind` writes over `fraction` of a drive of ratio α, from empty,
    over the same window of fills of the range as the measurement (α rounded to `ALPHA_STEP`
    and the window to a tenth of a fill by the callers, so a question is answered once). The
    run's own history is replayed: a skewed workload takes some twenty fills to settle, and a
    measured window before that is compared with the same window simulated."""
    block = MODEL_BLOCK_PAGES * 4096
    physical = max(round(MODEL_BYTES * alpha), MODEL_BYTES + _SPARE_BLOCKS * block)
    config = SimConfig(MODEL_BYTES, physical, pages_per_block=MODEL_BLOCK_PAGES, gc_policy=policy)
    span = MODEL_BYTES * fraction
    start, end = window
    step = int(span / 20)
    result = simulate(
        config,
        Workload(kind=kind, span_fraction=fraction),
        host_bytes=int(span * end),
        interval_bytes=step,
    )
    first = next(i for i in result.intervals if i.host_write_bytes >= span * start - step / 2)
    last = result.intervals[-1]
    host = last.host_write_bytes - first.host_write_bytes
    if host <= 0:
        raise ValueError("the window holds no writes")
    return (last.nand_write_bytes - first.nand_write_bytes) / host


def _key(point: Measured) -> tuple[str, float, tuple[float, float]]:
    window = (round(point.start_fills, 1), round(point.end_fills, 1))
    return point.kind, round(point.fraction, 4), window


def _grid(alpha: float) -> float:
    low, high = ALPHA_RANGE
    return round(min(max(alpha, low), high) / ALPHA_STEP) * ALPHA_STEP


def misfit(policy: GcPolicy, alpha: float, points: Sequence[Measured]) -> float:
    a = _grid(alpha)
    return max(abs(math.log(p.waf) - math.log(model_waf(policy, a, *_key(p)))) for p in points)


def _squares(policy: GcPolicy, alpha: float, points: Sequence[Measured]) -> float:
    a = _grid(alpha)
    return sum((math.log(p.waf) - math.log(model_waf(policy, a, *_key(p)))) ** 2 for p in points)


def fit_policy(policy: GcPolicy, points: Sequence[Measured]) -> PolicyFit:
    """α by least squares on log WAF (golden-section search over `ALPHA_RANGE`)."""
    lo, hi = ALPHA_RANGE
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    while hi - lo > ALPHA_STEP:
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if _squares(policy, a, points) < _squares(policy, b, points):
            hi = b
        else:
            lo = a
    alpha = _grid((lo + hi) / 2.0)
    return PolicyFit(policy, alpha, misfit(policy, alpha, points))


def _alpha_range(best: PolicyFit, points: Sequence[Measured]) -> tuple[float, float]:
    allowed = best.misfit + max(p.half_width for p in points) + MODEL_TOLERANCE
    ends = []
    for step in (-ALPHA_STEP, ALPHA_STEP):
        alpha = best.alpha
        while ALPHA_RANGE[0] < alpha < ALPHA_RANGE[1]:
            if misfit(best.policy, alpha + step, points) > allowed:
                break
            alpha = _grid(alpha + step)
        ends.append(alpha)
    return ends[0], ends[1]


def joint_fit(points: Sequence[Measured]) -> JointFit:
    """Every policy fitted to every point; the class named or not, and the spare's α range."""
    fits = sorted((fit_policy(p, points) for p in POLICY_CLASS), key=lambda f: f.misfit)
    best = fits[0]
    mine = POLICY_CLASS[best.policy]
    others = [f.misfit for f in fits if POLICY_CLASS[f.policy] != mine]
    named = mine if all(m >= best.misfit + CLASS_MARGIN for m in others) else None
    low, high = _alpha_range(best, points)
    if named is None:  # the spare of the other class's best policy is as likely
        other = next(f for f in fits if POLICY_CLASS[f.policy] != mine)
        other_low, other_high = _alpha_range(other, points)
        low, high = min(low, other_low), max(high, other_high)
    return JointFit(tuple(fits), named, low, high)
