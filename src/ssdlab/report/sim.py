"""Simulated drives (`ssdlab sim`) as report documents, built from what the store holds and
the verdicts analysis/simulated_drive.py makes from it with the analyses real drives get.

A simulated run is stored like a measured one (runner/sim.py): its sustained write as a step
whose per-interval series is the simulated throughput, and a SMART-like health sample per
interval (host and NAND bytes, erase counts, wear used).
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from itertools import pairwise
from typing import Any

from ssdlab.analysis.cliff import CacheCliffVerdict
from ssdlab.analysis.lifetime import DAYS_PER_YEAR
from ssdlab.analysis.simulated_drive import SimAnalysis, SimPoint
from ssdlab.analysis.wear import WearReport
from ssdlab.analysis.write_series import bytes_series
from ssdlab.model.run import RunRecord, run_origin
from ssdlab.model.units import (
    GB,
    MB,
    TB,
    format_decimal_bytes,
    format_gb,
    format_mb_per_s,
    format_size,
    format_tb,
)
from ssdlab.report import document as doc
from ssdlab.report.profile_common import visible_series, zero_or_log

FORMAT_VERSION = 1
SWEEP_PARAMETERS = {
    "spare": "spare (%)",
    "skew": "hot/cold skew (% of writes to % of LBAs)",
    "trim": "TRIM share of operations (%)",
    "fill": "fill level (% of LBAs in use)",
}


def _num(value: float | None, fmt: str = "{:,.2f}") -> str:
    return "n/a" if value is None or not math.isfinite(value) else fmt.format(value)


def _mbps(value: float | None) -> str:
    return format_mb_per_s(value, "MB/s", digits=0)


def _years(days: float | None) -> str:
    return "n/a" if days is None else f"{days / DAYS_PER_YEAR:,.1f} years ({days:,.0f} days)"


def _size(value: Any) -> str:
    if not isinstance(value, int | float) or not value:
        return "—"
    exact = format_size(int(value))
    decimal = format_decimal_bytes(int(value))
    return f"{exact} ({decimal})" if exact.endswith("iB") else decimal


def drive_facts(settings: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The simulated drive and workload, both spare conventions named."""
    rows = [
        ("preset", str(settings.get("preset") or "none (own configuration)")),
        ("logical capacity", _size(settings.get("logical_bytes"))),
        ("physical capacity", _size(settings.get("physical_bytes"))),
        (
            "spare",
            f"{_num(settings.get('spare_logical_pct'), '{:.2f}')} % of logical "
            f"(OP = physical/logical − 1), {_num(settings.get('spare_physical_pct'), '{:.2f}')}"
            " % of physical ((physical − logical)/physical)",
        ),
        ("page size", _size(settings.get("page_bytes"))),
        ("pages per block", str(settings.get("pages_per_block", "—"))),
        ("garbage collection", str(settings.get("gc", "—"))),
        ("static SLC cache", _size(settings.get("slc_static_bytes")) or "none"),
        ("rated P/E cycles", _num(settings.get("pe_cycles"), "{:,.0f}")),
        ("workload", str(settings.get("workload", "—"))),
        ("host writes simulated", format_gb(float(settings.get("host_bytes") or 0))),
        ("interval", format_gb(float(settings.get("interval_bytes") or 0))),
    ]
    if settings.get("interval_note"):  # a finer --interval coarsened to bound the store
        rows.append(("interval note", str(settings["interval_note"])))
    if settings.get("preset_source"):
        rows.append(("preset source", str(settings["preset_source"])))
    return tuple(rows)


def _has_cache(settings: Mapping[str, Any]) -> bool:
    return bool(settings.get("slc_static_bytes")) or bool(settings.get("slc_dynamic"))


def _cliff_what(settings: Mapping[str, Any]) -> str:
    """What a simulated cliff is: the SLC cache running out, or (no cache configured) garbage
    collection starting on a drive written from empty."""
    return "the write cache runs out" if _has_cache(settings) else "garbage collection starts"


def _cliff_facts(
    cliff: CacheCliffVerdict | None, settings: Mapping[str, Any]
) -> tuple[tuple[str, str], ...]:
    if cliff is None:
        return (("write cliff", "n/a: no throughput series"),)
    if cliff.cliff_bytes is None:
        return (("write cliff", f"none found ({cliff.reason or 'no step down'})"),)
    return (
        (f"write cliff ({_cliff_what(settings)})", f"after {format_gb(cliff.cliff_bytes)}"),
        ("before the cliff", _mbps(cliff.in_cache_bw_bytes_per_s)),
        ("after the cliff", _mbps(cliff.post_cache_bw_bytes_per_s)),
    )


