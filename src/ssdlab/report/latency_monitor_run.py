"""A `--latency-monitor` run's C3h findings (runner/pass_latency_monitor.py) in its document:
whether the drive has the page (said once), and each reconciled pass laid out as `ssdlab
latency … --c3-before … --c3-after …` lays out its reconciliation (report/latency_reconcile.py);
the JSON key `latency_monitor`."""

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ssdlab.model.finding_names import LATENCY_MONITOR, LATENCY_MONITOR_PASS
from ssdlab.model.stored_run import StoredRun
from ssdlab.report.document import Document, Section, Table, with_part
from ssdlab.report.latency_reconcile import reconciliation_headline, reconciliation_section


def _passes(stored: StoredRun) -> list[Mapping[str, Any]]:
    """The run's pass findings in the order its steps were stored."""
    prefix = LATENCY_MONITOR_PASS + ":"
    found = {
        (str(body.get("step")), int(body.get("round", 0))): body
        for name, body in stored.findings.items()
        if name.startswith(prefix) and isinstance(body, Mapping)
    }
    ordered = [
        found.pop((s.step_key, s.round_index))
        for s in stored.steps
        if (s.step_key, s.round_index) in found
    ]
    return [*ordered, *found.values()]


def _count(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else "?"


def _device_only_section(title: str, data: Mapping[str, Any], reason: str) -> Section:
    """A pass without a per-I/O log: the drive's counter increases alone."""
    thresholds = data["thresholds_ms"]
    names = list(thresholds)
    ranges = [
        f"{thresholds[n]:g}–{thresholds[names[i + 1]]:g} ms" if i < 3 else f"≥ {thresholds[n]:g} ms"
        for i, n in enumerate(names)
    ]
    rows = tuple(
        (operation, *(_count(v) for v in counts))
        for operation, counts in data["device_commands"].items()
    )
    verdict = "conclusive" if data["conclusive"] else f"inconclusive: {data['reason']}"
    return Section(
        f"OCP latency monitor (C3h), the drive's counts: {title}",
        facts=(
            ("C3h before", str(data["c3_before"])),
            ("C3h after", str(data["c3_after"])),
            ("counts", verdict),
        ),
        tables=(
            Table(
                "commands the drive counted per bucket during the pass",
                ("operation", *ranges),
                rows,
            ),
        ),
        notes=(reason,),
    )


def _pass_section(body: Mapping[str, Any]) -> Section:
    title = f"{body.get('label', '?')} #{body.get('round', '?')}"
    data = body.get("reconciliation")
    device_only = body.get("device_only")
    if isinstance(device_only, Mapping):
        return _device_only_section(title, device_only, str(body.get("problem")))
    if not isinstance(data, Mapping):
        return Section(
            f"OCP latency monitor (C3h): {title}",
            facts=(("reconciliation", f"none: {body.get('problem')}"),),
        )
    section = reconciliation_section(data)
    kept = body.get("host_log_stored_bytes")
    notes = section.notes
    if isinstance(kept, int):
        notes = (
            *notes,
            f"the pass's per-I/O log ({kept:,} bytes as fio compressed it) was counted "
            "against the thresholds and removed; the counts are kept, the C3h pages as read "
            "(run captures)",
        )
    return replace(section, title=f"{section.title}: {title}", notes=notes)


def latency_monitor_part(stored: StoredRun) -> tuple[tuple[Section, ...], dict[str, Any]] | None:
    """The run's C3h sections and JSON; None for a run made without --latency-monitor."""
    probe = stored.findings.get(LATENCY_MONITOR)
    if not isinstance(probe, Mapping):
        return None
    passes = _passes(stored)
    data = {"drive": dict(probe), "passes": [dict(p) for p in passes]}
    if not probe.get("available"):
        section = Section(
            "OCP latency monitor (C3h)",
            facts=(("C3h", str(probe.get("reason"))),),
        )
        return (section,), data
    sections = tuple(_pass_section(p) for p in passes)
    if not sections:
        sections = (
            Section(
                "OCP latency monitor (C3h)",
                facts=(("C3h", "no pass was reconciled"),),
                notes=(str(probe.get("note")),),
            ),
        )
    return sections, data


def _headline(data: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """One reconciled pass: its counts at or above A; several (TRIM-6/7): none, each pass
    has its own section."""
    reconciled = [
        body["reconciliation"]
        for body in data["passes"]
        if isinstance(body.get("reconciliation"), Mapping)
    ]
    return reconciliation_headline(reconciled[0]) if len(reconciled) == 1 else ()


def with_latency_monitor(document: Document, stored: StoredRun) -> Document:
    """`document` with the run's C3h sections, headline and `latency_monitor` JSON."""
    part = latency_monitor_part(stored)
    if part is None:
        return document
    return with_part(document, part[0], "latency_monitor", part[1], _headline(part[1]))
