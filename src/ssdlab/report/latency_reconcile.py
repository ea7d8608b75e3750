"""The reconciliation of the OCP Latency Monitor (C3h) with the host's per-I/O latency log
(analysis/latency_reconcile.py) as JSON (`ssdlab latency … --c3-before F --c3-after F --json`,
key "reconciliation") and as a document section."""

from collections.abc import Mapping, Sequence
from typing import Any

from ssdlab.analysis.latency_reconcile import LatencyReconciliation
from ssdlab.report import document as doc

RULE = (
    "host latency ≥ the drive's for the same command, so the counts are compared at or above "
    "each threshold, from D down: matched = min(host ≥ T, device ≥ T) — the drive itself took "
    "T or longer; host-only = host − device — the drive completed them below T, the host "
    "(queueing, kernel, fio) added the rest; device-only = device − host — commands of other "
    "I/O on the drive (another process, filesystem metadata); with such I/O host-only is a "
    "lower bound"
)


def _count(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def _ms(ns: int | None) -> str:
    return "∞" if ns is None else f"{ns / 1e6:g} ms"


def reconciliation_data(
    result: LatencyReconciliation, c3_files: Sequence[str], kind: str
) -> dict[str, Any]:
    return {
        "c3_before": c3_files[0],
        "c3_after": c3_files[1],
        "host_latency": kind,
        "thresholds_ms": {
            name: round(t * 1000, 3) for name, t in zip("ABCD", result.thresholds_s, strict=True)
        },
        "conclusive": result.conclusive,
        "reason": result.reason,
        "rule": RULE,
        "notes": list(result.notes),
        "operations": {
            op.operation: {
                "host_ios": op.host_ios,
                "host_below_threshold_a": op.host_below_threshold,
                "buckets": [
                    {
                        "bucket": row.bucket,
                        "threshold": row.threshold,
                        "low_ns": row.low_ns,
                        "high_ns": row.high_ns,
                        "host_ios": row.host_ios,
                        "device_commands": row.device_commands,
                        "host_at_or_above": row.host_at_or_above,
                        "device_at_or_above": row.device_at_or_above,
                        "matched": row.matched,
                        "host_only": row.host_only,
                        "device_only": row.device_only,
                        "device_latency_s": row.device_latency_s,
                    }
                    for row in op.buckets
                ],
            }
            for op in result.operations
        },
    }


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
