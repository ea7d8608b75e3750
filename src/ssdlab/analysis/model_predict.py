"""What a fitted drive model (`ssdlab model fit`) predicts for a workload the fit need not have
seen: steady-state WAF, the cliff (bytes written from empty before the SLC cache runs out)
and the write rate after it, steady-state random-write IOPS, and days to end of life against
the drive's rating at a daily host write volume — each with an interval (docs/model-fit.md,
*Predicting*).

**Forward model.** The simulator (sim/engine.py) with the fitted effective spare (α − 1) and
GC policy (the fit's spare converted back from the drive's capacity to the model's,
`model_alpha`): a `MODEL_BYTES` drive, `MODEL_BLOCK_PAGES` pages a block, 4 KiB pages, no SLC
cache (as the joint fit uses it, analysis/model_fit_joint.py), written from empty for
`MODEL_FILLS` fills of the workload's range; steady state is the WAF over the last
`WINDOW_FILLS`. IOPS: the same simulation's write rate over that window relative to the
model's own sequential native rate (a page program on every parallel unit), times the fitted
native write rate; the model's read and erase times relative to its program time are the
simulator's defaults (sim/config.py `Timing`), not fitted.

**Intervals** are ranges, not probabilities: every figure is evaluated at each *corner* — the
fitted spare's low end, value and high end, with the fitted policy (and, when the GC class is
inconclusive, with the other class's policy too), the rates' interval ends — and at the value
with `SEEDS` simulator seeds (the simulator's own run-to-run spread); the interval is the
smallest to the largest. It covers what the fit's intervals cover (each a 95 % interval) and
the simulator's seed spread; not the model's own error (block size, SLC cache, GC thresholds
are not fitted: about 2–4 %, analysis/model_fit_joint.py `MODEL_TOLERANCE`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from ssdlab.analysis.cache_fill import predict_cliff_at
from ssdlab.analysis.cache_kind import CliffAtFill
from ssdlab.analysis.model_fit import cache_command
from ssdlab.analysis.model_fit_joint import (
    MODEL_BLOCK_PAGES,
    MODEL_BYTES,
    PAGE_BYTES,
    grid_alpha,
    model_alpha,
    model_config,
)
from ssdlab.model.units import KiB
from ssdlab.sim.config import GcPolicy, Timing
from ssdlab.sim.engine import simulate
from ssdlab.sim.workload import Workload

MODEL_FILLS = 60.0
"""Fills of the range simulated: JESD219 over a drive of little spare settles after 20–40."""
WINDOW_FILLS = 20.0
"""The last fills of the simulation the steady-state figures are read over."""
STEADY_WINDOW = (MODEL_FILLS - WINDOW_FILLS, MODEL_FILLS)
SEEDS = (1, 2, 3)
ALPHA_CAP = 4.0
"""The spare's high end when the fit left it unbounded (300 % spare: WAF within 1 % of 1)."""
SPARE_PRIOR = (0.06, 0.28)
"""The effective spare (of logical) assumed for a drive that reports no NAND writes, whose
spare cannot be fitted: from 7 % (a GiB of NAND sold as a GB: consumer and read-intensive
drives) less about the point a controller keeps for itself (the Crucial C300's WAF of 8 at
7.37 % raw spare is 6.4–6.8 % effective, reference/ftl.md §3.2) to 28 % (mixed-use enterprise
drives; the Samsung 850 EVO's 9.1–12.7 % lies between). An assumption, not a measurement: a
write-intensive drive (37 % and more) lies above it (docs/model-fit.md, *On a real drive*)."""


