"""`ssdlab model predict MODEL WORKLOAD` and `ssdlab model verify MODEL RUN`: a stored fit
(a `model-fit` run) read back, asked for a workload's figures (analysis/model_predict.py),
and — for verify — held against a stored run that did the workload (analysis/model_verify.py).

Each is stored as a run of kind `sim` as the fit is (profile `model-predict` or
`model-verify`; no store migration): its settings name the model run (and the measured run)
by id and UUID, its finding of the profile's name holds the JSON `--json` prints
(report/model_predict.py).

What a measured run gives (verify): an `endurance` run its steady-state WAF (the fit's own
reading of it, analysis/model_fit.py `waf_point`, with its interval), its steady-state write
IOPS (the iterations after the same warm-up, with Student's interval of their mean) and the
days to end of life its WAF gives against the same rating; a `cache` run its cliff and the
rate after it (analysis/cliff_uncertainty.py intervals)."""

import json
import re
import sqlite3
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ssdlab.analysis.cache_fill import MAX_FILL_PCT
from ssdlab.analysis.cliff_uncertainty import cliff_uncertainty
from ssdlab.analysis.intervals import Interval, mean_interval, sample_of_seconds
from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.analysis.model_fit import (
    WARMUP_FILLS,
    Estimate,
    WafPoint,
    sustained_estimate,
    waf_point,
)
from ssdlab.analysis.model_fit_joint import PAGE_BYTES
from ssdlab.analysis.model_predict import (
    CLIFF,
    DAYS,
    IOPS,
    POST_CLIFF,
    WAF,
    Figure,
    ModelParams,
    Prediction,
    PredictWorkload,
    Rating,
    params_of,
    predict,
    steady_state,
)
from ssdlab.analysis.model_verify import compare, unverifiable
from ssdlab.analysis.profiles.cache import cliff_verdict
from ssdlab.analysis.spec_match import match_spec, rated_endurance
from ssdlab.analysis.write_series import writes_of
from ssdlab.app.model_fit import (
    SKEWED_WORKLOAD,
    UNIFORM_WORKLOAD,
    fill_of,
    nand_counter,
    region_bytes,
    waf_input_of,
)
from ssdlab.app.runs import LATEST, stored_run, stored_runs
from ssdlab.app.spec_sheets import known_spec_sheets
from ssdlab.errors import UsageError
from ssdlab.model.run import RunKind, RunStatus
from ssdlab.model.stored_run import StoredRun
from ssdlab.model.units import KiB
from ssdlab.registry.model_fit import MODEL_FIT_PROFILE, PREDICT_PROFILE, VERIFY_PROFILE
from ssdlab.report.document import Document
from ssdlab.report.model_predict import (
    build_predict_document,
    build_verify_document,
    prediction_json,
    verify_json,
)
from ssdlab.runner.run_row import RunHeader, create_run
from ssdlab.store.findings import add_finding
from ssdlab.store.lifecycle import finish_run, to_json
from ssdlab.store.run_rows import latest_profile_run_id

SEQ_WORKLOAD = "seq-128k"


_BLOCK = re.compile(r"^(\d+)\s*([kKmM]?)(i?[bB])?$")


def _block_bytes(text: str) -> int:
    found = _BLOCK.match(text.strip())
    if found is None:
        raise UsageError(f"block size {text!r} is not a size like 4k or 128k")
    scale = {"": 1, "k": KiB, "m": KiB * KiB}[found.group(2).lower()]
    return int(found.group(1)) * scale


def predict_workload(text: str, span: float = 1.0) -> PredictWorkload:
    """'randwrite-4k' (any block size: randwrite-16k), 'jesd219-enterprise', 'seq-128k' or
    'seqwrite-128k', over `span` of the drive."""
    if not 0.0 < span <= 1.0:
        raise UsageError(f"--span must be in (0, 100 %], not {span:.0%}")
    name = text.strip().lower()
    if name in ("jesd219-enterprise", "jesd219"):
        return PredictWorkload("jesd219", PAGE_BYTES, span, "jesd219-enterprise")
    kind_of = {"randwrite": "uniform", "seq": "sequential", "seqwrite": "sequential"}
    head, _, block = name.partition("-")
    if head in kind_of and block:
        return PredictWorkload(kind_of[head], _block_bytes(block), span, name)
    raise UsageError(
        f"unknown workload {text!r}; known: randwrite-BS (randwrite-4k, randwrite-16k …), "
        "jesd219-enterprise, seq-BS (seq-128k) — e.g. ssdlab model predict MODEL randwrite-4k "
        "--span 80%"
    )


