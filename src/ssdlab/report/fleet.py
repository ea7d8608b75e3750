"""The fleet commands' results as documents: doctor, run, collect, status and compare, one
row per host (or drive); `data` holds the same figures for --json."""

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from ssdlab.analysis.fleet import (
    CLOCK_TOLERANCE_S,
    DriveGroup,
    FleetDrive,
    GroupLatency,
    clock_verdict,
)
from ssdlab.analysis.merged_latency import merged_latency_data
from ssdlab.analysis.tail_intervals import needs_ios
from ssdlab.model.fleet import HostCheck, HostCollect, JobOutcome, Mismatch
from ssdlab.model.units import format_decimal_bytes, format_number, format_time
from ssdlab.report import document as doc
from ssdlab.report.compare import format_metric_value, format_ratio
from ssdlab.report.merged_latency_rows import LATENCY_COLUMNS, merged_latency_rows
from ssdlab.report.profile_common import zero_or_log
from ssdlab.report.tail_text import TAIL_NOTE, tail_cell

FORMAT_VERSION = 1
DASH = "—"


def _yes_no(value: bool | None) -> str:
    return DASH if value is None else ("yes" if value else "no")


def _direct_io(check: HostCheck) -> str:
    if not check.direct_io:
        return DASH
    problems = [f"{path}: {problem}" for path, problem in check.direct_io.items() if problem]
    return "; ".join(problems) if problems else "yes"


def _clock(check: HostCheck) -> str:
    if check.clock_offset_s is None:
        return DASH
    spread = f" ±{check.clock_uncertainty_s * 1000:.0f} ms" if check.clock_uncertainty_s else ""
    verdict = clock_verdict(check)
    said = f" ({verdict})" if verdict in ("inconclusive", "differs") else ""
    return f"{check.clock_offset_s * 1000:+,.0f} ms{spread}{said}"


def _check_row(check: HostCheck) -> tuple[str, ...]:
    return (
        check.host,
        "yes" if check.usable else ("no" if not check.reachable else "not usable"),
        check.ssdlab_version or DASH,
        check.fio_version or DASH,
        check.smartctl_version or DASH,
        _yes_no(check.is_root),
        _direct_io(check),
        _clock(check),
        ", ".join(check.missing_tools) or DASH,
        check.problem or "",
    )


def build_doctor_document(
    checks: Sequence[HostCheck], found: Sequence[Mismatch], local_version: str
) -> doc.Document:
    usable = sum(check.usable for check in checks)
    verdict = [f"{usable} of {len(checks)} hosts can take part in a fleet run"]
    for mismatch in found:
        consequence = (
            "a fleet run is refused (--allow-mismatch runs it anyway)"
            if mismatch.changes_results
            else "results still compare"
        )
        verdict.append(f"{mismatch.detail}: {consequence}")
    unjudged = [
        check for check in checks if check.usable and clock_verdict(check) == "inconclusive"
    ]
    if unjudged:
        hosts = ", ".join(
            f"{check.host} (±{(check.clock_uncertainty_s or 0.0) * 1000:.0f} ms)"
            for check in unjudged
        )
        limit = f"{CLOCK_TOLERANCE_S * 1000:.0f} ms"
        verdict.append(
            f"clocks not judged to {limit}: the reading's round trip was too long on {hosts}"
        )
    table = doc.Table(
        "Hosts",
        (
            "host",
            "usable",
            "ssdlab",
            "fio",
            "smartctl",
            "root",
            "O_DIRECT",
            "clock offset",
            "missing",
            "problem",
        ),
        tuple(_check_row(check) for check in checks),
        notes=(
            "clock offset: the node's clock minus this machine's, ± half the round trip it was "
            "read in (the shortest of three); inconclusive: too long a round trip to tell "
            f"whether it is within {CLOCK_TOLERANCE_S * 1000:.0f} ms",
        ),
    )
    return doc.Document(
        "Fleet doctor",
        (("hosts", str(len(checks))), ("this ssdlab", local_version)),
        (doc.Section("Hosts", tables=(table,)),),
        tuple(verdict),
        data={
            "format": "ssdlab-fleet-doctor",
            "format_version": FORMAT_VERSION,
            "hosts": [
                dataclasses.asdict(check) | {"clock_verdict": clock_verdict(check)}
                for check in checks
            ],
            "mismatches": [dataclasses.asdict(mismatch) for mismatch in found],
        },
    )


