"""The reconciliation of the OCP Latency Monitor (C3h) with the host's per-I/O latency log
(analysis/latency_reconcile.py, whose `reconciliation_data` is the JSON of `ssdlab latency …
--c3-before F --c3-after F --json`, key "reconciliation", and of a run's stored finding) as a
document section."""

from collections.abc import Mapping
from typing import Any

from ssdlab.analysis.latency_reconcile import RULE
from ssdlab.report import document as doc


def _count(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def _ms(ns: int | None) -> str:
    return "∞" if ns is None else f"{ns / 1e6:g} ms"


def reconciliation_headline(data: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """Per operation, at or above threshold A: matched, host-only, device-only."""
    if not data["conclusive"]:
        return (("C3h", "inconclusive: the drive's active counters restarted"),)
    found = []
    for name, operation in data["operations"].items():
        a = operation["buckets"][0]
        found.append(
            (
                f"C3h {name} ≥ A",
                f"{_count(a['matched'])} matched, {_count(a['host_only'])} host-only, "
                f"{_count(a['device_only'])} device-only",
            )
        )
    return tuple(found)


def reconciliation_section(data: Mapping[str, Any]) -> doc.Section:
    """One table: a row per operation and bucket."""
    rows = []
    for name, found in data["operations"].items():
        for row in found["buckets"]:
            rows.append(
                (
                    name,
                    f"{row['bucket']} ({row['threshold']})",
                    f"{_ms(row['low_ns'])}–{_ms(row['high_ns'])}",
                    _count(row["host_ios"]),
                    _count(row["device_commands"]),
                    _count(row["host_at_or_above"]),
                    _count(row["device_at_or_above"]),
                    _count(row["matched"]),
                    _count(row["host_only"]),
                    _count(row["device_only"]),
                )
            )
    table = doc.Table(
        "host I/Os and the drive's counts per bucket: in its range, then at or above its "
        "lower threshold T",
        (
            "operation",
            "bucket",
            "range",
            "host",
            "device",
            "host ≥ T",
            "device ≥ T",
            "matched",
            "host-only",
            "device-only",
        ),
        tuple(rows),
    )
    facts = [
        ("C3h before", data["c3_before"]),
        ("C3h after", data["c3_after"]),
        ("thresholds", ", ".join(f"{k} {v:g} ms" for k, v in data["thresholds_ms"].items())),
    ]
    facts += [
        (f"{name} below A", f"{found['host_below_threshold_a']:,} of {found['host_ios']:,}")
        for name, found in data["operations"].items()
    ]
    verdict = "conclusive" if data["conclusive"] else f"inconclusive: {data['reason']}"
    facts.append(("reconciliation", verdict))
    notes = [RULE, *data["notes"]]
    if data["host_latency"] != "lat":
        notes.append(
            f"the host log is fio's {data['host_latency']}, which leaves out submission, so a "
            "command may be slower at the drive than in the log by up to its submission time; "
            "the rule's bound holds for lat (total latency)"
        )
    return doc.Section(
        "OCP latency monitor (C3h) against the host log",
        facts=tuple(facts),
        tables=(table,),
        notes=tuple(notes),
    )
