"""A fitted drive model (`ssdlab model fit`) as JSON and as a document: every parameter with
its value, 95 % interval and the run it came from, or the command of the run it needs.

The JSON (format `ssdlab-model-fit`) is what the store keeps as the fit run's finding, and the
document is built from it, so a fit shows the same fresh and read back. Its `simulator` block
is the fitted model in the simulator's own terms (sim/config.py), None where not fitted: what
`model predict` builds a configuration from."""

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from ssdlab.analysis.intervals import LEVEL
from ssdlab.analysis.model_fit import NO_NAND_COUNTER, Estimate, GcClass, ModelFit, Source
from ssdlab.model.units import format_decimal_bytes, format_mb_per_s
from ssdlab.report.document import Document, Section, Table

FORMAT = "ssdlab-model-fit"
FORMAT_VERSION = 1
METHOD = "docs/model-fit.md"


def _source(source: Source) -> dict[str, Any]:
    return {"run_id": source.run_id, "uuid": source.uuid, "label": source.label}


def _estimate(e: Estimate) -> dict[str, Any]:
    return {
        "name": e.name,
        "value": e.value,
        "low": e.low,
        "high": e.high,
        "level": LEVEL,
        "unit": e.unit,
        "from": [_source(s) for s in e.sources],
        "needs": e.needs,
        "note": e.note,
    }


def _number(fit: ModelFit, name: str) -> float | None:
    value = fit.estimate(name).value
    return float(value) if isinstance(value, int | float) else None


def _simulator(fit: ModelFit, capacity_bytes: int | None) -> dict[str, Any]:
    """The fit in the simulator's terms (None: not fitted)."""
    gc = fit.estimate("GC class").value
    policy = {GcClass.GREEDY: "greedy", GcClass.FIFO: "fifo", GcClass.RANDOM: "random"}
    return {
        "spare_of_logical": _number(fit, "spare (of logical)"),
        "gc_policy": policy.get(str(gc)),
        "gc_policy_fitted": fit.fitted_policy,
        # the model's pages a block the spare was fitted at (model predict builds the same)
        "pages_per_block_fitted": fit.fitted_block_pages,
        # the drive capacity spare_of_logical is the ratio of, converted from the model's
        # (None: the model's own; model predict converts it back)
        "spare_capacity_bytes": fit.spare_capacity_bytes,
        "gc_classes_fitting": list(fit.gc_classes),
        "slc_cache_bytes": _number(fit, "cache size"),
        "slc_write_bytes_per_s": _number(fit, "SLC write rate"),
        "native_write_bytes_per_s": _number(fit, "native write rate"),
        "slc_kind": None,
        "capacity_bytes": capacity_bytes,
    }


def fit_json(
    fit: ModelFit,
    run_id: int | None,
    target: str,
    inputs: Sequence[Mapping[str, Any]],
    capacity_bytes: int | None = None,
) -> dict[str, Any]:
    """The fit as the store keeps it and `--json` prints it."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "run": {"id": run_id},
        "target": target,
        "inputs": list(inputs),
        "parameters": [_estimate(e) for e in fit.estimates],
        "simulator": _simulator(fit, capacity_bytes),
        # False: the drive reports no NAND writes, so `model predict` takes its spare from an
        # assumed range (analysis/model_predict.py `SPARE_PRIOR`)
        "nand_counter": fit.nand_counter,
        # every cache run's cliff at its fill level (the cache kind's evidence), emptiest
        # first: `model predict --fill` reads the cliff at another fill from them (a fit
        # stored before them lacks the key: predict then has the empty drive's cliff alone)
        "cache_fills": [asdict(c) for c in fit.cache_fills],
        "waf_points": [{**asdict(p), "source": _source(p.source)} for p in fit.waf_points],
        "notes": list(fit.notes),
        "method": METHOD,
    }


def _value_text(value: Any, unit: str) -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if unit == "B":
        return format_decimal_bytes(float(value))
    if unit == "B/s":
        return format_mb_per_s(float(value), " MB/s")
    return f"{100.0 * float(value):.1f} %"


def _interval_text(body: Mapping[str, Any]) -> str:
    low, high, unit = body.get("low"), body.get("high"), str(body.get("unit", ""))
    if low is None and high is None:
        return ""
    return f"{_value_text(low, unit)} … {'unbounded' if high is None else _value_text(high, unit)}"


def _from_text(body: Mapping[str, Any]) -> str:
    sources = body.get("from") or []
    return ", ".join(str(s.get("label")) for s in sources if isinstance(s, Mapping))


def build_fit_document(body: Mapping[str, Any]) -> Document:
    """The fit's document, from its JSON (fresh or stored)."""
    run_id = (body.get("run") or {}).get("id")
    parameters = [p for p in body.get("parameters", []) if isinstance(p, Mapping)]
    rows = tuple(
        (
            str(p.get("name")),
            _value_text(p.get("value"), str(p.get("unit", ""))),
            _interval_text(p),
            _from_text(p),
            str(p.get("needs") or ""),
        )
        for p in parameters
    )
    table = Table(
        "fitted parameters (95 % intervals)",
        ("parameter", "value", "interval", "from", "needs (the run to add)"),
        rows,
    )
    how = tuple(f"{p.get('name')}: {p.get('note')}" for p in parameters if p.get("note"))
    points = [w for w in body.get("waf_points", []) if isinstance(w, Mapping)]
    waf_rows = tuple(
        (
            str((w.get("source") or {}).get("label")),
            f"{100.0 * float(w.get('active_fraction') or 0.0):.0f} %",
            "—" if w.get("waf") is None else f"{float(w['waf']):.3f}",
            _waf_interval(w.get("interval")),
            f"{float(w.get('fills') or 0.0):.1f}",
            str(w.get("reason") or ""),
        )
        for w in points
    )
    notes = (*how, *(str(n) for n in body.get("notes", [])))
    sections = [Section("model", tables=(table,), notes=notes)]
    if waf_rows:
        columns = ("run", "active range", "steady WAF", "interval", "fills", "note")
        sections.append(Section("steady-state WAF", tables=(Table("", columns, waf_rows),)))
    missing = [p for p in parameters if p.get("needs") and p.get("value") is None]
    verdict = tuple(f"{p.get('name')}: not fitted — add {p.get('needs')}" for p in missing)
    if body.get("nand_counter") is False:
        verdict += (
            f"spare and GC class: not measurable on this drive — {NO_NAND_COUNTER}; "
            "'ssdlab model predict' gives WAF, IOPS and days over an assumed spare range",
        )
    title = "ssdlab model fit" + (f" (run {run_id})" if run_id is not None else "")
    return Document(
        title=title,
        headline=(("drive", str(body.get("target"))), ("method", METHOD)),
        sections=tuple(sections),
        verdict=verdict,
        data=body,
    )


def _waf_interval(interval: Any) -> str:
    if not isinstance(interval, Mapping):
        return ""
    low, high = interval.get("low"), interval.get("high")
    return "" if low is None or high is None else f"{float(low):.3f} … {float(high):.3f}"
