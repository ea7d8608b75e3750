"""A quick run (or an imported CrystalDiskMark / KDiskMark / fio result) as a report document:
the CrystalDiskMark grid first, then the spread of the passes, the per-second time series,
latency percentiles, and the drive's health around the run."""

import json
from collections.abc import Mapping, Sequence
from itertools import accumulate
from typing import Any

from ssdlab.analysis.passes import TestSummary
from ssdlab.model.run import run_origin
from ssdlab.model.step import StepResult
from ssdlab.model.units import MB, fmt_mb, fmt_us, format_size
from ssdlab.report import document as doc
from ssdlab.report.export import report_document
from ssdlab.report.health import run_health_sections
from ssdlab.report.quick import (
    QuickReport,
    environment_line,
    figure_caption,
    grid_cells,
    memory_label,
    memory_reason,
    noisy_footnote,
    settings_line,
)

PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99)


def _cell_label(summary: TestSummary) -> str:
    return f"{summary.label} {summary.direction}"


def quick_json_document(
    report: QuickReport, baseline: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON document of a quick or imported run, with where it was made (host, uuid and,
    for a collected run, its node and when it was collected) and what its numbers measure:
    `measures_memory` (and why) for a target in RAM or the page cache; `baseline`, the stored
    baseline finding, when the run was made with --baseline."""
    reason = memory_reason(report.run.target)
    document = report_document(report)
    return {
        **document,
        "run": {**document["run"], **run_origin(report.run)},
        "measures_memory": reason is not None,
        "measures_memory_reason": reason,
        **({} if baseline is None else {"baseline": dict(baseline)}),
    }


def quick_json(report: QuickReport, baseline: Mapping[str, Any] | None = None) -> str:
    return json.dumps(quick_json_document(report, baseline), indent=2, sort_keys=False) + "\n"


def _runs(ids: Sequence[object]) -> str:
    return ("run " if len(ids) == 1 else "runs ") + ", ".join(str(i) for i in ids)


def _drive(key: str) -> str:
    if key.startswith("/"):
        return f"{key} (a path: the target has no device serial)"
    return f"drive {key}"


def _p(p_value: object) -> str:
    if not isinstance(p_value, float | int):
        return "p not computable"
    return "p < 0.001" if p_value < 0.001 else f"p = {p_value:.3f}"


def _change(change_pct: object) -> str:
    if not isinstance(change_pct, float | int):
        return "change unknown"
    sign = "−" if change_pct < 0 else "+"
    return f"{sign}{abs(change_pct):.1f} %"


def baseline_lines(body: Mapping[str, Any]) -> tuple[str, ...]:
    """A stored baseline finding in words: the reference run(s), or one line per regressed
    test and a summary ('against baseline nightly (run 12): no significant drop')."""
    name, drive = body.get("name"), str(body.get("drive"))
    ids = list(body.get("reference_run_ids") or [])
    if body.get("role") == "reference":
        pooled = " (their passes are pooled)" if len(ids) > 1 else ""
        return (f"baseline {name} on {_drive(drive)}: reference {_runs(ids)}{pooled}",)
    tests = list(body.get("tests") or [])
    lines = [
        f"{t.get('label')} {_change(t.get('change_pct'))} ({_p(t.get('p_value'))}): a regression"
        for t in tests
        if t.get("regression")
    ]
    counts = {v: sum(t.get("verdict") == v for t in tests) for v in ("untested", "missing")}
    notes = "".join(
        f"; {n} {v}" + (" (too few passes to test)" if v == "untested" else "")
        for v, n in counts.items()
        if n
    )
    outcome = f"{len(lines)} of {len(tests)} tests regressed" if lines else "no significant drop"
    lines.append(f"against baseline {name} on {_drive(drive)} ({_runs(ids)}): {outcome}{notes}")
    return tuple(lines)


def baseline_section(body: Mapping[str, Any]) -> doc.Section:
    """The baseline finding of a run as a report section: the judged tests as a table."""
    rows = tuple(
        (
            str(t.get("label")),
            str(t.get("verdict")),
            _change(t.get("change_pct")),
            _p(t.get("p_value")),
            "yes" if t.get("regression") else "no",
        )
        for t in body.get("tests") or []
    )
    tables = (
        (doc.Table("Against the baseline", ("Test", "verdict", "change", "p", "regression"), rows),)
        if rows
        else ()
    )
    return doc.Section("Baseline", tables=tables, notes=baseline_lines(body))


def _headline(report: QuickReport) -> tuple[tuple[str, str], ...]:
    run = report.run
    rows = [("run", f"{run.run_id} ({run.status.value})"), ("target", run.target_path)]
    label = memory_label(run.target)
    if label is not None:
        rows.append(("measures", label))
    device = run.target.get("device")
    if isinstance(device, dict):
        capacity = device.get("capacity_bytes")
        size = f", {format_size(capacity)}" if isinstance(capacity, int) else ""
        rows.append(("device", f"{device.get('model') or 'model not reported'}{size}"))
    for row in report.rows:
        cells = [
            f"{direction} {fmt_mb(cell.best_bw_bytes_per_s)} MB/s"
            for direction, cell in zip(report.directions, row.cells, strict=True)
            if cell is not None
        ]
        rows.append((row.label, " · ".join(cells)))
    return tuple(rows)


def _grid(report: QuickReport) -> doc.Table:
    columns, rows = grid_cells(report)
    return doc.Table(
        figure_caption(report.run),
        columns,
        rows,
        ("MB/s = 10^6 bytes/s; µs = mean total latency of the pass with the lowest mean",),
    )


def _bars(report: QuickReport) -> doc.Chart:
    labels = [row.label for row in report.rows]
    series = []
    for index, direction in enumerate(report.directions):
        points = []
        for x, row in enumerate(report.rows):
            cell = row.cells[index]
            if cell is not None:
                points.append((float(x), cell.best_bw_bytes_per_s / MB))
        series.append(
            doc.Series(
                direction,
                tuple(x for x, _ in points),
                tuple(y for _, y in points),
                style="bars",
            )
        )
    return doc.Chart(
        "quick-bars",
        "Best pass per test",
        y_label="MB/s",
        series=tuple(series),
        x_ticks=tuple((float(i), label) for i, label in enumerate(labels)),
    )


def _spread_table(report: QuickReport) -> doc.Table:
    rows = []
    for s in report.summaries:
        sd = "n/a" if s.stdev_bw_bytes_per_s is None else fmt_mb(s.stdev_bw_bytes_per_s)
        cv = "n/a" if s.cv_pct is None else f"{s.cv_pct:.1f} %" + (" ‼ noisy" if s.noisy else "")
        rows.append(
            (
                _cell_label(s),
                fmt_mb(s.best_bw_bytes_per_s),
                fmt_mb(s.mean_bw_bytes_per_s),
                sd,
                cv,
                f"{fmt_mb(s.min_bw_bytes_per_s)}–{fmt_mb(s.max_bw_bytes_per_s)}",
                str(s.passes),
            )
        )
    footnotes = tuple(n for n in (noisy_footnote(s) for s in report.summaries) if n is not None)
    return doc.Table(
        "Spread of the passes (what best-of-N hides)",
        ("Test", "best MB/s", "mean MB/s", "sd MB/s", "CV", "min–max MB/s", "passes"),
        tuple(rows),
        footnotes,
    )


def _measured(report: QuickReport) -> list[StepResult]:
    return [step for step in report.steps if not step.discarded]


def _pass_chart(report: QuickReport) -> doc.Chart:
    cells = [_cell_label(s) for s in report.summaries]
    by_cell: dict[str, list[float]] = {}
    for step in _measured(report):
        by_cell.setdefault(f"{step.step_label} {step.direction}", []).append(
            step.bw_bytes_per_s / MB
        )
    xs: list[float] = []
    ys: list[float] = []
    for index, cell in enumerate(cells):
        for value in by_cell.get(cell, []):
            xs.append(float(index))
            ys.append(value)
    return doc.Chart(
        "quick-passes",
        "Every measured pass",
        y_label="MB/s",
        series=(doc.Series("pass", tuple(xs), tuple(ys), style="points"),),
        x_ticks=tuple((float(i), cell) for i, cell in enumerate(cells)),
        caption="one point per pass; a wide column is a test that did not repeat",
    )


def _series_charts(report: QuickReport) -> tuple[doc.Chart, ...]:
    """MB/s, IOPS and mean latency per log interval over the measured passes, run end to end."""
    steps = [step for step in _measured(report) if step.series]
    if not steps:
        return ()
    starts = [0.0, *accumulate(max(p.elapsed_s for p in step.series) for step in steps)]
    metrics = (
        ("quick-series-mbps", "Throughput over time", "MB/s", "bw_bytes_per_s", 1 / MB),
        ("quick-series-iops", "IOPS over time", "IOPS", "iops", 1.0),
        ("quick-series-latency", "Mean latency over time", "µs", "lat_mean_ns", 1e-3),
    )
    charts = []
    for key, title, unit, field, scale in metrics:
        by_cell: dict[str, tuple[list[float], list[float]]] = {}
        for start, step in zip(starts, steps, strict=False):
            xs, ys = by_cell.setdefault(f"{step.step_label} {step.direction}", ([], []))
            totals: dict[float, float] = {}
            for point in step.series:
                value = getattr(point, field)
                if value is not None:
                    # a mix logs reads and writes apart: throughput and IOPS add up
                    if field == "lat_mean_ns" and point.elapsed_s in totals:
                        totals[point.elapsed_s] = (totals[point.elapsed_s] + value) / 2
                    else:
                        totals[point.elapsed_s] = totals.get(point.elapsed_s, 0.0) + value
            for elapsed, value in sorted(totals.items()):
                xs.append(start + elapsed)
                ys.append(value * scale)
        series = tuple(
            doc.Series(cell, tuple(xs), tuple(ys)) for cell, (xs, ys) in by_cell.items() if xs
        )
        if series:
            charts.append(
                doc.Chart(
                    key,
                    title,
                    x_label="seconds of measurement (passes end to end)",
                    y_label=unit,
                    series=series,
                    y_log=field == "lat_mean_ns",
                )
            )
    return tuple(charts)


def _percentiles(step: StepResult) -> dict[float, int]:
    merged: dict[float, int] = {}
    for metrics in (step.read, step.write):
        if metrics is not None:
            for pct, ns in metrics.clat_percentiles_ns:
                merged[pct] = max(merged.get(pct, 0), ns)
    return merged


def _latency(report: QuickReport) -> tuple[doc.Table, doc.Chart] | None:
    """Completion-latency percentiles of each test's best pass (fio's own percentiles; for a
    mix the slower direction's)."""
    best: dict[str, StepResult] = {}
    for step in _measured(report):
        cell = f"{step.step_label} {step.direction}"
        if cell not in best or step.bw_bytes_per_s > best[cell].bw_bytes_per_s:
            best[cell] = step
    rows = []
    series = []
    for cell, step in best.items():
        pcts = _percentiles(step)
        if not pcts:
            continue
        rows.append((cell, *(fmt_us(pcts.get(p)) for p in PERCENTILES)))
        shown = [p for p in PERCENTILES if p in pcts]
        series.append(
            doc.Series(
                cell,
                tuple(float(i) for i, _ in enumerate(shown)),
                tuple(pcts[p] / 1000 for p in shown),
                style="line",
            )
        )
    if not rows:
        return None
    table = doc.Table(
        "Completion latency percentiles of the best pass (µs)",
        ("Test", *(f"p{p:g}" for p in PERCENTILES)),
        tuple(rows),
    )
    chart = doc.Chart(
        "quick-latency-percentiles",
        "Completion latency percentiles (best pass)",
        x_label="percentile",
        y_label="µs",
        series=tuple(series),
        y_log=True,
        x_ticks=tuple((float(i), f"p{p:g}") for i, p in enumerate(PERCENTILES)),
    )
    return table, chart


def _import_notes(report: QuickReport) -> tuple[str, ...]:
    semantics = report.run.settings.get("semantics")
    if not isinstance(semantics, list):
        return ()
    source = report.run.settings.get("source_tool", "another tool")
    return (f"imported from {source}: {' '.join(str(s) for s in semantics)}",)


def build_quick_document(
    report: QuickReport,
    extra: Sequence[doc.Section] = (),
    baseline: Mapping[str, Any] | None = None,
) -> doc.Document:
    """The whole quick-run report as a document (the HTML and Markdown reports render it);
    `baseline`: the run's stored baseline finding, if any."""
    run = report.run
    label = memory_label(run.target)
    results = doc.Section(
        "Results",
        tables=(_grid(report),),
        charts=(_bars(report),),
        notes=(*(() if label is None else (label,)), *_import_notes(report)),
    )
    spread = doc.Section(
        "Spread of the passes", tables=(_spread_table(report),), charts=(_pass_chart(report),)
    )
    sections = [results, spread]
    series = _series_charts(report)
    if series:
        sections.append(doc.Section("Time series", charts=series))
    latency = _latency(report)
    if latency is not None:
        sections.append(doc.Section("Latency", tables=(latency[0],), charts=(latency[1],)))
    sections.extend(extra)
    if baseline is not None:
        sections.append(baseline_section(baseline))
    settings_notes = []
    if run.status.value != "complete":
        settings_notes.append(f"status {run.status.value}: {run.status_reason}")
    sections.append(
        doc.Section(
            "Settings",
            facts=(("settings", settings_line(run)), ("measured with", environment_line(run))),
            notes=tuple(settings_notes),
        )
    )
    sections.extend(
        doc.Section(s.title, facts=s.rows, notes=s.notes)
        for s in run_health_sections(report.health)
    )
    title = f"ssdlab run {run.run_id}: {run.profile}" + (f" ({run.preset})" if run.preset else "")
    return doc.Document(
        title=title,
        headline=_headline(report),
        sections=tuple(sections),
        data=quick_json_document(report, baseline),
    )
