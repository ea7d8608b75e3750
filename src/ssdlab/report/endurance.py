"""The endurance run as a document: where it stands (the live status), throughput and iteration
times over the run, WAF over time, wear over time with the projection line, and how long each
counter step took."""

import dataclasses
from collections.abc import Sequence
from typing import Any

from ssdlab.analysis.endurance import EnduranceStatus, Iteration
from ssdlab.analysis.steps import CounterStep
from ssdlab.model.profile import ProfileResults
from ssdlab.model.step import StepResult
from ssdlab.model.units import format_decimal_bytes, format_mb_per_s, format_tb, format_time
from ssdlab.report import document as doc
from ssdlab.report.health import (
    days_interval_text,
    format_waf,
    rate_interval_text,
    series_sections,
)
from ssdlab.report.method_notes import LIFETIME_METHOD, WAF_METHOD, method_note
from ssdlab.report.profile_common import compose, time_unit, visible_series, zero_or_log

S_PER_DAY = 86400.0


def _throughput_chart(
    status: EnduranceStatus, steps: Sequence[StepResult], run_start: float | None
) -> doc.Chart:
    """MB/s over the run: every interval point of every iteration, and each iteration's mean."""
    by_index = {s.round_index: s for s in steps if not s.discarded}
    origin = run_start or 0.0
    points: list[tuple[float, float]] = []
    means: list[tuple[float, float]] = []
    for it in status.iterations:
        if it.started_at_s is None or it.ended_at_s is None:
            continue
        means.append((it.ended_at_s - origin, it.write_bytes_per_s / 1e6))
        step = by_index.get(it.index)
        for point in step.series if step is not None else ():
            if point.direction == "write" and point.bw_bytes_per_s is not None:
                points.append(
                    (it.started_at_s + point.elapsed_s - origin, point.bw_bytes_per_s / 1e6)
                )
    span = max((x for x, _ in (*points, *means)), default=0.0)
    divisor, unit = time_unit(span)
    series = []
    if points:
        series.append(
            doc.Series(
                "interval",
                tuple(x / divisor for x, _ in points),
                tuple(y for _, y in points),
                "points",
            )
        )
    series.append(
        visible_series(
            "iteration mean",
            [x / divisor for x, _ in means],
            [y for _, y in means],
            "points" if len(means) < 3 else "line",
        )
    )
    y_log, y_zero = zero_or_log(y for _, y in (*points, *means))
    return doc.Chart(
        key="endurance-throughput",
        title="Write throughput over the run",
        x_label="time since the run started",
        x_unit=unit,
        y_label="write throughput",
        y_unit="MB/s",
        y_log=y_log,
        y_zero=y_zero,
        series=tuple(series),
    )


def _iteration_chart(status: EnduranceStatus) -> doc.Chart:
    its = status.iterations
    markers: tuple[doc.Marker, ...] = ()
    if status.iteration_s_median is not None:
        markers = (doc.Marker("hline", "median", y=status.iteration_s_median),)
    return doc.Chart(
        key="endurance-iteration-times",
        title="How long each iteration took",
        x_label="iteration",
        y_label="writing time",
        y_unit="s",
        y_zero=True,  # bars: their length is the value
        series=(
            doc.Series(
                "iteration",
                tuple(float(i.index) for i in its),
                tuple(i.elapsed_s for i in its),
                "bars",
            ),
        ),
        markers=markers,
    )


def _days(times: Sequence[float], start: float) -> tuple[float, ...]:
    return tuple((t - start) / S_PER_DAY for t in times)


def _waf_chart(status: EnduranceStatus) -> doc.Chart | None:
    series = status.series
    if series is None or not series.sample_times_s:
        return None
    start = series.sample_times_s[0]
    windows = [w for w in series.resolved_windows if w.waf.waf is not None]
    if not windows:
        return None
    markers: tuple[doc.Marker, ...] = (doc.Marker("hline", "1: no amplification", y=1.0),)
    if series.overall is not None and series.overall.waf.waf is not None:
        markers += (
            doc.Marker(
                "hline", f"whole run {series.overall.waf.waf:.3g}", y=series.overall.waf.waf
            ),
        )
    divisor, unit = time_unit(max(w.end_s for w in windows) - start)
    return doc.Chart(
        key="endurance-waf",
        title="WAF over time (each point: the shortest window the counters resolve)",
        x_label="time since the first health sample",
        x_unit=unit,
        y_label="WAF (NAND ÷ host writes)",
        y_unit="×",
        series=(
            doc.Series(
                "WAF",
                tuple((w.end_s - start) / divisor for w in windows),
                tuple(float(w.waf.waf or 0.0) for w in windows),
                "points",
            ),
        ),
        markers=markers,
    )


