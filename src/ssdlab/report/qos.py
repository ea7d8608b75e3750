"""The `qos` profile's report: each target of the workload with what was measured, its 95 %
interval and its outcome, from the stored verdict (analysis/profiles/qos.py)."""

from collections.abc import Mapping, Sequence
from typing import Any

from ssdlab.model.finding_names import QOS_VERDICT
from ssdlab.model.profile import ProfileResults
from ssdlab.model.units import format_count
from ssdlab.report import document as doc
from ssdlab.report.profile_common import compose


def _us(ns: float | None) -> str:
    return "—" if ns is None else f"{ns / 1000:,.1f}"


def _count(item: Mapping[str, Any]) -> str:
    count = item.get("count")
    if count is None:
        return "—"
    fewest, most = count
    return f"{fewest:,} I/Os" if fewest == most else f"{fewest:,}–{most:,} I/Os"


def _is_change(item: Mapping[str, Any]) -> bool:
    return "change" in str(item["check"])


def _interval(item: Mapping[str, Any]) -> str:
    interval = item.get("interval")
    if _is_change(item):
        if interval is None:
            return (
                "—"
                if item.get("needs_ios") is None
                else f"needs ≥ {format_count(item['needs_ios'])} I/Os"
            )
        low, high = interval.get("low"), interval.get("high")
        return (
            f"{'?' if low is None else f'{low:.3f}×'} – {'?' if high is None else f'{high:.3f}×'}"
        )
    if item.get("at_most") is not None:
        return "exact count" if _count(item).count("–") == 0 else "a bucket straddles it"
    if item["check"] == "max":
        return f"largest of {format_count(item['n'])}"
    if interval is None:
        return f"needs ≥ {format_count(item['needs_ios'])} I/Os"
    low, high = interval.get("low"), interval.get("high")
    return f"{'?' if low is None else _us(low)} – {'?' if high is None else _us(high)}"


def _value(item: Mapping[str, Any]) -> str:
    if item.get("at_most") is not None:
        return _count(item)
    if _is_change(item):
        value = item.get("value_ns")
        return "—" if value is None else f"{value:.3f}× alone"
    if item["check"] != "max" and item.get("interval") is None:
        return f"needs ≥ {format_count(item['needs_ios'])} I/Os"
    return _us(item.get("value_ns"))


def _target(item: Mapping[str, Any]) -> str:
    if item.get("at_most") is not None:
        return f"≤ {item['at_most']} I/Os"
    if _is_change(item):
        return f"≤ {item['limit_ns']:.2f}× alone"
    return _us(item["limit_ns"])


METHOD_NOTES = (
    (
        "percentile",
        "latencies in µs: completion latency from fio's json+ histogram; a percentile passes "
        "when its whole 95 % interval is at or under the target, fails when all of it is over",
    ),
    ("max", "max is the largest latency measured: a sample extreme, no interval; n stated"),
    ("count", "a count of I/Os over a threshold is a range when a fio bucket straddles it"),
    (
        "change",
        "a change is a read percentile in its phase ÷ the same percentile of the reads alone, "
        "with the interval of the two percentiles' intervals (97.5 % each)",
    ),
)


def _kind(item: Mapping[str, Any]) -> str:
    if item.get("at_most") is not None:
        return "count"
    if _is_change(item):
        return "change"
    return "max" if item["check"] == "max" else "percentile"


def _method_notes(items: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """How each kind of target in the table is judged, for the kinds it holds."""
    kinds = {_kind(item) for item in items}
    return tuple(note for kind, note in METHOD_NOTES if kind in kinds)


def build_qos_document(results: ProfileResults) -> doc.Document:
    found = results.findings.get(QOS_VERDICT)
    if found is None:
        return compose(results, title="QoS", verdict=("no verdict: nothing measured",),
                       sections=(), data={})  # fmt: skip
    items = found["items"]
    table = doc.Table(
        f"{found['workload']} at {found['capacity_tb']:.4g} TB, {found['duration_s']:,.0f} s",
        (
            "direction",
            "check",
            "target",
            "measured",
            "95 % interval",
            "n",
            "outcome",
        ),
        tuple(
            (
                item["direction"],
                item["check"],
                _target(item),
                _value(item),
                _interval(item),
                format_count(item["n"]),
                item["outcome"],
            )
            for item in items
        ),
        notes=(
            *_method_notes(items),
            *sorted({f"{item['check']} {item['direction']}: {item['source']}" for item in items}),
        ),
    )
    sections = [doc.Section("Targets", tables=(table,))]
    verdict = [
        str(found["sentence"]),
        *(str(item["sentence"]) for item in items if item["outcome"] != "pass"),
    ]
    return compose(
        results, title="QoS", verdict=verdict, sections=sections, data={QOS_VERDICT: found}
    )