@dataclass(frozen=True, slots=True)
class RatingRequest:
    """The rating and daily volume typed; all None: the drive's spec sheet, no daily volume."""

    daily_bytes: float | None = None
    tbw_bytes: float | None = None
    dwpd: float | None = None
    warranty_years: float | None = None
    pe_cycles: float | None = None


@dataclass(frozen=True, slots=True)
class PredictRequest:
    model: str  # the model-fit run's id, or 'last'
    workload: str
    span: float = 1.0
    rating: RatingRequest = RatingRequest()
    argv: tuple[str, ...] = ()
    # an effective spare range (low, high) for a fit that did not measure one (--assume-spare)
    assume_spare: tuple[float, float] | None = None
    fill_pct: int = 0  # of the drive written before the workload (--fill; 0: discarded)


@dataclass(frozen=True, slots=True)
class VerifyRequest:
    model: str
    run: str
    rating: RatingRequest = RatingRequest()
    argv: tuple[str, ...] = ()
    assume_spare: tuple[float, float] | None = None  # as PredictRequest's


@dataclass(frozen=True, slots=True)
class ModelOutcome:
    run_id: int
    body: Mapping[str, Any]
    document: Document


def _what(stored: StoredRun) -> str:
    """A run's kind as a sentence names it: 'cache', 'quick', 'sim model-predict'."""
    run = stored.run
    if run.kind is RunKind.PROFILE or run.profile == run.kind.value:
        return run.profile
    return f"{run.kind.value} {run.profile}"


def model_run(conn: sqlite3.Connection, text: str) -> StoredRun:
    """The stored fit named ('last': the newest fit, not the newest run); a usage error
    saying how to make one when the run is not one."""
    if text in LATEST:
        newest = latest_profile_run_id(conn, RunKind.SIM.value, MODEL_FIT_PROFILE)
        if newest is None:
            raise UsageError(
                "the store holds no fitted model; fit one first: ssdlab model fit RUN… "
                "(a cache run and endurance runs of the drive)"
            )
        text = str(newest)
    stored = stored_runs(conn, [text])[0]
    run = stored.run
    if run.kind is not RunKind.SIM or run.profile != MODEL_FIT_PROFILE:
        raise UsageError(
            f"run {run.run_id} is a {_what(stored)} run, not a fitted model; "
            "fit one first: ssdlab model fit RUN… (a cache run and endurance runs of the drive)"
        )
    if "model-fit" not in stored.findings:
        raise UsageError(f"model run {run.run_id} holds no fit: fit again with ssdlab model fit")
    return stored


def _inputs(conn: sqlite3.Connection, model: StoredRun) -> list[StoredRun]:
    found = []
    inputs = model.run.settings.get("inputs")
    for i in inputs if isinstance(inputs, list) else []:
        run_id = i.get("run_id") if isinstance(i, Mapping) else None
        if isinstance(run_id, int):
            try:
                found.append(stored_run(conn, run_id))
            except UsageError:  # an input since deleted: the rest still tell the drive
                continue
    return found


def _capacity(inputs: Sequence[StoredRun]) -> int | None:
    for stored in inputs:
        device = stored.run.target.get("device")
        value = device.get("capacity_bytes") if isinstance(device, Mapping) else None
        if isinstance(value, int | float) and value > 0:
            return int(value)
    return None


def rating_of(
    conn: sqlite3.Connection,
    given: RatingRequest,
    inputs: Sequence[StoredRun],
    capacity: int | None,
) -> tuple[Rating | None, str]:
    """The rating typed, else the spec sheet's of the drive the fit's inputs ran on."""
    if given.pe_cycles is not None:
        return Rating(None, given.pe_cycles, "--pe-cycles"), ""
    if given.tbw_bytes is not None or given.dwpd is not None:
        rated = RatedEndurance(given.tbw_bytes, given.dwpd, given.warranty_years, capacity)
        tbw = rated.rated_tbw_bytes()
        if tbw is None:
            return None, rated.rated_tbw_source()
        return Rating(tbw, None, rated.rated_tbw_source()), ""
    specs = known_spec_sheets(conn)
    for stored in inputs:
        for _phase, sample in stored.health:
            spec = match_spec(sample.identity.model, sample.identity.capacity_bytes, specs)
            from_sheet = rated_endurance(spec)
            tbw = None if from_sheet is None else from_sheet.rated_tbw_bytes()
            if spec is not None and tbw is not None:
                return Rating(tbw, None, f"spec sheet {spec.key}"), ""
    return None, (
        "no rating: the drive matches no spec sheet (ssdlab spec list); give --tbw SIZE "
        "(or --dwpd N --warranty-years Y, or --pe-cycles N)"
    )


