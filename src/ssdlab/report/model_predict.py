"""A model's prediction (`ssdlab model predict`) and its verification against a measured run
(`ssdlab model verify`) as JSON and as documents. The JSON (formats `ssdlab-model-predict`,
`ssdlab-model-verify`) is what the store keeps as the run's finding; the documents are built
from it, so a prediction shows the same fresh and read back (`show`, `report`)."""

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from ssdlab.analysis.model_predict import Figure, ModelParams, Prediction, Rating
from ssdlab.analysis.model_verify import Comparison
from ssdlab.model.units import format_decimal_bytes, format_mb_per_s
from ssdlab.report.document import Document, Section, Table

PREDICT_FORMAT = "ssdlab-model-predict"
VERIFY_FORMAT = "ssdlab-model-verify"
FORMAT_VERSION = 1
METHOD = "docs/model-fit.md#predicting-ssdlab-model-predict"
INTERVAL = (
    "intervals: the smallest to the largest over the corners of the fit's 95 % intervals "
    "(spare ends, GC policies allowed, rate ends) and three simulator seeds; the model's own "
    "error (block size, SLC cache and GC thresholds not fitted) is not in them"
)


def _figure(f: Figure) -> dict[str, Any]:
    return asdict(f)


def _params(params: ModelParams, rating: Rating | None) -> dict[str, Any]:
    return {
        "alpha": None if params.alpha is None else asdict(params.alpha),
        "gc_policy": params.policy,
        # not None: alpha and the policies are an assumed range, not the fit's (the reason)
        "assumed": params.assumed,
        "other_policy": params.other_policy,
        "capacity_bytes": params.capacity_bytes,
        "rating": None if rating is None else asdict(rating),
    }


def _prediction(prediction: Prediction) -> dict[str, Any]:
    w = prediction.workload
    return {
        "workload": {
            "name": w.name,
            "kind": w.kind,
            "block_bytes": w.block_bytes,
            "span": w.span,
            "window_fills": list(w.window),
            "described": w.describe(),
        },
        "daily_bytes": prediction.daily_bytes,
        # of the drive written before the workload (--fill; 0: a discarded drive): the cliff
        # is predicted at it
        "fill": prediction.fill,
        "figures": [_figure(f) for f in prediction.figures],
        "corners": list(prediction.corners),
    }


def prediction_json(
    prediction: Prediction,
    run_id: int | None,
    model: Mapping[str, Any],
    params: ModelParams,
    rating: Rating | None,
) -> dict[str, Any]:
    return {
        "format": PREDICT_FORMAT,
        "format_version": FORMAT_VERSION,
        "run": {"id": run_id},
        "model": dict(model),
        "target": params.target,
        "parameters": _params(params, rating),
        **_prediction(prediction),
        "interval": INTERVAL,
        "method": METHOD,
    }


def _comparison(c: Comparison) -> dict[str, Any]:
    return {
        "name": c.name,
        "unit": c.unit,
        "predicted": _figure(c.predicted),
        "measured": _figure(c.measured),
        "error": c.error,
        "relative_error": c.relative_error,
        "inside": c.inside,
        "reason": c.reason,
    }