def assumed_text(spare: tuple[float, float], given: bool, nand_counter: bool | None) -> str:
    """Why a figure is a range over an assumed spare, and whose assumption it is."""
    low, high = (f"{100 * v:.3g}" for v in spare)
    what = f"{low} %" if low == high else f"{low}–{high} %"
    whose = (
        "given by --assume-spare"
        if given
        else "consumer to mixed-use enterprise drives; --assume-spare to change it"
    )
    why = (
        "the drive reports no NAND writes, so its spare cannot be measured"
        if nand_counter is False
        else "the fit measured no spare (no endurance run with NAND readings)"
    )
    return (
        f"assumed, not fitted: {why}; the range is over an assumed {what} effective spare "
        f"({whose}) with greedy and FIFO GC"
    )


RATING_WORKLOAD = "jesd219-enterprise"
"""The workload a TBW rating is taken to be measured at (JESD218's enterprise class)."""

_CLASS_POLICY = {"greedy-like": "greedy", "fifo-like": "fifo", "random-like": "random"}
_OTHER_CLASS = {"greedy": "fifo", "cost-benefit": "fifo", "d-choices": "fifo", "fifo": "greedy"}


@dataclass(frozen=True, slots=True)
class Bounds:
    """A fitted value and the ends of its interval (high None: unbounded)."""

    value: float
    low: float
    high: float | None


@dataclass(frozen=True, slots=True)
class ModelParams:
    """A stored fit's parameters as the predictions use them; None: not fitted (`missing`
    says why and what run would give it)."""

    target: str
    alpha: Bounds | None
    policy: str | None  # the simulator's policy the spare was fitted with
    other_policy: str | None  # the other class's, when the class is inconclusive
    cache_bytes: Bounds | None
    native_rate: Bounds | None
    capacity_bytes: int | None
    sustained_rate: Bounds | None = None
    missing: Mapping[str, tuple[str, str | None]] = field(default_factory=dict)
    # not None: `alpha` and the policies are the assumed range (`SPARE_PRIOR`), not a fit's;
    # the reason the figures that depend on them give
    assumed: str | None = None
    block_pages: int = MODEL_BLOCK_PAGES  # the model's, as the spare was fitted at
    # the capacity `alpha` is the ratio of (model_fit_joint.model_alpha converts it to the
    # model's); None: `alpha` is the model's own
    spare_capacity_bytes: int | None = None
    cache_kind: str | None = None  # the fit's (cache_kind.CacheKind), None: not fitted
    cache_kind_needs: str | None = None  # the run the kind's estimate asks for
    # the cliff of each cache run at its fill level (the fit's `cache_fills`; () in a fit
    # stored before them)
    cache_fills: tuple[CliffAtFill, ...] = ()


@dataclass(frozen=True, slots=True)
class PredictWorkload:
    """Writes of `block_bytes` over `span` of the drive: `uniform` random, `jesd219`
    (the enterprise mix, its own transfer sizes) or `sequential`."""

    kind: str
    block_bytes: int
    span: float = 1.0
    name: str = ""
    # the fills of the range, written from a discarded drive, the WAF and IOPS are read over
    # (verify: the measured run's own window); the default is steady state
    window: tuple[float, float] = (MODEL_FILLS - WINDOW_FILLS, MODEL_FILLS)

    def describe(self) -> str:
        what = {
            "uniform": f"uniform random {_size(self.block_bytes)} writes",
            "jesd219": "JESD219 enterprise writes (its zones and transfer sizes)",
            "sequential": f"sequential {_size(self.block_bytes)} writes",
        }[self.kind]
        text = f"{what} over {self.span:.0%} of the drive"
        if self.window != STEADY_WINDOW:
            start, end = self.window
            text += f", fills {start:g}–{end:g} from a discarded drive"
        return text


@dataclass(frozen=True, slots=True)
class Figure:
    """One predicted (or measured) figure: value and interval ends, or None and the reason,
    with the command that would give what is missing."""

    name: str
    unit: str
    value: float | None
    low: float | None = None
    high: float | None = None
    reason: str | None = None
    needs: str | None = None
    basis: str | None = None
    # the interval is over an assumed spare range (`assumed_text`), not a fit's: value None
    assumed: bool = False