def _context(
    conn: sqlite3.Connection,
    model: StoredRun,
    given: RatingRequest,
    assume_spare: tuple[float, float] | None = None,
) -> tuple[ModelParams, Rating | None, str]:
    inputs = _inputs(conn, model)
    capacity = _capacity(inputs)
    body = model.findings["model-fit"]
    fitted = params_of(body, capacity)
    if assume_spare is not None and fitted.alpha is not None and fitted.assumed is None:
        raise UsageError(
            f"model run {model.run.run_id} measured the spare; --assume-spare is for a fit "
            "that did not (a drive without a NAND counter): run the same command without it"
        )
    params = params_of(body, capacity, assume_spare)
    rating, reason = rating_of(conn, given, inputs, params.capacity_bytes)
    return params, rating, reason


def _predicted(
    conn: sqlite3.Connection,
    model: StoredRun,
    workload: PredictWorkload,
    given: RatingRequest,
    assume_spare: tuple[float, float] | None = None,
    fill: float = 0.0,
) -> tuple[ModelParams, Rating | None, Prediction]:
    """The model's parameters, the rating, and the workload predicted on a drive `fill`
    full."""
    params, rating, reason = _context(conn, model, given, assume_spare)
    prediction = predict(params, workload, daily_bytes=given.daily_bytes, rating=rating,
                         rating_reason=reason, fill=fill)  # fmt: skip
    return params, rating, prediction


def _store(
    conn: sqlite3.Connection,
    model: StoredRun,
    profile: str,
    settings: Mapping[str, Any],
    make_body: Any,
) -> tuple[int, dict[str, Any]]:
    run_id = create_run(
        conn,
        RunHeader(
            kind=RunKind.SIM,
            profile=profile,
            profile_version=1,
            preset=None,
            target_kind=model.run.target_kind,
            target_path=model.run.target_path,
            target_json=to_json({"kind": profile, "drive": model.run.target_path}),
            settings_json=json.dumps(settings, sort_keys=True),
            plan_json="{}",
        ),
        started_at_s=time.time(),
    )
    body: dict[str, Any] = make_body(run_id)
    add_finding(conn, run_id, profile, "verdict", body, time.time())
    finish_run(conn, run_id, RunStatus.COMPLETE, None, time.time())
    return run_id, body


def _link(stored: StoredRun) -> dict[str, Any]:
    return {"run_id": stored.run.run_id, "uuid": stored.run.uuid}


def predict_model(conn: sqlite3.Connection, request: PredictRequest) -> ModelOutcome:
    """Predict the workload from the stored fit, store the prediction as a run linked to it."""
    model = model_run(conn, request.model)
    workload = predict_workload(request.workload, request.span)
    if not 0 <= request.fill_pct <= MAX_FILL_PCT:
        raise UsageError(f"--fill must be from 0 to {MAX_FILL_PCT} %, not {request.fill_pct} %")
    params, rating, prediction = _predicted(
        conn, model, workload, request.rating, request.assume_spare, request.fill_pct / 100.0
    )
    settings = {
        "fill_pct": request.fill_pct,
        "model": _link(model),
        "workload": workload.name,
        "span": workload.span,
        "argv": list(request.argv),
        "assume_spare": None if request.assume_spare is None else list(request.assume_spare),
    }
    run_id, body = _store(
        conn,
        model,
        PREDICT_PROFILE,
        settings,
        lambda rid: prediction_json(prediction, rid, _link(model), params, rating),
    )
    return ModelOutcome(run_id, body, build_predict_document(body))


# -- verify -------------------------------------------------------------------------------