def _wear_chart(status: EnduranceStatus) -> doc.Chart | None:
    series = status.series
    if series is None or not series.wear_fit.times_s:
        return None
    fit = series.wear_fit
    start = fit.times_s[0]
    xs = _days(fit.times_s, start)
    charts = [visible_series("wear", xs, fit.wear_pct, "steps")]
    markers: list[doc.Marker] = [doc.Marker("hline", "end of life (100 %)", y=100.0)]
    projection = series.projection
    if fit.pct_per_day is not None and projection.days_to_eol is not None and fit.wear_pct:
        end_x = xs[-1] + projection.days_to_eol
        charts.append(doc.Series("projection", (xs[-1], end_x), (fit.wear_pct[-1], 100.0), "line"))
    return doc.Chart(
        key="endurance-wear",
        title="Wear over time, with the projection to end of life",
        x_label="time since the first health sample",
        x_unit="days",
        y_label="wear used",
        y_unit="%",
        y_zero=True,
        series=tuple(charts),
        markers=tuple(markers),
        caption="" if fit.confidence is None else f"fit: {fit.confidence}",
    )


def _iteration_table(its: Sequence[Iteration]) -> doc.Table:
    shown = list(its[-200:])
    notes = () if len(its) <= 200 else (f"the last 200 of {len(its)} iterations",)
    return doc.Table(
        title="Iterations",
        columns=("#", "ended", "written", "seconds", "MB/s", "note"),
        rows=tuple(
            (
                str(i.index),
                format_time(i.ended_at_s),
                format_decimal_bytes(i.written_bytes),
                f"{i.elapsed_s:.4g}",
                format_mb_per_s(i.write_bytes_per_s),
                i.outlier or "",
            )
            for i in shown
        ),
        notes=notes,
    )


def _step_table(steps: Sequence[CounterStep], title: str) -> doc.Table:
    return doc.Table(
        title=title,
        columns=("step", "at", "± min", "hours since previous", "host written", "NAND written"),
        rows=tuple(
            (
                f"{s.from_value:g} → {s.to_value:g}",
                format_time(s.midpoint_s),
                f"{s.uncertainty_s / 60:.0f}",
                "—" if s.since_previous_step_s is None else f"{s.since_previous_step_s / 3600:.2f}",
                format_tb(s.host_written_bytes) if s.host_written_bytes is not None else "—",
                format_tb(s.nand_written_bytes) if s.nand_written_bytes is not None else "—",
            )
            for s in steps
        ),
    )


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.3g} s"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.3g} h"
    return f"{seconds / 86400:.3g} days"


def status_facts(status: EnduranceStatus) -> tuple[tuple[str, str], ...]:
    """The live status in rows: totals, host vs NAND, WAF, wear rate, life, stop progress."""
    rows = [
        ("iterations", str(len(status.iterations))),
        ("written by fio", format_decimal_bytes(status.written_bytes)),
        ("writing time", _duration(status.writing_s)),
        ("mean write speed", f"{format_mb_per_s(status.mean_write_bytes_per_s)} MB/s"),
    ]
    if status.iteration_s_median is not None:
        rows.append(
            (
                "iteration time min / median / max",
                f"{status.iteration_s_min:.4g} / {status.iteration_s_median:.4g} / "
                f"{status.iteration_s_max:.4g} s",
            )
        )
    rows.append(("drive: host writes (counter)", format_tb(status.drive_host_written_bytes)))
    rows.append(("drive: NAND writes (counter)", format_tb(status.drive_nand_written_bytes)))
    series = status.series
    if series is not None:
        rows.append(("WAF so far", format_waf(series.overall.waf) if series.overall else "n/a"))
        rows.append(
            (
                f"WAF over the last {series.last_hours:g} h",
                format_waf(series.recent.waf) if series.recent else "n/a",
            )
        )
        fit = series.wear_fit
        rows.append(
            (
                "wear rate",
                f"{fit.pct_per_day:.4g} %/day{rate_interval_text(fit.pct_per_day_interval)} "
                f"({fit.confidence})"
                if fit.pct_per_day is not None
                else f"n/a — {fit.reason}",
            )
        )
        projection = series.projection
        rows.append(
            (
                "days to end of life",
                f"{projection.days_to_eol:,.1f}"
                + days_interval_text(projection.days_to_eol_interval, digits=1)
                if projection.days_to_eol is not None
                else f"n/a — {projection.reason}",
            )
        )
        rows.append(("TBW at end of life", format_tb(projection.host_written_at_eol_bytes)))
        if series.rating is not None and series.rating.rated_tbw_bytes is not None:
            ratio = series.rating.tbw_ratio
            rows.append(
                (
                    "rated TBW",
                    f"{format_tb(series.rating.rated_tbw_bytes)}"
                    + ("" if ratio is None else f"; projected ÷ rated {ratio:.2f}"),
                )
            )
    for p in status.stop.progress:
        done = "unknown" if p.fraction is None else f"{p.fraction:.1%}"
        rows.append(
            (
                f"stop: {p.condition.replace('_', '-')}",
                done + (f" ({p.reason})" if p.reason else ""),
            )
        )
    return tuple(rows)


