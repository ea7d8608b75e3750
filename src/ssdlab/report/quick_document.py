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
from ssdlab.model.units import MB, format_cdm_mb_per_s, format_size
from ssdlab.report import document as doc
from ssdlab.report.export import report_document
from ssdlab.report.health import run_health_sections
from ssdlab.report.machine_note import machine_data, run_machine_note
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
from ssdlab.report.quick_tails import TABLE_NOTE, step_tails, tail_cell_us, tails_data

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
        **_latency_logs(report.run.settings),
        **machine_data(report.run),
        "latency_tails": _tails_data(report),
    }


def _tails_data(report: QuickReport) -> dict[str, Any]:
    """Per test of the best pass (as the latency table), its tails from p99 up from fio's
    table: n, the I/Os above, the interval or the I/Os needed."""
    return {
        cell: tails_data(step_tails(step, PERCENTILES))
        for cell, step in _best_passes(report).items()
        if step_tails(step, PERCENTILES)
    }


def _latency_logs(settings: Mapping[str, Any]) -> dict[str, Any]:
    """An imported fio run's reduced logs (`latency_logs`: per kind, as `ssdlab latency
    --json` prints them), when it was imported with them."""
    found = settings.get("latency_logs")
    return {"latency_logs": found} if isinstance(found, dict) else {}


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
    unsure = sum(t.get("outcome") == "inconclusive" for t in tests)
    if unsure:
        notes += (
            f"; {unsure} inconclusive (the interval of the change straddles the threshold: "
            "more passes narrow it)"
        )
    outcome = f"{len(lines)} of {len(tests)} tests regressed" if lines else "no significant drop"
    lines.append(f"against baseline {name} on {_drive(drive)} ({_runs(ids)}): {outcome}{notes}")
    return tuple(lines)


def _interval_pct(interval: object) -> str:
    """A stored ratio interval as a change in percent: '−12.1 … −7.9 %'; '—' without one."""
    if not isinstance(interval, Mapping):
        return "—"
    low, high = interval.get("low"), interval.get("high")
    shown = [
        "…" if not isinstance(v, int | float) else f"{(v - 1) * 100:+.1f}".replace("-", "−")
        for v in (low, high)
    ]
    return f"{shown[0]} … {shown[1]} %"


def baseline_section(body: Mapping[str, Any]) -> doc.Section:
    """The baseline finding of a run as a report section: the judged tests as a table."""
    tests = list(body.get("tests") or [])
    judged = any("outcome" in t for t in tests)  # stored with outcomes and intervals
    rows = tuple(
        (
            str(t.get("label")),
            str(t.get("verdict")),
            _change(t.get("change_pct")),
            _p(t.get("p_value")),
            *((_interval_pct(t.get("ratio_interval")), str(t.get("outcome") or "—"))
              if judged else ()),
            "yes" if t.get("regression") else "no",
        )
        for t in tests
    )  # fmt: skip
    columns = ("Test", "verdict", "change", "p", *(("interval", "outcome") if judged else ()),
               "regression")  # fmt: skip
    tables = (doc.Table("Against the baseline", columns, rows),) if rows else ()
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
            f"{direction} {format_cdm_mb_per_s(cell.best_bw_bytes_per_s)} MB/s"
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


def _spread_errors(summary: TestSummary) -> tuple[float, float]:
    """(slowest, fastest) pass in MB/s: the error bar around a best-of-N value."""
    return summary.min_bw_bytes_per_s / MB, summary.max_bw_bytes_per_s / MB


