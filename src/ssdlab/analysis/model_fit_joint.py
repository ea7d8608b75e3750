"""Spare and GC policy fitted together, with the simulator as the forward model, once a skewed
run is among the inputs (docs/model-fit.md).

Uniform random writes hardly tell greedy from FIFO (a few % apart); under JESD219's zones and
transfer sizes FIFO writes 11–13 % more than greedy and cost-benefit 11–14 % less, because
FIFO cleans the oldest block whatever it holds. No closed form covers greedy under skew, so
each policy's WAF at every measured point (uniform at two ranges, JESD219) is the simulator's
own: a drive of `MODEL_BYTES` with no SLC cache, written the run's own history replayed (from
empty, the same fills of the range, WAF over the same window).

The drive's block size is a nuisance parameter: the blocks its GC keeps free (two, and the
open one) are spare the host's data never uses, so the same WAF means more spare with larger
blocks — about 3.5 points between 64 and 256 pages a block at 64 MiB, more than the data can
tell apart. Each of `BLOCK_PAGES` is fitted. For each size and policy α (native ÷ logical
pages, whole blocks: the model's own grid) is fitted by least squares on log WAF over all
points; its *misfit* is the largest |log measured − log simulated| at that α. The value is
taken at `VALUE_BLOCK_PAGES` (the middle of the sizes), unless its best policy fits worse
than another size's by `CLASS_MARGIN` (a drive with less spare than the middle size's free
blocks allow: the nearest size that fits). The best policy's class is named when every policy
of the other class, at every size, misfits by `CLASS_MARGIN` more than the best of its own;
else the class is inconclusive. The spare interval is the union, over every size that fits,
of the α over which that size's best policy of the named class (and of the other class, when
inconclusive) stays within its own misfit plus the points' measurement half-widths and
`MODEL_TOLERANCE`.

The model drive is `MODEL_BYTES` whatever the drive's size, and the blocks its GC keeps from
the host's data (`GC_RESERVE_BLOCKS`) are the same count on any drive: a larger share of a
smaller one. The spare is reported as the drive's own ratio (`drive_alpha`, from its
capacity): on a 32 MiB drive of 256-page blocks 2.3 points more than the model's α, on a
drive of hundreds of GB 2.3 points less; `model predict` converts it back (`model_alpha`).
How many blocks the reserve holds varies a little with the workload and policy
(`GC_RESERVE_RANGE`), and the interval spans it.

Needs the compiled simulator core to be quick (a fit is about four hundred simulations, a few
seconds on the Rust core); on the Python core it takes many minutes.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

from ssdlab.sim.config import GcPolicy, SimConfig
from ssdlab.sim.engine import simulate
from ssdlab.sim.workload import Workload

MODEL_BYTES = 64 * 2**20
"""The model drive's logical size, for the fit and for `model predict` alike."""
MODEL_BLOCK_PAGES = 64
PAGE_BYTES = 4096
BLOCK_PAGES = (64, 128, 256)
"""The model's block sizes (pages of 4 KiB, 1/256 to 1/64 of `MODEL_BYTES`): the drive's is not
measured, and the blocks its GC keeps free are spare the host's data cannot use, so the same
WAF means more spare with larger blocks (about 3.5 points from the first to the last here).
Every size is fitted; the spare's value is `VALUE_BLOCK_PAGES`' and its interval spans every
size whose best policy fits as well as the best (within `CLASS_MARGIN`)."""
VALUE_BLOCK_PAGES = 128
MODEL_TOLERANCE = 0.02
"""Allowed relative error of the simulator's WAF against a drive it describes (block size,
GC thresholds and SLC cache are not fitted)."""
CLASS_MARGIN = 0.02
"""How much worse (in |log WAF|) every policy of the other class must fit to name a class."""
GC_RESERVE_BLOCKS = 1.5
"""Blocks of a drive its GC keeps from the host's data whatever the drive's size (the free
blocks it holds between its thresholds and the open block, in effect): the same number of
blocks is a larger share of a smaller drive. Measured on the simulator itself, as the spare
a 64 MiB model needs for the WAF of a 32 MiB drive of the same block size: 1.0–1.75 blocks,
1.53 on average, over uniform random and JESD219 writes, greedy, cost-benefit and FIFO,
64–256 pages a block and 8–30 % spare (docs/model-fit.md); the spare's interval spans
`GC_RESERVE_RANGE`."""
GC_RESERVE_RANGE = (1.0, 1.75)
ALPHA_RANGE = (1.0, 2.0)
GREEDY_LIKE = "greedy-like"
FIFO_LIKE = "fifo-like"
POLICY_CLASS = {
    GcPolicy.GREEDY: GREEDY_LIKE,
    GcPolicy.COST_BENEFIT: GREEDY_LIKE,
    GcPolicy.D_CHOICES: GREEDY_LIKE,
    GcPolicy.FIFO: FIFO_LIKE,
}
SPARE_BLOCKS = 4  # the fewest free blocks beyond the logical ones the simulator's GC takes


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
    alpha: float  # the model's own: whole blocks of `block_pages`
    misfit: float  # largest |log measured − log simulated| over the points at `alpha`
    block_pages: int = MODEL_BLOCK_PAGES