def _outcome_text(outcome: JobOutcome) -> str:
    if outcome.lost is not None:
        return outcome.lost
    if outcome.exit_code == 0:
        return "complete"
    said = f": {outcome.said}" if outcome.said else ""
    return f"exit {outcome.exit_code}{said}"


def build_run_document(
    profile: str,
    start_at_s: float | None,
    outcomes: Sequence[JobOutcome],
    collected: Sequence[HostCollect] = (),
    summaries: Mapping[tuple[str, str], str] | None = None,
) -> doc.Document:
    summaries = summaries or {}
    rows = tuple(
        (
            o.host,
            o.target or DASH,
            o.job or DASH,
            _outcome_text(o),
            summaries.get((o.host, o.target), ""),
        )
        for o in outcomes
    )
    done = sum(o.ok for o in outcomes)
    verdict = [f"{done} of {len(outcomes)} runs complete"]
    sections = [
        doc.Section(
            "Runs",
            tables=(doc.Table("Runs", ("host", "target", "job", "result", "summary"), rows),),
        )
    ]
    if collected:
        sections.append(_collect_section(collected))
    return doc.Document(
        f"Fleet run: {profile}",
        (("profile", profile), ("start", format_time(start_at_s))),
        tuple(sections),
        tuple(verdict),
        data={
            "format": "ssdlab-fleet-run",
            "format_version": FORMAT_VERSION,
            "profile": profile,
            "start_at_s": start_at_s,
            "runs": [dataclasses.asdict(o) | {"ok": o.ok} for o in outcomes],
            "collected": [dataclasses.asdict(c) for c in collected],
        },
    )


def _collect_row(found: HostCollect) -> tuple[str, ...]:
    moved = format_decimal_bytes(found.transfer_bytes) if found.transfer_bytes is not None else DASH
    took = format_number(found.transfer_s, "s", 1) if found.transfer_s is not None else DASH
    return (
        found.host,
        str(len(found.added)),
        str(len(found.updated)),
        str(len(found.refused)),
        moved,
        took,
        found.problem or "",
    )


def _collect_section(collected: Sequence[HostCollect]) -> doc.Section:
    table = doc.Table(
        "Collected",
        ("host", "new runs", "updated runs", "refused runs", "transferred", "time", "problem"),
        tuple(_collect_row(found) for found in collected),
        notes=(
            "updated: runs collected while they still ran, now brought up to date",
            "refused: runs not taken (each said below); nothing of them was stored",
        ),
    )
    return doc.Section("Collected", tables=(table,))


def build_collect_document(collected: Sequence[HostCollect]) -> doc.Document:
    added = sum(len(found.added) for found in collected)
    failed = [found.host for found in collected if found.problem]
    verdict = [f"{added} new runs from {len(collected) - len(failed)} hosts"]
    if failed:
        verdict.append("not collected: " + ", ".join(failed))
    verdict += [f"{found.host}: refused {line}" for found in collected for line in found.refused]
    return doc.Document(
        "Fleet collect",
        (("hosts", str(len(collected))),),
        (_collect_section(collected),),
        tuple(verdict),
        data={
            "format": "ssdlab-fleet-collect",
            "format_version": FORMAT_VERSION,
            "hosts": [dataclasses.asdict(found) for found in collected],
        },
    )


def _number(value: object, digits: int) -> str:
    return format_number(value, digits=digits) if isinstance(value, int | float) else DASH