def _bars(report: QuickReport) -> doc.Chart:
    """Best pass per test and direction, with the slowest pass as the low end of its bar."""
    labels = [row.label for row in report.rows]
    series = []
    for index, direction in enumerate(report.directions):
        cells = [(x, row.cells[index]) for x, row in enumerate(report.rows)]
        shown = [(float(x), cell) for x, cell in cells if cell is not None]
        series.append(
            doc.Series(
                direction,
                tuple(x for x, _ in shown),
                tuple(cell.best_bw_bytes_per_s / MB for _, cell in shown),
                style="bars",
                errors=tuple(_spread_errors(cell) for _, cell in shown),
            )
        )
    shown_series, y_log = doc.bars_or_dots(series)
    return doc.Chart(
        "quick-bars",
        "Best pass per test",
        y_label="throughput",
        y_unit="MB/s",
        y_zero=not y_log,
        y_log=y_log,
        series=shown_series,
        x_ticks=tuple((float(i), label) for i, label in enumerate(labels)),
        caption=f"{'dot' if y_log else 'bar'}: the best pass (what CrystalDiskMark shows); "
        "whisker: slowest to fastest pass",
    )


def _spread_table(report: QuickReport) -> doc.Table:
    rows = []
    for s in report.summaries:
        sd = (
            "n/a" if s.stdev_bw_bytes_per_s is None else format_cdm_mb_per_s(s.stdev_bw_bytes_per_s)
        )
        cv = "n/a" if s.cv_pct is None else f"{s.cv_pct:.1f} %" + (" ‼ noisy" if s.noisy else "")
        rows.append(
            (
                _cell_label(s),
                format_cdm_mb_per_s(s.best_bw_bytes_per_s),
                format_cdm_mb_per_s(s.mean_bw_bytes_per_s),
                sd,
                cv,
                f"{format_cdm_mb_per_s(s.min_bw_bytes_per_s)}–{format_cdm_mb_per_s(s.max_bw_bytes_per_s)}",
                str(s.passes),
            )
        )
    footnotes = tuple(n for n in (noisy_footnote(report.summaries),) if n is not None)
    return doc.Table(
        "Spread of the passes (what best-of-N hides)",
        ("Test", "best MB/s", "mean MB/s", "sd MB/s", "CV", "min–max MB/s", "passes"),
        tuple(rows),
        footnotes,
    )


def _measured(report: QuickReport) -> list[StepResult]:
    return [step for step in report.steps if not step.discarded]


def _pass_chart(report: QuickReport) -> doc.Chart:
    """Every measured pass as a point over its test, one colour per direction."""
    rows = {row.label: float(x) for x, row in enumerate(report.rows)}
    series = []
    for direction in report.directions:
        passes = [
            (rows[step.step_label], step.bw_bytes_per_s / MB)
            for step in _measured(report)
            if step.direction == direction and step.step_label in rows
        ]
        if passes:
            series.append(
                doc.Series(
                    direction,
                    tuple(x for x, _ in passes),
                    tuple(y for _, y in passes),
                    style="points",
                )
            )
    y_log = doc.spans_decades(y for s in series for y in s.ys)
    return doc.Chart(
        "quick-passes",
        "Every measured pass",
        y_label="throughput",
        y_unit="MB/s",
        y_zero=not y_log,
        y_log=y_log,
        series=tuple(series),
        x_ticks=tuple((x, label) for label, x in rows.items()),
        caption="one point per pass; a tall column is a test whose passes disagree",
    )


# (pattern, what its tests are called, key and title of its rate chart, quantity, unit)
_PATTERN_GROUPS = (
    ("seq", "sequential tests", "quick-series-mbps", "Throughput over time", "throughput", "MB/s"),
    ("rnd", "random tests", "quick-series-iops", "IOPS over time", "I/O rate", "IOPS"),
    ("other", "other tests", "quick-series-mbps", "Throughput over time", "throughput", "MB/s"),
)


def _pattern(step: StepResult) -> str:
    """'seq' or 'rnd' for ssdlab's own test shapes (and imported CrystalDiskMark ones),
    'other' for a test named by an imported fio job."""
    prefix = step.step_label[:3].lower()
    return prefix if prefix in ("seq", "rnd") else "other"