@dataclass(frozen=True, slots=True)
class JointFit:
    fits: tuple[PolicyFit, ...]  # every policy at the value's block size, best first
    gc_class: str | None  # None: inconclusive
    alpha: float  # the drive's (`drive_alpha` of the best fit's): the spare's value
    alpha_low: float  # the drive's, as `alpha`
    alpha_high: float
    block_fits: tuple[PolicyFit, ...] = ()  # each block size's best policy, best first

    @property
    def best(self) -> PolicyFit:
        return self.fits[0]


def model_config(
    policy: GcPolicy, alpha: float, block_pages: int = MODEL_BLOCK_PAGES, seed: int = 1
) -> SimConfig:
    """The model drive of ratio α, the one the fit and `model predict` simulate:
    `MODEL_BYTES` logical, 4 KiB pages, the nearest whole number of blocks of `block_pages`
    (at least `SPARE_BLOCKS` beyond the logical ones), no SLC cache."""
    block = block_pages * PAGE_BYTES
    return SimConfig(
        MODEL_BYTES,
        _blocks(alpha, block_pages, round) * block,
        page_bytes=PAGE_BYTES,
        pages_per_block=block_pages,
        gc_policy=policy,
        seed=seed,
    )


def _blocks(alpha: float, block_pages: int, rounding: Callable[[float], int]) -> int:
    block = block_pages * PAGE_BYTES
    count = rounding(round(MODEL_BYTES * alpha / block, 6))  # 6 places: α's own float error
    return max(count, MODEL_BYTES // block + SPARE_BLOCKS)


def grid_alpha(
    alpha: float, block_pages: int = MODEL_BLOCK_PAGES, rounding: Callable[[float], int] = round
) -> float:
    """α as the model drive holds it: whole blocks of `block_pages` (`rounding` a fractional
    count: the fit takes the nearest, `model predict` rounds down, as a drive of that many
    bytes would), at least `SPARE_BLOCKS` beyond the logical ones."""
    return _blocks(alpha, block_pages, rounding) * block_pages * PAGE_BYTES / MODEL_BYTES


def drive_alpha(
    alpha: float,
    block_pages: int,
    capacity_bytes: int | None,
    reserve_blocks: float = GC_RESERVE_BLOCKS,
) -> float:
    """The model's α as the ratio of a drive of `capacity_bytes` and the same block size
    that shows the same WAF: the spare beyond the GC's reserve (`reserve_blocks`) is the
    same share of each. Unchanged when the capacity is unknown."""
    return alpha + _reserve_shift(block_pages, capacity_bytes, reserve_blocks)


def model_alpha(alpha: float, block_pages: int, capacity_bytes: int | None) -> float:
    """A drive's α as the model's (the inverse of `drive_alpha`)."""
    return alpha - _reserve_shift(block_pages, capacity_bytes, GC_RESERVE_BLOCKS)


def _reserve_shift(block_pages: int, capacity_bytes: int | None, reserve_blocks: float) -> float:
    """How much more of a drive of `capacity_bytes` than of the model the GC's reserve is."""
    if not capacity_bytes:
        return 0.0
    reserve = reserve_blocks * block_pages * PAGE_BYTES
    return reserve / capacity_bytes - reserve / MODEL_BYTES


@cache
def model_waf(
    policy: GcPolicy,
    alpha: float,
    kind: str,
    fraction: float,
    window: tuple[float, float],
    block_pages: int = MODEL_BLOCK_PAGES,
) -> float:
    """The simulator's WAF for `kind` writes over `fraction` of a drive of ratio α, from empty,
    over the same window of fills of the range as the measurement (α on the model's block grid
    and the window rounded to a tenth of a fill by the callers, so a question is answered
    once). The run's own history is replayed: a skewed workload takes some twenty fills to
    settle, and a measured window before that is compared with the same window simulated."""
    config = model_config(policy, alpha, block_pages)
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


def _step(block_pages: int) -> float:
    """One block of `block_pages` in α: the model's grid."""
    return block_pages * PAGE_BYTES / MODEL_BYTES


def _grid(alpha: float, block_pages: int = MODEL_BLOCK_PAGES) -> float:
    """α as the model holds it: whole blocks, at least `SPARE_BLOCKS` beyond the logical."""
    low, high = ALPHA_RANGE
    return grid_alpha(min(max(alpha, low), high), block_pages)


def misfit(
    policy: GcPolicy, alpha: float, points: Sequence[Measured], block_pages: int = MODEL_BLOCK_PAGES
) -> float:
    a = _grid(alpha, block_pages)
    return max(
        abs(math.log(p.waf) - math.log(model_waf(policy, a, *_key(p), block_pages))) for p in points
    )


def _squares(policy: GcPolicy, alpha: float, points: Sequence[Measured], block_pages: int) -> float:
    a = _grid(alpha, block_pages)
    return sum(
        (math.log(p.waf) - math.log(model_waf(policy, a, *_key(p), block_pages))) ** 2
        for p in points
    )


def fit_policy(
    policy: GcPolicy, points: Sequence[Measured], block_pages: int = MODEL_BLOCK_PAGES
) -> PolicyFit:
    """α by least squares on log WAF (golden-section search over `ALPHA_RANGE`, to the
    model's block grid, then the better of the two grid points around it)."""
    lo, hi = ALPHA_RANGE
    step = _step(block_pages)
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    while hi - lo > step:
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if _squares(policy, a, points, block_pages) < _squares(policy, b, points, block_pages):
            hi = b
        else:
            lo = a
    near = {_grid(lo, block_pages), _grid(hi, block_pages)}
    alpha = min(sorted(near), key=lambda a: _squares(policy, a, points, block_pages))
    return PolicyFit(policy, alpha, misfit(policy, alpha, points, block_pages), block_pages)


def _alpha_range(best: PolicyFit, points: Sequence[Measured]) -> tuple[float, float]:
    allowed = best.misfit + max(p.half_width for p in points) + MODEL_TOLERANCE
    pages = best.block_pages
    step = _step(pages)
    ends = []
    for direction in (-step, step):
        alpha = best.alpha
        while ALPHA_RANGE[0] < alpha < ALPHA_RANGE[1]:
            after = _grid(alpha + direction, pages)
            if after == alpha or misfit(best.policy, after, points, pages) > allowed:
                break
            alpha = after
        ends.append(alpha)
    return ends[0], ends[1]


def joint_fit(points: Sequence[Measured], capacity_bytes: int | None = None) -> JointFit:
    """Every policy fitted to every point at every block size; the class named or not, and
    the spare's α range over every block size and class the points cannot tell apart, as
    the ratio of the drive of `capacity_bytes` (`drive_alpha`; the model's when unknown)."""
    by_size = {
        pages: sorted((fit_policy(p, points, pages) for p in POLICY_CLASS), key=lambda f: f.misfit)
        for pages in BLOCK_PAGES
    }
    bests = sorted((fits[0] for fits in by_size.values()), key=lambda f: f.misfit)
    # the value's block size, unless it fits clearly worse than another (a drive with less
    # spare than its few free blocks allow: then the best size's)
    fitting = [f for f in bests if f.misfit <= bests[0].misfit + CLASS_MARGIN]
    middle = min(fitting, key=lambda f: abs(math.log(f.block_pages / VALUE_BLOCK_PAGES)))
    fits = by_size[middle.block_pages]
    best = fits[0]
    mine = POLICY_CLASS[best.policy]
    every = [f for size in by_size.values() for f in size]
    others = [f.misfit for f in every if POLICY_CLASS[f.policy] != mine]
    mine_best = min(f.misfit for f in every if POLICY_CLASS[f.policy] == mine)
    named = mine if all(m >= mine_best + CLASS_MARGIN for m in others) else None
    value = drive_alpha(best.alpha, best.block_pages, capacity_bytes)
    low, high = value, value
    for size_fit in fitting:
        ranked = by_size[size_fit.block_pages]
        kept = [next(f for f in ranked if POLICY_CLASS[f.policy] == mine)]
        if named is None:  # the spare of the other class's best policy is as likely
            kept.append(next(f for f in ranked if POLICY_CLASS[f.policy] != mine))
        for f in kept:
            ends = [
                drive_alpha(a, f.block_pages, capacity_bytes, blocks)
                for a in _alpha_range(f, points)
                for blocks in GC_RESERVE_RANGE
            ]
            low, high = min(low, *ends), max(high, *ends)
    return JointFit(tuple(fits), named, value, low, high, tuple(bests))
