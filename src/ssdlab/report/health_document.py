"""A health run (`health`, `watch`, an imported smartctl log) as a report document: the latest
sample, and for a series the wear, WAF and life projection with charts of the counters."""

from collections.abc import Sequence

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.analysis.steps import counter_step_timing
from ssdlab.analysis.wear import analyse_series, timeline
from ssdlab.model.health import HealthSample
from ssdlab.model.run import RunRecord
from ssdlab.model.units import TB
from ssdlab.report import document as doc
from ssdlab.report.health import Section, health_sections, series_sections

STEP_METRIC = "erase_count_avg"
_DAY_S = 86400.0


def _doc_sections(sections: Sequence[Section]) -> list[doc.Section]:
    return [doc.Section(s.title, facts=s.rows, notes=s.notes) for s in sections]


def _counter_chart(
    samples: Sequence[HealthSample],
    key: str,
    title: str,
    label: str,
    unit: str,
    field: str,
    scale: float,
    x_label: str = "time since the first sample",
    *,
    since_first: bool = False,
) -> doc.Chart | None:
    """One counter over time, in `unit` (the stored value × `scale`); None with fewer than
    two timed values. The axis starts at zero; a lifetime total (`since_first`) is drawn as
    the growth since the first sample, so a week's writes do not vanish on a 150 TB axis."""
    timed = [s for s in samples if s.taken_at_s is not None]
    if len(timed) < 2:
        return None
    start = min(s.taken_at_s for s in timed if s.taken_at_s is not None)
    xs: list[float] = []
    ys: list[float] = []
    for sample in timed:
        value = getattr(sample, field).value
        if value is not None and sample.taken_at_s is not None:
            xs.append((sample.taken_at_s - start) / _DAY_S)
            ys.append(value * scale)
    if len(xs) < 2:
        return None
    if since_first:
        ys = [y - ys[0] for y in ys]
    return doc.Chart(
        key,
        title,
        x_label=x_label,
        x_unit="days",
        y_label=label,
        y_unit=unit,
        y_zero=True,
        series=(doc.Series(label, tuple(xs), tuple(ys), style="steps"),),
    )


def build_health_document(
    run: RunRecord, samples: Sequence[HealthSample], rated: RatedEndurance | None = None
) -> doc.Document:
    """Latest sample first; with two or more samples, the series analysis and its charts."""
    if not samples:
        return doc.Document(
            title=f"ssdlab run {run.run_id}: {run.profile}",
            headline=(("run", f"{run.run_id} ({run.status.value})"), ("target", run.target_path)),
            sections=(),
            verdict=("no health sample was stored for this run",),
        )
    last = samples[-1]
    sections = _doc_sections(health_sections(last))
    if len(samples) > 1:
        report = analyse_series(samples, rated=rated)
        line = timeline(samples)  # timestamps, else the drive's Power_On_Hours
        steps = counter_step_timing(line.samples, STEP_METRIC)
        sections.extend(_doc_sections(series_sections(report, steps)))
        x_label = (
            "power-on time since the first sample (Power_On_Hours)"
            if line.source == "power_on_hours"
            else "time since the first sample"
        )
        charts = [
            _counter_chart(
                line.samples,
                "health-host-written",
                "Host writes since the first sample",
                "host writes",
                "TB",
                "host_written_bytes",
                1 / TB,
                x_label,
                since_first=True,
            ),
            _counter_chart(
                line.samples,
                "health-nand-written",
                "NAND writes since the first sample",
                "NAND writes",
                "TB",
                "nand_written_bytes",
                1 / TB,
                x_label,
                since_first=True,
            ),
            _counter_chart(
                line.samples,
                "health-wear",
                "Wear used",
                "wear used",
                "%",
                "wear_used_pct",
                1.0,
                x_label,
            ),
        ]
        drawn = tuple(c for c in charts if c is not None)
        if drawn:
            sections.append(doc.Section("Counters over time", charts=drawn))
    identity = last.identity
    headline = [
        ("run", f"{run.run_id} ({run.status.value})"),
        ("drive", f"{identity.model or 'model not reported'} ({identity.serial or 'no serial'})"),
        ("samples", str(len(samples))),
    ]
    if rated is not None and rated.tbw_bytes is not None:
        headline.append(("rated endurance", f"{rated.tbw_bytes / TB:,.0f} TBW"))
    return doc.Document(
        title=f"ssdlab run {run.run_id}: {run.profile} of {run.target_path}",
        headline=tuple(headline),
        sections=tuple(sections),
        data={
            "format": "ssdlab-health-run",
            "format_version": 1,
            "run": run.run_id,
            "samples": len(samples),
        },
    )