def _status_rows(host: str, status: Mapping[str, Any]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for run in status.get("runs", []):
        endurance = run.get("endurance") or {}
        rows.append(
            (
                host,
                str(run.get("id")),
                str(run.get("profile")),
                str(run.get("status")),
                str(run.get("target")),
                format_time(run.get("started_at_s")),
                _number(endurance.get("iterations"), 0),
                _number(endurance.get("waf_recent"), 2),
                _number(endurance.get("waf_to_date"), 2),
                _number(endurance.get("days_to_eol"), 0),
            )
        )
    return rows


def build_status_document(
    statuses: Mapping[str, Mapping[str, Any]], problems: Mapping[str, str]
) -> doc.Document:
    rows = [row for host, status in statuses.items() for row in _status_rows(host, status)]
    running = sum(1 for row in rows if row[3] == "running")
    jobs = sum(
        1
        for status in statuses.values()
        for job in status.get("jobs", [])
        if job.get("state") == "running"
    )
    verdict = [f"{running} runs running on {len(statuses)} hosts ({jobs} fleet jobs)"]
    verdict += [f"{host}: {problem}" for host, problem in problems.items()]
    table = doc.Table(
        "Runs on the nodes (latest first)",
        (
            "host",
            "run",
            "profile",
            "status",
            "target",
            "started",
            "iterations",
            "WAF recent",
            "WAF to date",
            "days to end of life",
        ),
        tuple(rows),
        notes=("run: the id in the node's own store; fleet collect brings the runs here",),
    )
    return doc.Document(
        "Fleet status",
        (("hosts", str(len(statuses) + len(problems))),),
        (doc.Section("Runs", tables=(table,)),),
        tuple(verdict),
        data={
            "format": "ssdlab-fleet-status",
            "format_version": FORMAT_VERSION,
            "hosts": dict(statuses),
            "problems": dict(problems),
        },
    )


def _drive_name(drive: FleetDrive) -> str:
    return f"{drive.host}:{drive.target} (run {drive.run_id})"


def _group_title(group: DriveGroup) -> str:
    return f"{group.model or 'unknown model'}, firmware {group.firmware or 'unknown'}"


LATENCY_NOTE = (
    "completion latency of the group's drives together: each drive's per-second histograms "
    "(fio's buckets, 64 per power of two) added bucket by bucket over drives and passes, "
    "never an average of the drives' percentiles; a second is the second of each pass, "
    "counted from the pass's own start, so the drives line up at a common start. A second's "
    f"p99 and p99.9 are given only when its I/Os support them ({needs_ios(99.0):,} and "
    f"{needs_ios(99.9):,} I/Os; '–' otherwise); per-second values are within 3.1 %, the "
    "whole run's within 0.78 %"
)


def _latency_table(test: GroupLatency) -> doc.Table:
    directions = {name: merged_latency_data(m) for name, m in test.directions.items()}
    return doc.Table(
        f"{test.test}: latency of {test.drives} drive(s) together, {test.passes} passes merged",
        LATENCY_COLUMNS,
        tuple(cells for cells, _ in merged_latency_rows(directions, tail_cell)),
    )


def _pct_name(pct: float) -> str:
    return f"p{pct:g}"


def _latency_chart(group: DriveGroup, test: GroupLatency) -> doc.Chart | None:
    """The group's merged latency over the seconds of its passes: per direction p50, p99 and
    p99.9, each second drawn only where its I/Os support that percentile (a gap otherwise,
    never a number n cannot carry); None when no second has one."""
    series = []
    for name, merged in test.directions.items():
        for index, (pct, _) in enumerate(merged.percentiles_ns):
            points = [
                (float(second.second), value / 1000.0)
                for second in merged.seconds
                if (value := second.percentiles_ns[index][1]) is not None
            ]
            if points:
                xs, ys = zip(*points, strict=True)
                style = "line" if pct == 50.0 else "points"
                series.append(doc.Series(f"{name} {_pct_name(pct)}", xs, ys, style=style))
    if not series:
        return None
    slug = "-".join(
        "".join(c if c.isalnum() or c == "-" else "_" for c in part)
        for part in (group.model or "unknown", group.firmware or "unknown", test.test)
    )
    y_log, y_zero = zero_or_log(y for one in series for y in one.ys)
    return doc.Chart(
        key=f"fleet-latency-{slug}",
        title=f"{test.test}: latency of {test.drives} drive(s) together, per second",
        x_label="time into the pass",
        y_label="completion latency",
        x_unit="s",
        y_unit="µs",
        y_log=y_log,
        y_zero=y_zero,
        series=tuple(series),
        caption="merged per-second histograms of every drive of the group; p99 and p99.9 "
        "drawn only in the seconds whose I/Os support them",
    )


def _latency_data(test: GroupLatency) -> dict[str, Any]:
    return {
        "test": test.test,
        "drives": test.drives,
        "passes": test.passes,
        "directions": {name: merged_latency_data(m) for name, m in test.directions.items()},
    }


def _mine(group: DriveGroup, latency: Sequence[GroupLatency]) -> list[GroupLatency]:
    return [t for t in latency if (t.model, t.firmware) == (group.model, group.firmware)]


def _group_section(group: DriveGroup, latency: Sequence[GroupLatency] = ()) -> doc.Section:
    drives = doc.Table(
        "Drives",
        ("drive", "serial"),
        tuple((_drive_name(d), d.serial or DASH) for d in group.drives),
    )
    slower = doc.Table(
        "Significantly slower than its siblings",
        ("drive", "metric", "drive", "siblings", "ratio"),
        tuple(
            (
                _drive_name(c.drive),
                c.change.label,
                format_metric_value(c.change.other),
                format_metric_value(c.change.baseline),
                format_ratio(c.change),
            )
            for c in group.slower
        ),
    )
    notes = () if len(group.drives) > 1 else ("alone in its group: nothing to compare with",)
    tests = _mine(group, latency)
    if tests:
        notes = (*notes, LATENCY_NOTE, TAIL_NOTE)
    tables = (drives, slower, *(_latency_table(t) for t in tests))
    charts = tuple(c for t in tests if (c := _latency_chart(group, t)) is not None)
    return doc.Section(_group_title(group), tables=tables, charts=charts, notes=notes)


def _group_data(group: DriveGroup, latency: Sequence[GroupLatency] = ()) -> dict[str, Any]:
    return {
        "model": group.model,
        "firmware": group.firmware,
        "latency": [_latency_data(t) for t in _mine(group, latency)],
        "drives": [
            {k: v for k, v in dataclasses.asdict(d).items() if k != "metrics"} for d in group.drives
        ],
        "slower": [
            {
                "run_id": c.drive.run_id,
                "host": c.drive.host,
                "target": c.drive.target,
                "metric": c.change.key,
                "ratio": c.change.ratio,
                "change_pct": c.change.change_pct,
                "p_value": c.change.p_value,
            }
            for c in group.slower
        ],
    }


def build_fleet_compare_document(
    kind: str,
    groups: Sequence[DriveGroup],
    threshold_pct: float,
    alpha: float,
    latency: Sequence[GroupLatency] = (),
) -> doc.Document:
    slower = sorted({_drive_name(c.drive) for g in groups for c in g.slower})
    verdict = (
        [f"significantly slower than their siblings: {', '.join(slower)}"]
        if slower
        else ["no drive is significantly slower than its siblings"]
    )
    return doc.Document(
        f"Fleet compare: {kind}",
        (
            ("drives", str(sum(len(g.drives) for g in groups))),
            ("groups (model, firmware)", str(len(groups))),
            (
                "rule",
                f"a change beyond ±{threshold_pct:g} % that the passes of the drives support "
                f"(p < {alpha:g}); method: docs/analysis.md#compare-runs",
            ),
        ),
        tuple(_group_section(group, latency) for group in groups),
        tuple(verdict),
        data={
            "format": "ssdlab-fleet-compare",
            "format_version": FORMAT_VERSION,
            "kind": kind,
            "threshold_pct": threshold_pct,
            "alpha": alpha,
            "latency_note": LATENCY_NOTE,
            "groups": [_group_data(group, latency) for group in groups],
        },
    )