@dataclass(frozen=True, slots=True)
class Rating:
    """What the drive's life is held against: rated TBW (host bytes at the rating's workload,
    `RATING_WORKLOAD`) or rated P/E cycles; `source` says where it came from."""

    tbw_bytes: float | None
    pe_cycles: float | None
    source: str


@dataclass(frozen=True, slots=True)
class Prediction:
    workload: PredictWorkload
    figures: tuple[Figure, ...]
    corners: tuple[str, ...]  # the corners evaluated, as text
    daily_bytes: float | None
    fill: float = 0.0  # of the drive written before the workload (0: a discarded drive)

    def figure(self, name: str) -> Figure:
        return next(f for f in self.figures if f.name == name)


WAF = "steady-state WAF"
CLIFF = "cliff position"
POST_CLIFF = "post-cliff throughput"
IOPS = "steady-state write IOPS"
DAYS = "days to end of life"


def _size(nbytes: int) -> str:
    return f"{nbytes // KiB} KiB" if nbytes % KiB == 0 else f"{nbytes} B"


# -- the stored fit -----------------------------------------------------------------------


def _parameter(body: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    for p in body.get("parameters", []):
        if isinstance(p, Mapping) and p.get("name") == name:
            return p
    return {}


def _bounds(p: Mapping[str, Any], offset: float = 0.0) -> Bounds | None:
    value = p.get("value")
    if not isinstance(value, int | float):
        return None
    low, high = p.get("low"), p.get("high")
    return Bounds(
        float(value) + offset,
        float(low) + offset if isinstance(low, int | float) else float(value) + offset,
        float(high) + offset if isinstance(high, int | float) else None,
    )


def params_of(
    body: Mapping[str, Any],
    capacity_bytes: int | None = None,
    assume_spare: tuple[float, float] | None = None,
) -> ModelParams:
    """The predictions' parameters from a stored fit (format `ssdlab-model-fit`). A spare the
    fit did not measure is taken from `assume_spare` (low, high; a user's), else, for a drive
    that reports no NAND writes, from `SPARE_PRIOR` — flagged as assumed either way."""
    simulator = body.get("simulator") or {}
    missing: dict[str, tuple[str, str | None]] = {}
    for key, name in (
        ("alpha", "spare (of logical)"),
        ("cache", "cache size"),
        ("native", "native write rate"),
    ):
        p = _parameter(body, name)
        if not isinstance(p.get("value"), int | float):
            why = p.get("note") or "its input run is missing"
            needs = p.get("needs") or _parameter(body, "cache size").get("needs")
            missing[key] = (f"{name} not fitted: {why}", needs)
    classes = [str(c) for c in simulator.get("gc_classes_fitting") or []]
    policy = simulator.get("gc_policy_fitted") or simulator.get("gc_policy")
    if policy is None and classes:
        policy = _CLASS_POLICY.get(classes[0])
    other = None
    if simulator.get("gc_policy") is None and policy is not None:
        other = _OTHER_CLASS.get(str(policy))
    if policy is None and "alpha" not in missing:
        # one active range: the spare was fitted assuming a greedy-like GC; both classes'
        # policies are corners, so the interval holds what the class leaves open
        policy, other = "greedy", "fifo"
    elif policy is None:
        gc = _parameter(body, "GC class")
        missing["policy"] = (
            f"GC class {gc.get('value') or 'unknown'}: {gc.get('note') or 'not fitted'}",
            gc.get("needs"),
        )
    capacity = simulator.get("capacity_bytes") or capacity_bytes
    kind = _parameter(body, "cache kind")
    pages = simulator.get("pages_per_block_fitted")
    spare_capacity = simulator.get("spare_capacity_bytes")
    alpha = _bounds(_parameter(body, "spare (of logical)"), 1.0)
    assumed = None
    if alpha is None and (assume_spare is not None or body.get("nand_counter") is False):
        # no run of this drive measured the spare: predict over the assumed range
        low, high = assume_spare or SPARE_PRIOR
        alpha = Bounds(1.0 + (low + high) / 2.0, 1.0 + low, 1.0 + high)
        policy, other = "greedy", "fifo"
        given = assume_spare is not None
        assumed = assumed_text((low, high), given, body.get("nand_counter"))
        missing.pop("alpha", None)
        missing.pop("policy", None)
    return ModelParams(
        target=str(body.get("target") or "TARGET"),
        alpha=alpha,
        policy=None if policy is None else str(policy),
        other_policy=other,
        cache_bytes=_bounds(_parameter(body, "cache size")),
        native_rate=_bounds(_parameter(body, "native write rate")),
        capacity_bytes=int(capacity) if isinstance(capacity, int | float) else None,
        missing=missing,
        sustained_rate=_bounds(_parameter(body, "sustained write rate")),
        assumed=assumed,
        block_pages=int(pages) if isinstance(pages, int) and not assumed else MODEL_BLOCK_PAGES,
        spare_capacity_bytes=(
            int(spare_capacity) if isinstance(spare_capacity, int) and not assumed else None
        ),
        cache_kind=kind.get("value") if isinstance(kind.get("value"), str) else None,
        cache_kind_needs=kind.get("needs") if isinstance(kind.get("needs"), str) else None,
        cache_fills=_cache_fills(body.get("cache_fills")),
    )


def _cache_fills(stored: Any) -> tuple[CliffAtFill, ...]:
    """The fit's cliffs at each fill level (none in a fit stored before them)."""
    found = []
    for p in stored if isinstance(stored, list) else []:
        try:
            found.append(
                CliffAtFill(
                    float(p["fill"]),
                    float(p["cliff_bytes"]),
                    float(p["low"]),
                    float(p["high"]),
                    str(p.get("label", "")),
                )
            )
        except (KeyError, TypeError, ValueError):
            continue
    return tuple(sorted(found, key=lambda p: p.fill))


# -- the forward model --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Steady:
    """The model's steady state for one workload at one corner: WAF, and its write rate as a
    share of the model's sequential native rate."""

    waf: float
    rate_share: float


@cache
def steady_state(
    policy: str,
    alpha: float,
    kind: str,
    block_bytes: int,
    span: float,
    seed: int,
    window: tuple[float, float] = STEADY_WINDOW,
    block_pages: int = MODEL_BLOCK_PAGES,
) -> Steady:
    """The simulator's WAF and rate over `window` (fills of the range from empty; by default
    steady state), cached: a corner is asked for by several figures."""
    start_fills, end_fills = window
    config = model_config(GcPolicy(policy), alpha, block_pages, seed)
    span_bytes = MODEL_BYTES * span
    step = max(int(span_bytes / 10), PAGE_BYTES)
    pages = 1 if kind == "jesd219" else max(block_bytes // PAGE_BYTES, 1)
    result = simulate(
        config,
        Workload(kind=kind, span_fraction=span, request_pages=pages),
        host_bytes=int(span_bytes * end_fills),
        interval_bytes=step,
    )
    start = span_bytes * start_fills
    first = next(i for i in result.intervals if i.host_write_bytes >= start - step / 2)
    last = result.intervals[-1]
    host = last.host_write_bytes - first.host_write_bytes
    waf = (last.nand_write_bytes - first.nand_write_bytes) / host
    seconds = last.elapsed_s - first.elapsed_s
    timing: Timing = config.timing
    native = PAGE_BYTES * timing.parallel_units / (timing.page_program_us / 1e6)
    return Steady(waf, (host / seconds) / native if seconds > 0 else 1.0)


@dataclass(frozen=True, slots=True)
class Corner:
    policy: str
    alpha: float  # the drive's
    grid: float  # as the model drive simulated holds it (model_fit_joint.grid_alpha)
    seed: int
    rate_end: str  # which end of the native rate: value, low, high
    block_pages: int = MODEL_BLOCK_PAGES  # the model's (ModelParams.block_pages)

    def text(self) -> str:
        return f"{self.policy}, spare {100 * (self.alpha - 1):.1f} %, seed {self.seed}"


def corners(params: ModelParams) -> tuple[Corner, ...]:
    """The fitted value with every seed, and each end of the spare with each policy allowed."""
    assert params.alpha is not None
    assert params.policy is not None
    a = params.alpha
    high = min(a.high, ALPHA_CAP) if a.high is not None else ALPHA_CAP
    # the corners by their α to four places (text, and one corner for two ends that meet);
    # the model is built from the exact α, so a rounding never costs a fitted spare a block
    exact = {round(alpha, 4): alpha for alpha in (a.low, high, a.value)}
    ends = sorted(exact)
    policies = [params.policy] + ([params.other_policy] if params.other_policy else [])
    pages = params.block_pages
    value = round(a.value, 4)

    def grid(alpha: float) -> float:
        # the model's α, on its grid: whole blocks down (a fitted spare is on it already)
        model = model_alpha(exact[alpha], pages, params.spare_capacity_bytes)
        return grid_alpha(model, pages, math.floor)

    found = [Corner(params.policy, value, grid(value), s, "value", pages) for s in SEEDS]
    found += [
        Corner(p, alpha, grid(alpha), SEEDS[0], "value", pages)
        for p in policies
        for alpha in ends
        if (p, alpha) != (params.policy, value)
    ]
    return tuple(found)


def _spread(name: str, unit: str, values: Sequence[float], nominal: float, basis: str) -> Figure:
    return Figure(name, unit, nominal, min(values), max(values), basis=basis)


def _reason(params: ModelParams, *keys: str) -> tuple[str, str | None] | None:
    for key in keys:
        if key in params.missing:
            return params.missing[key]
    return None


def predict(
    params: ModelParams,
    workload: PredictWorkload,
    *,
    daily_bytes: float | None = None,
    rating: Rating | None = None,
    rating_reason: str = "no rating: give --tbw SIZE or --pe-cycles N",
    fill: float = 0.0,
) -> Prediction:
    """Every figure the fitted parameters allow for `workload`, each with its interval, on a
    drive `fill` full (0: discarded; the cliff moves with it, the steady-state figures do
    not: they are over the workload's range after many fills)."""
    figures: list[Figure] = []
    model_missing = _reason(params, "alpha", "policy")
    small = workload.kind != "jesd219" and workload.block_bytes < PAGE_BYTES
    found: list[tuple[Corner, Steady]] = []
    if model_missing is None and not small:
        for c in corners(params):
            found.append((c, _steady(c, workload)))
    nominal = found[0][1] if found else None
    text = (
        f"over {len(found)} corners: the spare's ends and value, "
        f"{' and '.join(sorted({c.policy for c, _ in found}))}, seeds {SEEDS}"
    )
    if nominal is None:
        why, needs = model_missing or (
            f"writes smaller than the model's {PAGE_BYTES} B page are not modelled",
            None,
        )
        figures.append(Figure(WAF, "", None, reason=why, needs=needs))
    else:
        wafs = [s.waf for _, s in found]
        figures.append(_spread(WAF, "", wafs, nominal.waf, f"simulator {text}"))
    figures.append(cliff_figure(params, fill))
    figures.append(_post_cliff(params))
    figures.append(_iops(params, workload, found, model_missing, text))
    figures.append(
        _days(params, workload, found, daily_bytes, rating, rating_reason, model_missing, text)
    )
    if params.assumed is not None:
        figures = [_as_assumed(f, params.assumed) for f in figures]
    return Prediction(
        workload, tuple(figures), tuple(c.text() for c, _ in found), daily_bytes, fill
    )


def _as_assumed(figure: Figure, why: str) -> Figure:
    """A figure that rests on the spare, evaluated over an assumed range: its interval kept,
    its value None (no number presented as a fitted one), the assumption as the reason."""
    if figure.name not in (WAF, IOPS, DAYS) or figure.value is None:
        return figure
    return replace(figure, value=None, reason=why, assumed=True)


def _steady(c: Corner, workload: PredictWorkload) -> Steady:
    return steady_state(
        c.policy,
        c.grid,
        workload.kind,
        workload.block_bytes,
        round(workload.span, 4),
        c.seed,
        workload.window,
        c.block_pages,
    )


def _fitted(name: str, unit: str, found: Bounds | None, why: tuple[str, str | None],
            basis: str) -> Figure:  # fmt: skip
    """A figure that is a fitted parameter itself, or None and why."""
    if found is None:
        return Figure(name, unit, None, reason=why[0], needs=why[1])
    return Figure(name, unit, found.value, found.low, found.high, basis=basis)


def _cliff(params: ModelParams) -> Figure:
    return _fitted(
        CLIFF,
        "B",
        params.cache_bytes,
        params.missing.get("cache", ("cache size not fitted", None)),
        "the fitted cache size: host bytes written from a discarded drive before the cache "
        "runs out, whatever the writes (on a fuller drive a dynamic or hybrid cache is "
        "smaller: the fit's cache kind says which the drive has)",
    )


FILL_NEEDS_PREFILL = 50
"""The --prefill of the cache run to add when the kind is not known: a middle fill level
tells static from dynamic next to an empty drive's run."""


def cliff_figure(params: ModelParams, fill: float = 0.0) -> Figure:
    """The cliff on a drive `fill` full (0: the fitted cache size), from the fitted cache kind
    (analysis/cache_fill.py); the range between a static and a dynamic cache when the kind is
    not known."""
    size = params.cache_bytes
    if size is None or fill <= 0:
        return _cliff(params)
    high = size.high if size.high is not None else size.value
    alpha = None
    if params.alpha is not None and params.assumed is None:
        a = params.alpha
        alpha = (a.low, min(a.high if a.high is not None else ALPHA_CAP, ALPHA_CAP))
    found = predict_cliff_at(
        params.cache_kind, (size.value, size.low, high), params.cache_fills, fill, alpha
    )
    basis = f"on a drive {fill:.0%} full (its first {fill:.0%} written and settled): {found.how}"
    if found.value is not None:
        return Figure(CLIFF, "B", found.value, found.low, found.high, basis=basis)
    kind = params.cache_kind or "not fitted"
    needs = params.cache_kind_needs or (
        f"{cache_command(params.target)} --prefill {FILL_NEEDS_PREFILL}"
    )
    return Figure(
        CLIFF,
        "B",
        None,
        found.low,
        found.high,
        reason=f"cache kind {kind}: {basis}",
        needs=needs,
    )


def _post_cliff(params: ModelParams) -> Figure:
    if params.sustained_rate is not None:
        return _fitted(
            POST_CLIFF,
            "B/s",
            params.sustained_rate,
            ("", None),
            "the cache run's sustained rate: bytes ÷ time from its cliff to the end of the "
            "write (folding included), of sequential writes past the cache",
        )
    return _fitted(
        POST_CLIFF,
        "B/s",
        params.native_rate,
        params.missing.get("native", ("native write rate not fitted", None)),
        "the fitted native write rate (the cache run's median after its cliff; a fit older "
        "than the sustained rate), of writes past the cache",
    )


def _iops(
    params: ModelParams,
    workload: PredictWorkload,
    found: Sequence[tuple[Corner, Steady]],
    model_missing: tuple[str, str | None] | None,
    text: str,
) -> Figure:
    rate = params.native_rate
    if rate is None or not found:
        why, needs = (
            params.missing.get("native")
            or model_missing
            or (f"writes smaller than the model's {PAGE_BYTES} B page are not modelled", None)
        )
        return Figure(IOPS, "IOPS", None, reason=why, needs=needs)
    size = _mean_request_bytes(workload)
    high = rate.high if rate.high is not None else rate.value

    def iops(native: float, s: Steady) -> float:
        return native * s.rate_share / size

    values = [iops(r, s) for _, s in found for r in (rate.low, rate.value, high)]
    return Figure(
        IOPS,
        "IOPS",
        iops(rate.value, found[0][1]),
        min(values),
        max(values),
        basis=f"the fitted native rate × the model's steady write rate ÷ its sequential rate "
        f"(read and erase times relative to program: the simulator's defaults), ÷ "
        f"{size:.0f} B a request; {text} and the native rate's interval ends",
    )


def _mean_request_bytes(workload: PredictWorkload) -> float:
    if workload.kind != "jesd219":
        return float(workload.block_bytes)
    from ssdlab.sim.workload import JESD219_SIZES

    return sum(size * share for size, share in JESD219_SIZES) / sum(s for _, s in JESD219_SIZES)


def _days(
    params: ModelParams,
    workload: PredictWorkload,
    found: Sequence[tuple[Corner, Steady]],
    daily_bytes: float | None,
    rating: Rating | None,
    rating_reason: str,
    model_missing: tuple[str, str | None] | None,
    text: str,
) -> Figure:
    target = params.target
    if daily_bytes is None or daily_bytes <= 0:
        return Figure(
            DAYS,
            "days",
            None,
            reason="no daily host write volume given",
            needs=f"ssdlab model predict MODEL {workload.name or 'WORKLOAD'} --daily 200GB",
        )
    if rating is None:
        return Figure(
            DAYS,
            "days",
            None,
            reason=rating_reason,
            needs="ssdlab model predict MODEL WORKLOAD --daily SIZE --tbw 600TB",
        )
    if not found:
        why, needs = model_missing or (
            f"writes smaller than the model's {PAGE_BYTES} B page are not modelled",
            None,
        )
        return Figure(DAYS, "days", None, reason=why, needs=needs)
    days: Callable[[Corner, Steady], float]
    if rating.tbw_bytes is not None:
        tbw = rating.tbw_bytes

        def by_tbw(c: Corner, s: Steady) -> float:
            ref = steady_state(
                c.policy,
                c.grid,
                "jesd219",
                PAGE_BYTES,
                1.0,
                c.seed,
                block_pages=c.block_pages,
            )
            return tbw * ref.waf / (s.waf * daily_bytes)

        days = by_tbw
        basis = (
            f"rated TBW ({rating.source}) taken at {RATING_WORKLOAD} over the whole drive: "
            "NAND budget = TBW × the model's WAF there; days = budget ÷ (the workload's WAF × "
            f"daily host bytes), each corner's two WAFs together; {text}"
        )
    elif rating.pe_cycles is not None and params.capacity_bytes is not None:
        pe, capacity = rating.pe_cycles, params.capacity_bytes

        def by_pe(c: Corner, s: Steady) -> float:
            return pe * capacity * c.alpha / (s.waf * daily_bytes)

        days = by_pe
        basis = (
            f"rated P/E cycles ({rating.source}) × the native capacity (capacity × α) ÷ "
            f"(the workload's WAF × daily host bytes); {text}"
        )
    else:
        return Figure(
            DAYS,
            "days",
            None,
            reason="rated P/E cycles need the drive's capacity, which the fit did not store",
            needs=f"ssdlab model fit RUN… (again) or --tbw SIZE for {target}",
        )
    values = [days(c, s) for c, s in found]
    return Figure(DAYS, "days", values[0], min(values), max(values), basis=basis)


def relative(value: float | None, reference: float | None) -> float | None:
    """(value − reference) ÷ reference; None when either is unknown or the reference is 0."""
    if value is None or reference is None or reference == 0 or not math.isfinite(reference):
        return None
    return (value - reference) / reference
