"""What every profile report shares: the run header, settings, health delta, job files, and
the machine-readable document; and small formatters for step results."""

from collections.abc import Iterable, Sequence
from typing import Any

from ssdlab.model.finding_names import BASELINE
from ssdlab.model.profile import ProfileResults, SettingValue
from ssdlab.model.run import run_origin
from ssdlab.model.step import StepResult
from ssdlab.model.units import format_size
from ssdlab.report import document as doc
from ssdlab.report.health import run_health_sections
from ssdlab.report.machine_note import machine_data, run_machine_note
from ssdlab.report.quick import environment_line, memory_label, memory_reason
from ssdlab.report.quick_document import baseline_section

FORMAT_VERSION = 1


# The unit of each setting that is not a size or a plain count, by its settings key (the
# option --key-name): sizes are recognised by kind below, everything else prints bare.
_SECONDS = frozenset(
    {
        "for_time",
        "health_every",
        "interval",
        "iteration_time",
        "log_interval",
        "measure",
        "ramp",
        "recover",
        "recovery_idle",
        "prefill_idle",
        "round_seconds",
        "runtime",
    }
)
_SIZES = frozenset(
    {
        "size",
        "block_size",
        "block_sizes",
        "cache_size",
        "iteration_bytes",
        "misalign",
        "recovery_size",
        "until_written",
    }
)
_UNITS = {
    "active_range": "%",
    "mix": "%",
    "mixes": "%",
    "levels": "%",
    "prefill": "%",
    "until_wear": "%",
    "last_hours": "h",
    "max_hours": "h",
    "max_temperature": "°C",
    "max_latency_us": "µs",
}


def setting_flag(name: str) -> str:
    """The option a setting is given with: 'block_sizes' -> '--block-sizes'."""
    return "--" + name.replace("_", "-")


def _one_setting(name: str, value: int | float) -> str:
    if name in _SIZES or name.endswith(("_bytes", "_size")):
        return format_size(int(value))
    if name == "rate":
        return f"{format_size(int(value))}/s"
    if name in ("iodepth", "iodepths"):
        return f"QD{value:g}"
    if name in _SECONDS:
        return f"{value:g} s"
    unit = _UNITS.get(name)
    number = f"{value:g}" if isinstance(value, float) else str(value)
    return number + (f" {unit}" if unit else "")


def format_setting(name: str, value: SettingValue) -> str:
    """A setting's value with its unit, as people read it: '30 s', '1 GiB', 'QD32', '50 %'."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        return ", ".join(_one_setting(name, v) for v in value)
    if isinstance(value, int | float):
        return _one_setting(name, value)
    return str(value)


def visible_series(
    label: str,
    xs: Sequence[float],
    ys: Sequence[float],
    style: str = "line",
    errors: Sequence[tuple[float, float]] = (),
    point_labels: Sequence[str] = (),
) -> doc.Series:
    """A series that draws something: a line or steps of one point draws nothing, so a series
    that short is drawn as a point."""
    shown = "points" if style in ("line", "steps") and len(xs) < 2 else style
    return doc.Series(
        label, tuple(xs), tuple(ys), shown, errors=tuple(errors), point_labels=tuple(point_labels)
    )


def time_unit(span_s: float) -> tuple[float, str]:
    """(seconds per unit, unit) that keep a time axis readable from a test run to a month:
    s under 2 min, min under 2 h, h under 2 days, else days."""
    for limit, divisor, unit in ((120.0, 1.0, "s"), (7200.0, 60.0, "min"), (172800.0, 3600.0, "h")):
        if span_s < limit:
            return divisor, unit
    return 86400.0, "days"


def zero_or_log(values: Iterable[float | None]) -> tuple[bool, bool]:
    """(y_log, y_zero) for an axis of throughput, IOPS or counts: log when the values span
    more than two decades, else linear from zero."""
    log = doc.spans_decades(values)
    return log, not log


def measured(results: ProfileResults) -> tuple[StepResult, ...]:
    """The steps that are results (not preparation)."""
    return tuple(step for step in results.steps if not step.discarded)


def run_header(results: ProfileResults) -> tuple[tuple[str, str], ...]:
    run = results.run
    target = run.target
    device = target.get("device")
    rows = [("run", f"{run.run_id} ({run.status.value})"), ("target", run.target_path)]
    label = memory_label(target)
    if label is not None:
        rows.append(("measures", label))
    if isinstance(device, dict):
        capacity = device.get("capacity_bytes")
        size = f", {format_size(capacity)}" if isinstance(capacity, int) else ""
        model = device.get("model") or "model not reported"
        rows.append(("device", f"{model} ({device.get('path')}{size})"))
    rows.append(("measured with", environment_line(run)))
    machine = run_machine_note(run)
    if machine is not None:
        rows.append(("machine", machine.removeprefix("machine: ")))
    return tuple(rows)


def settings_section(results: ProfileResults) -> doc.Section:
    plan = results.plan
    rows = tuple((setting_flag(name), format_setting(name, value)) for name, value in plan.settings)
    notes = list(plan.notes)
    if results.run.status.value != "complete":
        notes.append(f"status {results.run.status.value}: {results.run.status_reason}")
    return doc.Section("Settings", facts=rows, notes=tuple(notes))


def health_sections(results: ProfileResults) -> tuple[doc.Section, ...]:
    return tuple(
        doc.Section(section.title, facts=section.rows, notes=section.notes)
        for section in run_health_sections(results.health)
    )


def compose(
    results: ProfileResults,
    *,
    title: str,
    verdict: Sequence[str],
    sections: Sequence[doc.Section],
    data: dict[str, Any],
) -> doc.Document:
    """The profile's own sections between the standard header and the settings and health.
    A target in RAM or the page cache is labelled in the header and the data."""
    reason = memory_reason(results.run.target)
    baseline = results.findings.get(BASELINE)
    judged = () if baseline is None else (baseline_section(baseline),)
    return doc.Document(
        title=title,
        headline=run_header(results),
        sections=(*sections, *judged, settings_section(results), *health_sections(results)),
        verdict=tuple(verdict),
        data={
            "format": "ssdlab-profile-run",
            "format_version": FORMAT_VERSION,
            "profile": results.plan.profile,
            "profile_version": results.plan.profile_version,
            "run": {
                "id": results.run.run_id,
                "status": results.run.status.value,
                "status_reason": results.run.status_reason,
                "target": results.run.target,
                "environment": results.run.environment,
                "started_at_s": results.run.started_at_s,
                "ended_at_s": results.run.ended_at_s,
                **run_origin(results.run),
            },
            "settings": dict(results.plan.settings),
            "measures_memory": reason is not None,
            "measures_memory_reason": reason,
            "facts": dict(results.facts),
            "result": data,
            "verdict": list(verdict),
            **({} if baseline is None else {"baseline": dict(baseline)}),
            **machine_data(results.run),
        },
    )