def _run_workload(stored: StoredRun) -> PredictWorkload:
    """The workload a measured run did, as a prediction names it."""
    run = stored.run
    if run.kind is RunKind.PROFILE and run.profile == "cache":
        return predict_workload(SEQ_WORKLOAD)
    if run.kind is RunKind.PROFILE and run.profile == "endurance":
        name = run.settings.get("workload")
        if name not in (UNIFORM_WORKLOAD, SKEWED_WORKLOAD, SEQ_WORKLOAD):
            raise UsageError(
                f"run {run.run_id} wrote the {name} workload; 'ssdlab model verify' reads "
                f"endurance runs of {UNIFORM_WORKLOAD}, {SKEWED_WORKLOAD} or {SEQ_WORKLOAD}"
            )
        region = region_bytes(stored)
        device = run.target.get("device")
        capacity = device.get("capacity_bytes") if isinstance(device, Mapping) else None
        span = 1.0
        if region and isinstance(capacity, int | float) and capacity > 0:
            span = min(region / capacity, 1.0)
        return predict_workload(str(name), span)
    raise UsageError(
        f"run {run.run_id} is a {_what(stored)} run; 'ssdlab model verify' "
        "reads endurance runs (WAF, IOPS, days to end of life) and cache runs (the cliff and "
        "the rate after it)"
    )


def _ends(interval: Interval | None) -> tuple[float | None, float | None]:
    return (None, None) if interval is None else (interval.low, interval.high)


def _as_figure(name: str, estimate: Estimate) -> Figure:
    value = estimate.value if isinstance(estimate.value, int | float) else None
    return Figure(name, estimate.unit, value, estimate.low, estimate.high, basis=estimate.note)


def _cache_figures(stored: StoredRun) -> list[Figure]:
    verdicts = [v for v in (cliff_verdict(w) for w in writes_of(stored.steps)) if v is not None]
    if not verdicts or verdicts[0].cliff_bytes is None:
        why = (verdicts[0].reason if verdicts else None) or "no write with a cliff was stored"
        return [Figure(CLIFF, "B", None, reason=why), Figure(POST_CLIFF, "B/s", None, reason=why)]
    found = cliff_uncertainty(verdicts)
    first = verdicts[0]
    basis = f"cliff {found.state} ({found.basis})"
    return [
        Figure(CLIFF, "B", first.cliff_bytes, *_ends(found.cliff_bytes_interval), basis=basis),
        _as_figure(POST_CLIFF, sustained_estimate(first, ())),
    ]


@dataclass(frozen=True, slots=True)
class EnduranceReading:
    """What an endurance run gives verify: its WAF point (None: why, in `why`) and range."""

    point: WafPoint | None
    range_bytes: float | None
    why: str


def endurance_reading(stored: StoredRun) -> EnduranceReading:
    notes: list[str] = []
    found = waf_input_of(stored, notes)
    if found is None:
        return EnduranceReading(None, None, "; ".join(notes) or "no WAF readings")
    return EnduranceReading(waf_point(found), found.range_bytes, "")


def run_window(reading: EnduranceReading) -> tuple[float, float] | None:
    """The fills from a discarded drive the run's WAF was read over (a tenth of a fill)."""
    point = reading.point
    if point is None or point.waf is None:
        return None
    return round(point.window_start, 1), round(point.fills, 1)


def _endurance_figures(
    stored: StoredRun,
    reading: EnduranceReading,
    prediction: Prediction,
    params: ModelParams,
    rating: Rating | None,
) -> list[Figure]:
    point = reading.point
    figures: list[Figure] = []
    waf_value: float | None = None
    waf_low = waf_high = None
    if point is None:
        figures.append(Figure(WAF, "", None, reason=reading.why))
    else:
        waf_value = point.waf
        waf_low, waf_high = _ends(point.interval)
        figures.append(
            Figure(
                WAF,
                "",
                point.waf,
                waf_low,
                waf_high,
                reason=point.reason,
                basis=f"ΔNAND ÷ Δhost over fills {point.window_start:.1f}–{point.fills:.1f} "
                "of the range (the fit's own reading)",
            )
        )
    figures.append(_iops_measured(stored, reading.range_bytes))
    figures.append(_days_measured(prediction, params, rating, waf_value, waf_low, waf_high))
    return figures