def verify_json(
    run_id: int | None,
    model: Mapping[str, Any],
    measured_run: Mapping[str, Any],
    prediction: Prediction,
    params: ModelParams,
    rating: Rating | None,
    measured: Sequence[Figure],
    rows: Sequence[Comparison],
    cannot_verify: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    return {
        "format": VERIFY_FORMAT,
        "format_version": FORMAT_VERSION,
        "run": {"id": run_id},
        "model": dict(model),
        "measured_run": dict(measured_run),
        "target": params.target,
        "parameters": _params(params, rating),
        "prediction": _prediction(prediction),
        "measured": [_figure(f) for f in measured],
        "comparison": [_comparison(c) for c in rows],
        # figures no run of this drive can verify (no NAND counter: WAF and days), and why
        "cannot_verify": [{"name": n, "reason": why} for n, why in cannot_verify],
        "interval": INTERVAL,
        "method": METHOD,
    }


def value_text(value: Any, unit: str) -> str:
    if not isinstance(value, int | float):
        return "—"
    v = float(value)
    if unit == "B":
        return format_decimal_bytes(v)
    if unit == "B/s":
        return format_mb_per_s(v, " MB/s")
    if unit in ("IOPS", "days"):
        return f"{v:,.0f}"
    return f"{v:.3f}"


def interval_text(f: Mapping[str, Any]) -> str:
    low, high, unit = f.get("low"), f.get("high"), str(f.get("unit", ""))
    if low is None and high is None:
        return ""
    return f"{value_text(low, unit)} … {'unbounded' if high is None else value_text(high, unit)}"


def _figures(body: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [f for f in body.get("figures", []) if isinstance(f, Mapping)]


def _headline(body: Mapping[str, Any], workload: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    model = body.get("model") or {}
    params = body.get("parameters") or {}
    rating = params.get("rating") or {}
    rated = (
        f"TBW {format_decimal_bytes(float(rating['tbw_bytes']))} ({rating.get('source')})"
        if rating.get("tbw_bytes")
        else f"P/E {rating['pe_cycles']:g} ({rating.get('source')})"
        if rating.get("pe_cycles")
        else "none"
    )
    daily = body.get("daily_bytes")
    if daily is None and isinstance(body.get("prediction"), Mapping):
        daily = body["prediction"].get("daily_bytes")
    fill = body.get("fill")
    state = (
        (("drive fill", f"{float(fill):.0%} written before the workload (the cliff's)"),)
        if isinstance(fill, int | float) and fill > 0
        else ()
    )
    return (
        ("drive", str(body.get("target"))),
        ("model", f"run {model.get('run_id')}"),
        ("workload", str(workload.get("described"))),
        *state,
        ("daily host writes", "—" if daily is None else format_decimal_bytes(float(daily))),
        ("rating", rated),
        ("method", METHOD),
    )


def build_predict_document(body: Mapping[str, Any]) -> Document:
    figures = _figures(body)
    rows = tuple(
        (
            str(f.get("name")),
            "assumed" if f.get("assumed") else value_text(f.get("value"), str(f.get("unit", ""))),
            interval_text(f),
            str(f.get("basis") or f.get("reason") or ""),
            str(f.get("needs") or ""),
        )
        for f in figures
    )
    table = Table("predicted", ("figure", "value", "interval", "how / why not", "needs"), rows)
    run_id = (body.get("run") or {}).get("id")
    missing = [f for f in figures if f.get("value") is None and not f.get("assumed")]
    assumed = [f for f in figures if f.get("assumed")]
    return Document(
        title="ssdlab model predict" + (f" (run {run_id})" if run_id is not None else ""),
        headline=_headline(body, body.get("workload") or {}),
        sections=(Section("prediction", tables=(table,), notes=(str(body.get("interval")),)),),
        verdict=tuple(
            f"{f.get('name')}: "
            + ("a range only" if f.get("low") is not None else "not predicted")
            + f" — {f.get('reason')}"
            + (f"; add: {f.get('needs')}" if f.get("needs") else "")
            for f in missing
        )
        + _assumed_verdict(assumed),
        data=body,
    )


def _assumed_verdict(assumed: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    if not assumed:
        return ()
    names = ", ".join(str(f.get("name")) for f in assumed)
    return (f"{names}: a range only — {assumed[0].get('reason')}",)


def _pct(value: Any) -> str:
    return "—" if not isinstance(value, int | float) else f"{100 * float(value):+.1f} %"


def verification_table(body: Mapping[str, Any]) -> Table:
    """Prediction, measurement and error side by side: what `report` shows of a verify run."""
    rows = []
    for c in body.get("comparison", []):
        if not isinstance(c, Mapping):
            continue
        unit = str(c.get("unit", ""))
        p, m = c.get("predicted") or {}, c.get("measured") or {}
        inside = c.get("inside")
        rows.append(
            (
                str(c.get("name")),
                "assumed" if p.get("assumed") else value_text(p.get("value"), unit),
                interval_text(p),
                value_text(m.get("value"), unit),
                interval_text(m),
                value_text(c.get("error"), unit),
                _pct(c.get("relative_error")),
                "—" if inside is None else "yes" if inside else "no",
                str(c.get("reason") or ""),
            )
        )
    columns = (
        "figure",
        "predicted",
        "interval",
        "measured",
        "measured interval",
        "error",
        "prediction error",
        "in interval",
        "note",
    )
    return Table("prediction against measurement", columns, tuple(rows))


def build_verify_document(body: Mapping[str, Any]) -> Document:
    run_id = (body.get("run") or {}).get("id")
    measured = body.get("measured_run") or {}
    prediction = body.get("prediction") or {}
    notes = (
        f"measured run {measured.get('run_id')}; prediction error = (predicted − measured) ÷ "
        "measured; in interval: the measurement lies in the prediction's interval",
        str(body.get("interval")),
    )
    comparison = [c for c in body.get("comparison", []) if isinstance(c, Mapping)]
    outside = [
        str(c.get("name")) + (" (its assumed range)" if (c.get("predicted") or {}).get("assumed")
                              else "")
        for c in comparison
        if c.get("inside") is False
    ]  # fmt: skip
    verdict: tuple[str, ...] = (
        (f"outside the prediction's interval: {', '.join(outside)}",)
        if outside
        else ("every measured figure lies in the prediction's interval",)
        if any(c.get("inside") for c in comparison)
        else ()
    )
    verdict += tuple(
        f"cannot be verified on this drive: {c.get('name')} — {c.get('reason')}"
        for c in body.get("cannot_verify") or []
        if isinstance(c, Mapping)
    )
    return Document(
        title="ssdlab model verify" + (f" (run {run_id})" if run_id is not None else ""),
        headline=_headline(body, prediction.get("workload") or {}),
        sections=(Section("verification", tables=(verification_table(body),), notes=notes),),
        verdict=verdict,
        data=body,
    )