def pass_seconds(step: StepResult) -> float:
    """How long a pass ran: the end of its last log interval, else fio's runtime."""
    if step.series:
        return max(p.elapsed_s for p in step.series)
    runtimes = [d.runtime_s for d in (step.read, step.write) if d is not None]
    return max(runtimes, default=0.0)


def _pass_mean(step: StepResult, field: str) -> float | None:
    """A pass's own figure for a quantity of its log: what a pass that logged nothing shows."""
    return {"iops": step.iops, "bw_bytes_per_s": step.bw_bytes_per_s,
            "lat_mean_ns": step.lat_mean_ns}.get(field)  # fmt: skip


def _time_series(
    steps: Sequence[StepResult], starts: Sequence[float], field: str, scale: float
) -> tuple[doc.Series, ...]:
    """One series per test (its passes end to end); points, not a line, when a pass logged
    too few intervals for a line to show. A pass that logged no interval (shorter than one)
    is one point, its own figure in the middle of its time: every measured pass is drawn."""
    by_cell: dict[str, tuple[list[float], list[float]]] = {}
    passes: dict[str, int] = {}
    for start, step in zip(starts, steps, strict=False):
        cell = f"{step.step_label} {step.direction}"
        xs, ys = by_cell.setdefault(cell, ([], []))
        passes[cell] = passes.get(cell, 0) + 1
        if not step.series:
            value = _pass_mean(step, field)
            if value is not None:
                xs.append(start + pass_seconds(step) / 2)
                ys.append(value * scale)
            continue
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
    return tuple(
        doc.Series(
            cell,
            tuple(xs),
            tuple(ys),
            style="line" if len(xs) >= _LINE_POINTS_PER_PASS * passes[cell] else "points",
        )
        for cell, (xs, ys) in by_cell.items()
        if xs
    )


_LINE_POINTS_PER_PASS = 3  # fewer log points per pass than this: drawn as points


def _series_chart(
    key: str, title: str, quantity: str, unit: str, series: tuple[doc.Series, ...]
) -> doc.Chart:
    y_log = doc.spans_decades(y for s in series for y in s.ys)
    return doc.Chart(
        key,
        title,
        x_label="measurement time (passes end to end)",
        x_unit="s",
        caption="one colour per test, its passes in the order they ran; dots where a pass "
        "logged too few intervals to draw a line",
        y_label=quantity,
        y_unit=unit,
        y_zero=not y_log and unit != "µs",
        y_log=y_log,
        series=series,
    )


def _series_charts(report: QuickReport) -> tuple[doc.Chart, ...]:
    """Per log interval over the measured passes, sequential and random tests apart (their
    speeds differ by orders of magnitude), each pattern's passes end to end: MB/s of the
    sequential tests, IOPS of the random ones, and the mean latency of each."""
    steps = _measured(report)
    if not any(step.series for step in steps):
        return ()
    patterns = {_pattern(step) for step in steps}
    charts = []
    for pattern, name, key, title, quantity, unit in _PATTERN_GROUPS:
        own = [step for step in steps if _pattern(step) == pattern]
        if not any(step.series for step in own):
            continue
        # this pattern's passes end to end, in the order they ran
        at = [0.0, *accumulate(pass_seconds(step) for step in own)]
        suffix = "" if len(patterns) == 1 else f" ({name})"
        field, scale = ("iops", 1.0) if unit == "IOPS" else ("bw_bytes_per_s", 1 / MB)
        rate = _time_series(own, at, field, scale)
        latency = _time_series(own, at, "lat_mean_ns", 1e-3)
        for part, chunk in enumerate(doc.series_groups(rate)):
            chart_key = f"{key}-{pattern}{_part(part)}"
            charts.append(_series_chart(chart_key, title + suffix, quantity, unit, chunk))
        for part, chunk in enumerate(doc.series_groups(latency)):
            chart_key = f"quick-series-latency-{pattern}{_part(part)}"
            chart_title = "Mean latency over time" + suffix
            charts.append(_series_chart(chart_key, chart_title, "mean latency", "µs", chunk))
    return tuple(charts)