def _waf_text(report: WearReport | None) -> str:
    if report is None:
        return "n/a"
    return _num(report.waf.waf) if report.waf.waf is not None else f"n/a ({report.waf.reason})"


def _life_facts(point: SimPoint, analysis: SimAnalysis) -> tuple[tuple[str, str], ...]:
    last = point.samples[-1] if point.samples else None
    projected = analysis.projected
    rows = [
        ("wear used at the end", _num(last.wear_used_pct.value if last else None, "{:.3f} %")),
        (
            "erase count min / avg / max",
            " / ".join(
                _num(v.value, "{:,.1f}")
                for v in (last.erase_count_min, last.erase_count_avg, last.erase_count_max)
            )
            if last
            else "n/a",
        ),
    ]
    if projected is not None:
        rate = projected.wear_rate
        rows.append(("wear per TB written", _num(rate.pct_per_host_tb, "{:.4f} %")))
        if rate.reason:
            rows.append(("wear rate", rate.reason))
    rows.append(("projected host writes to 100 % wear", _tb(analysis.tbw_bytes)))
    daily = analysis.daily_write_bytes
    rows.append(
        (
            f"lifetime at {format_gb(daily)}/day" if daily else "lifetime",
            _years(analysis.lifetime_days),
        )
    )
    return tuple(rows)


def _tb(value: float | None) -> str:
    if value is None:
        return "n/a"
    return format_tb(value, digits=1) if value >= TB else format_gb(value)


def _steady_facts(analysis: SimAnalysis) -> tuple[tuple[str, str], ...]:
    verdict = analysis.steady
    if verdict is None:
        return (("steady state", analysis.steady_reason or "n/a"),)
    rows = [("evaluated from", f"interval {analysis.steady_offset + 1} (after preconditioning)")]
    if verdict.steady and verdict.window is not None:
        first, last = (n + analysis.steady_offset for n in verdict.window)
        rows.append(("steady state", f"reached: first steady window intervals {first}–{last}"))
    else:
        rows.append(("steady state", f"not reached ({verdict.reason})"))
    if analysis.window is not None:
        rows.append(("life projected over", f"intervals {analysis.window[0]}–{analysis.window[1]}"))
    return tuple(rows)