def status_json(status: EnduranceStatus) -> dict[str, Any]:
    """The status as plain data (what `ssdlab status --json` prints under "status")."""
    series = status.series
    data: dict[str, Any] = {
        "iterations": [dataclasses.asdict(i) for i in status.iterations],
        "written_bytes": status.written_bytes,
        "writing_s": status.writing_s,
        "mean_write_bytes_per_s": status.mean_write_bytes_per_s,
        "iteration_s": {
            "min": status.iteration_s_min,
            "median": status.iteration_s_median,
            "max": status.iteration_s_max,
        },
        "drive_host_written_bytes": status.drive_host_written_bytes,
        "drive_nand_written_bytes": status.drive_nand_written_bytes,
        "series": None if series is None else dataclasses.asdict(series),
        "wear_steps": [dataclasses.asdict(s) for s in status.wear_steps],
        "erase_steps": [dataclasses.asdict(s) for s in status.erase_steps],
        "stop": dataclasses.asdict(status.stop),
        "replayed_from": status.replayed_from,
        "notes": list(status.notes),
    }
    return data


def _warranty_words(status: EnduranceStatus) -> str:
    """'; outlasts its 1,826-day warranty from now: yes' (no, inconclusive when the interval of
    the days straddles the warranty); '' without a warranty length."""
    rating = status.series.rating if status.series is not None else None
    if rating is None or rating.outlasts_warranty is None or rating.warranty_days is None:
        return ""
    return (
        f"; outlasts its {rating.warranty_days:,.0f}-day warranty from now: "
        f"{rating.outlasts_warranty}"
    )


def build_endurance_document(results: ProfileResults, status: EnduranceStatus) -> doc.Document:
    """The run's document; `status`: where it stands (analysis/profiles/endurance.status_of)."""
    run = results.run
    charts = [_throughput_chart(status, results.steps, run.started_at_s), _iteration_chart(status)]
    health_charts = [c for c in (_waf_chart(status), _wear_chart(status)) if c is not None]
    sections = [
        doc.Section(
            "Where the run stands",
            facts=status_facts(status),
            notes=(*status.notes, method_note(WAF_METHOD), method_note(LIFETIME_METHOD)),
        ),
        doc.Section(
            "Throughput and iteration times",
            tables=(_iteration_table(status.iterations),),
            charts=tuple(charts),
        ),
    ]
    if status.series is not None:
        for part in series_sections(status.series, ()):
            sections.append(doc.Section(part.title, facts=part.rows, notes=part.notes))
    tables = tuple(
        _step_table(steps, f"Counter steps: {steps[0].metric}")
        for steps in (status.wear_steps, status.erase_steps)
        if steps
    )
    if health_charts or tables:
        sections.append(
            doc.Section("WAF and wear over time", tables=tables, charts=tuple(health_charts))
        )
    verdict = []
    if run.status_reason:
        verdict.append(f"{run.status.value}: {run.status_reason}")
    if status.replayed_from:
        verdict.append(f"health data replayed from {status.replayed_from} — not live")
    projection = status.series.projection if status.series is not None else None
    if projection is not None and projection.days_to_eol is not None:
        verdict.append(
            f"at the observed wear rate the drive reaches end of life in "
            f"{projection.days_to_eol:,.0f} days"
            + days_interval_text(projection.days_to_eol_interval)
            + _warranty_words(status)
        )
    return compose(
        results,
        title=f"Endurance run {run.run_id}: {results.plan.param('workload')}",
        verdict=verdict,
        sections=sections,
        data={"status": status_json(status)},
    )