def _part(index: int) -> str:
    return f"-{index + 1}" if index else ""


def _percentiles(step: StepResult) -> dict[float, int]:
    merged: dict[float, int] = {}
    for metrics in (step.read, step.write):
        if metrics is not None:
            for pct, ns in metrics.clat_percentiles_ns:
                merged[pct] = max(merged.get(pct, 0), ns)
    return merged


def _best_passes(report: QuickReport) -> dict[str, StepResult]:
    """Each test's pass with the most MB/s, by its label and direction."""
    best: dict[str, StepResult] = {}
    for step in _measured(report):
        cell = f"{step.step_label} {step.direction}"
        if cell not in best or step.bw_bytes_per_s > best[cell].bw_bytes_per_s:
            best[cell] = step
    return best


def _latency(report: QuickReport) -> tuple[doc.Table, tuple[doc.Chart, ...]] | None:
    """Completion-latency percentiles of each test's best pass (fio's own percentiles; for a
    mix the slower direction's): one chart, or one per pattern when there are more tests than
    a chart has colours."""
    best = _best_passes(report)
    rows = []
    series: list[tuple[str, doc.Series]] = []
    for cell, step in best.items():
        pcts = _percentiles(step)
        if not pcts:
            continue
        tails = step_tails(step, PERCENTILES)
        rows.append((cell, *(tail_cell_us(tails.get(p), pcts.get(p)) for p in PERCENTILES)))
        shown = [
            i
            for i, p in enumerate(PERCENTILES)
            if p in pcts and (p not in tails or tails[p].estimable)
        ]
        series.append(
            (
                _pattern(step),
                doc.Series(
                    cell,
                    tuple(float(i) for i in shown),
                    tuple(pcts[PERCENTILES[i]] / 1000 for i in shown),
                    style="line" if len(shown) >= 2 else "points",
                ),
            )
        )
    if not rows:
        return None
    table = doc.Table(
        "Completion latency percentiles of the best pass (µs)",
        ("Test", *(f"p{p:g}" for p in PERCENTILES)),
        tuple(rows),
        (TABLE_NOTE,),
    )
    groups: list[tuple[str, str, tuple[doc.Series, ...]]] = [("", "", tuple(s for _, s in series))]
    if len(series) > doc.MAX_SERIES:
        groups = [
            (f"-{pattern}", f" ({name})", tuple(s for p, s in series if p == pattern))
            for pattern, name, *_ in _PATTERN_GROUPS
        ]
    charts = tuple(
        _percentile_chart(f"quick-latency-percentiles{key}{_part(part)}", title, chunk)
        for key, title, group in groups
        for part, chunk in enumerate(doc.series_groups(group))
    )
    return table, charts


def _percentile_chart(key: str, title: str, series: tuple[doc.Series, ...]) -> doc.Chart:
    return doc.Chart(
        key,
        "Completion latency percentiles (best pass)" + title,
        x_label="percentile",
        y_label="completion latency",
        y_unit="µs",
        series=series,
        y_log=doc.spans_decades(y for s in series for y in s.ys),
        x_ticks=tuple((float(i), f"p{p:g}") for i, p in enumerate(PERCENTILES)),
    )


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
    machine = run_machine_note(run)
    results = doc.Section(
        "Results",
        tables=(_grid(report),),
        charts=(_bars(report),),
        notes=(
            *(() if label is None else (label,)),
            *_import_notes(report),
            *(() if machine is None else (machine,)),
        ),
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
        sections.append(doc.Section("Latency", tables=(latency[0],), charts=latency[1]))
    if "latency_logs" in run.settings:  # an imported fio run's logs (numpy reads them)
        from ssdlab.report.latency import imported_latency_sections

        sections.extend(imported_latency_sections(run.settings))
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
        sort_data_keys=False,
    )