def _whole_intervals(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """(host bytes, value) per interval without a last interval shorter than half the others:
    the few writes after the last whole interval give a rate and a WAF of their own."""
    steps = sorted(b - a for (a, _), (b, _) in pairwise(points))
    if len(steps) >= 2 and points[-1][0] - points[-2][0] < steps[len(steps) // 2] / 2:
        return list(points[:-1])
    return list(points)


def _charts(point: SimPoint, analysis: SimAnalysis) -> tuple[doc.Chart, ...]:
    series = _whole_intervals(bytes_series(point.step))
    written = max((b for b, _ in series), default=0.0)
    size_unit, size = ("GB", GB) if written >= GB else ("MB", MB)  # no axis of 0.01 GB steps
    markers: tuple[doc.Marker, ...] = ()
    if analysis.cliff is not None and analysis.cliff.cliff_bytes is not None:
        markers = (doc.Marker("vline", "cache cliff", x=analysis.cliff.cliff_bytes / size),)
    charts = []
    if series:
        y_log, y_zero = zero_or_log(w for _, w in series)
        charts.append(
            doc.Chart(
                "sim-throughput",
                "Simulated write throughput",
                x_label="host writes",
                x_unit=size_unit,
                y_label="write throughput",
                y_unit="MB/s",
                y_log=y_log,
                y_zero=y_zero,
                series=(
                    visible_series(
                        "write", [b / size for b, _ in series], [w / MB for _, w in series]
                    ),
                ),
                markers=markers,
            )
        )
    waf = _whole_intervals(analysis.interval_waf)
    if waf:
        charts.append(
            doc.Chart(
                "sim-waf",
                "Write amplification per interval",
                x_label="host writes",
                x_unit=size_unit,
                y_label="WAF (NAND ÷ host writes)",
                y_unit="×",
                series=(
                    visible_series(
                        "interval WAF", [b / size for b, _ in waf], [w for _, w in waf], "steps"
                    ),
                ),
            )
        )
    erase = [
        (s.host_written_bytes.value / size, s.erase_count_avg.value, s.erase_count_max.value)
        for s in point.samples
        if s.host_written_bytes.value is not None
        and s.erase_count_avg.value is not None
        and s.erase_count_max.value is not None
    ]
    if len(erase) >= 2:
        xs = tuple(e[0] for e in erase)
        y_log, y_zero = zero_or_log(y for e in erase for y in e[1:])
        charts.append(
            doc.Chart(
                "sim-erase",
                "Erase counts",
                x_label="host writes",
                x_unit=size_unit,
                y_label="erase count",
                y_unit="cycles per block",
                y_log=y_log,
                y_zero=y_zero,
                series=(
                    doc.Series("average", xs, tuple(e[1] for e in erase)),
                    doc.Series("maximum", xs, tuple(e[2] for e in erase)),
                ),
            )
        )
    return tuple(charts)


def point_data(point: SimPoint, analysis: SimAnalysis) -> dict[str, Any]:
    """The machine-readable numbers of one simulated drive."""
    last = point.samples[-1] if point.samples else None
    cliff = analysis.cliff
    return {
        "key": point.key,
        "label": point.label,
        "waf": None if analysis.overall is None else analysis.overall.waf.waf,
        "steady_waf": None if analysis.projected is None else analysis.projected.waf.waf,
        "reported_by_simulator": dict(point.reported),
        "steady_state": None if analysis.steady is None else analysis.steady.steady,
        "steady_reason": analysis.steady_reason,
        "life_window_intervals": analysis.window,
        "cliff_bytes": None if cliff is None else cliff.cliff_bytes,
        "in_cache_bytes_per_s": None if cliff is None else cliff.in_cache_bw_bytes_per_s,
        "post_cache_bytes_per_s": None if cliff is None else cliff.post_cache_bw_bytes_per_s,
        "erase_count_min": None if last is None else last.erase_count_min.value,
        "erase_count_avg": None if last is None else last.erase_count_avg.value,
        "erase_count_max": None if last is None else last.erase_count_max.value,
        "wear_used_pct": None if last is None else last.wear_used_pct.value,
        "projected_tbw_bytes": analysis.tbw_bytes,
        "daily_write_bytes": analysis.daily_write_bytes,
        "lifetime_days": analysis.lifetime_days,
        "notes": list(analysis.notes),
    }


def _headline(run: RunRecord) -> tuple[tuple[str, str], ...]:
    return (
        ("run", f"{run.run_id} ({run.status.value})"),
        ("target", f"{run.target_path} (simulated drive, not a measurement)"),
    )


def build_sim_document(run: RunRecord, point: SimPoint, analysis: SimAnalysis) -> doc.Document:
    """One simulated drive: WAF, cliff, steady state, wear and projected lifetime
    (`analysis`: analysis/simulated_drive.analyse_point's)."""
    waf = _waf_text(analysis.overall)
    steady_waf = _waf_text(analysis.projected)
    verdict = [f"WAF {waf} over the whole simulation, {steady_waf} in the projection window."]
    if analysis.cliff is not None and analysis.cliff.cliff_bytes is not None:
        verdict.append(
            f"Write speed falls after {format_gb(analysis.cliff.cliff_bytes)}: "
            f"{_cliff_what(point.settings)}."
        )
    if analysis.lifetime_days is not None and analysis.daily_write_bytes is not None:
        verdict.append(
            f"Projected life {_years(analysis.lifetime_days)} at "
            f"{format_gb(analysis.daily_write_bytes)} written per day."
        )
    reported = point.reported
    sections = (
        doc.Section("Simulated drive", facts=drive_facts(point.settings)),
        doc.Section(
            "Write amplification",
            facts=(
                ("WAF (whole run, ΔNAND ÷ Δhost)", waf),
                ("WAF in the projection window", steady_waf),
                (
                    "simulator's own WAF / steady WAF",
                    f"{_num(reported.get('waf'))} / {_num(reported.get('steady_waf'))}",
                ),
                ("simulator core", str(reported.get("core", "—"))),
            ),
        ),
        doc.Section(
            "Throughput and write cliff", facts=_cliff_facts(analysis.cliff, point.settings)
        ),
        doc.Section("Steady state", facts=_steady_facts(analysis)),
        doc.Section(
            "Wear and projected lifetime",
            facts=_life_facts(point, analysis),
            notes=analysis.notes,
        ),
        doc.Section("Charts", charts=_charts(point, analysis)),
    )
    return doc.Document(
        title=f"ssdlab run {run.run_id}: simulated drive ({point.label})",
        headline=_headline(run),
        sections=sections,
        verdict=tuple(verdict),
        data={
            "format": "ssdlab-sim-run",
            "format_version": FORMAT_VERSION,
            "run": {
                "id": run.run_id,
                "status": run.status.value,
                "kind": run.kind,
                **run_origin(run),
            },
            "settings": dict(point.settings),
            "result": point_data(point, analysis),
            "cliff": None if analysis.cliff is None else asdict(analysis.cliff),
        },
    )


def sweep_table(parameter: str, points: Sequence[tuple[SimPoint, SimAnalysis]]) -> doc.Table:
    rows = []
    for point, analysis in points:
        overall = analysis.overall
        projected = analysis.projected
        rows.append(
            (
                point.label,
                _num(None if overall is None else overall.waf.waf),
                _num(None if projected is None else projected.waf.waf),
                "yes" if analysis.steady is not None and analysis.steady.steady else "no",
                _tb(analysis.tbw_bytes),
                "n/a"
                if analysis.lifetime_days is None
                else f"{analysis.lifetime_days / DAYS_PER_YEAR:,.1f}",
            )
        )
    return doc.Table(
        f"WAF and projected lifetime against {SWEEP_PARAMETERS.get(parameter, parameter)}",
        ("point", "WAF", "window WAF", "steady", "projected TBW", "lifetime (years)"),
        tuple(rows),
    )


def _sweep_charts(
    parameter: str, points: Sequence[tuple[SimPoint, SimAnalysis]]
) -> tuple[doc.Chart, ...]:
    positions = tuple(float(i) for i in range(len(points)))
    ticks = tuple((float(i), p.label) for i, (p, _) in enumerate(points))
    label = SWEEP_PARAMETERS.get(parameter, parameter)
    wafs = [
        (i, a.projected.waf.waf)
        for i, (_, a) in enumerate(points)
        if a.projected is not None and a.projected.waf.waf is not None
    ]
    lives = [
        (i, a.lifetime_days / DAYS_PER_YEAR)
        for i, (_, a) in enumerate(points)
        if a.lifetime_days is not None
    ]
    charts = [
        doc.Chart(
            key,
            f"{title} against {label}",
            x_label=label,
            y_label=y_label,
            y_unit=y_unit,
            y_zero=style == "bars",  # a bar's length is its value
            series=(
                doc.Series(
                    name,
                    tuple(positions[i] for i, _ in values),
                    tuple(v for _, v in values),
                    style=style,
                ),
            ),
            x_ticks=ticks,
        )
        for key, title, name, y_label, y_unit, style, values in (
            ("sim-sweep-waf", "WAF", "WAF", "WAF (projection window)", "×", "points", wafs),
            (
                "sim-sweep-lifetime",
                "Projected lifetime",
                "lifetime",
                "projected lifetime",
                "years",
                "bars",
                lives,
            ),
        )
        if values
    ]
    return tuple(charts)


def build_sweep_document(
    run: RunRecord, parameter: str, analysed: Sequence[tuple[SimPoint, SimAnalysis]]
) -> doc.Document:
    """A sweep: WAF and projected lifetime per point (each with its analysis), with charts."""
    base = analysed[0][0].settings if analysed else {}
    table = sweep_table(parameter, analysed)
    verdict = []
    lives = [(p.label, a.lifetime_days) for p, a in analysed if a.lifetime_days is not None]
    if len(lives) >= 2:
        low = min(lives, key=lambda item: item[1] or 0.0)
        high = max(lives, key=lambda item: item[1] or 0.0)
        if low[1] and high[1]:
            verdict.append(
                f"Projected life ranges from {low[1] / DAYS_PER_YEAR:,.1f} years ({low[0]}) to "
                f"{high[1] / DAYS_PER_YEAR:,.1f} years ({high[0]}): {high[1] / low[1]:.2f}×."
            )
    notes = sorted({n for _, a in analysed for n in a.notes})
    return doc.Document(
        title=f"ssdlab run {run.run_id}: simulated sweep over {parameter}",
        headline=_headline(run),
        sections=(
            doc.Section("Simulated drive (first point)", facts=drive_facts(base)),
            doc.Section(
                "Sweep",
                tables=(table,),
                charts=_sweep_charts(parameter, analysed),
                notes=tuple(notes),
            ),
        ),
        verdict=tuple(verdict),
        data={
            "format": "ssdlab-sim-sweep",
            "format_version": FORMAT_VERSION,
            "run": {
                "id": run.run_id,
                "status": run.status.value,
                "kind": run.kind,
                **run_origin(run),
            },
            "parameter": parameter,
            "points": [{"settings": dict(p.settings), **point_data(p, a)} for p, a in analysed],
        },
    )