def _iops_measured(stored: StoredRun, range_bytes: float | None) -> Figure:
    steps = sorted(
        (s for s in stored.steps if s.write and not s.discarded), key=lambda s: s.round_index
    )
    if not steps:
        return Figure(IOPS, "IOPS", None, reason="no iteration was stored")
    region = range_bytes or float(region_bytes(stored) or 0)
    written = 0.0
    window = []
    for s in steps:
        assert s.write is not None
        if region and written >= WARMUP_FILLS * region:
            window.append(s.write.iops)
        written += s.write.io_bytes
    if not window:
        return Figure(
            IOPS, "IOPS", None, reason=f"no iteration after {WARMUP_FILLS:g} fills of the range"
        )
    mean = statistics.fmean(window)
    interval = mean_interval(sample_of_seconds(mean, window)) if len(window) >= 4 else None
    return Figure(
        IOPS,
        "IOPS",
        mean,
        *_ends(interval),
        basis=f"mean of {len(window)} iterations after {WARMUP_FILLS:g} fills (fio's write IOPS)",
    )


def _days_measured(
    prediction: Prediction,
    params: ModelParams,
    rating: Rating | None,
    waf: float | None,
    low: float | None,
    high: float | None,
) -> Figure:
    daily = prediction.daily_bytes
    if daily is None or rating is None:
        return Figure(DAYS, "days", None, reason="no daily volume or no rating given")
    if waf is None:
        return Figure(DAYS, "days", None, reason="no steady-state WAF measured")
    if rating.tbw_bytes is not None:
        if params.alpha is None or params.policy is None:
            return Figure(DAYS, "days", None, reason="the rating's workload WAF needs a fit")
        ref = steady_state(
            params.policy, max(params.alpha.value, 1.0 + 1e-3), "jesd219", PAGE_BYTES, 1.0, 1
        ).waf
        budget = rating.tbw_bytes * ref
        basis = "rated TBW × the model's JESD219 WAF ÷ (the measured WAF × daily host bytes)"
    elif rating.pe_cycles is not None and params.capacity_bytes and params.alpha is not None:
        budget = rating.pe_cycles * params.capacity_bytes * params.alpha.value
        basis = "rated P/E × capacity × the fitted α ÷ (the measured WAF × daily host bytes)"
    else:
        return Figure(DAYS, "days", None, reason="the rating cannot be turned into a budget")
    value = budget / (waf * daily)
    return Figure(
        DAYS,
        "days",
        value,
        None if high is None else budget / (high * daily),
        None if low is None else budget / (low * daily),
        basis=basis,
    )


def _unverified(figure: Figure, cannot: Sequence[tuple[str, str]]) -> Figure:
    """A measured figure the drive cannot give (no NAND counter: WAF and days): None and why."""
    why = dict(cannot).get(figure.name)
    return figure if why is None else Figure(figure.name, figure.unit, None, reason=why)


def verify_model(conn: sqlite3.Connection, request: VerifyRequest) -> ModelOutcome:
    """Predict what the measured run did, read what it measured, store both and the errors."""
    model = model_run(conn, request.model)
    measured_run = stored_runs(conn, [request.run])[0]
    workload = _run_workload(measured_run)
    if measured_run.run.profile == "cache":
        # a run with --prefill is held against the cliff predicted at its fill level
        params, rating, prediction = _predicted(
            conn, model, workload, request.rating, request.assume_spare,
            fill_of(measured_run) or 0.0,
        )  # fmt: skip
        measured = _cache_figures(measured_run)
    else:
        # the model asked about the run's own window of fills from a discarded drive: ten
        # fills of JESD219 are far from steady, and steady state is not what the run measured
        reading = endurance_reading(measured_run)
        window = run_window(reading)
        if window is not None:
            workload = replace(workload, window=window)
        params, rating, prediction = _predicted(
            conn, model, workload, request.rating, request.assume_spare
        )
        measured = _endurance_figures(measured_run, reading, prediction, params, rating)
    cannot = unverifiable(nand_counter([measured_run]))
    measured = [_unverified(f, cannot) for f in measured]
    rows = compare(prediction, measured)
    settings = {
        "model": _link(model),
        "measured": _link(measured_run),
        "workload": workload.name,
        "argv": list(request.argv),
        "assume_spare": None if request.assume_spare is None else list(request.assume_spare),
    }
    run_id, body = _store(
        conn,
        model,
        VERIFY_PROFILE,
        settings,
        lambda rid: verify_json(
            rid,
            _link(model),
            _link(measured_run),
            prediction,
            params,
            rating,
            measured,
            rows,
            cannot,
        ),
    )
    return ModelOutcome(run_id, body, build_verify_document(body))
