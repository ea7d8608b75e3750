"""A health run (`health`, `watch`, an imported smartctl log) as a report document: the latest
sample, and for a series the wear, WAF and life projection with charts of the counters."""

from collections.abc import Sequence

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.analysis.steps import counter_step_timing
from ssdlab.analysis.wear import analyse_series, timeline
from ssdlab.model.health import HealthSample
from ssdlab.model.run import RunRecord
from ssdlab.model.units import GB, TB, format_decimal_bytes, format_tb
from ssdlab.report import document as doc
from ssdlab.report.health import Section, health_sections, series_sections
from ssdlab.report.profile_common import time_unit

STEP_METRIC = "erase_count_avg"


def _doc_sections(sections: Sequence[Section]) -> list[doc.Section]:
    return [doc.Section(s.title, facts=s.rows, notes=s.notes) for s in sections]


def _counter_values(samples: Sequence[HealthSample], field: str) -> tuple[list[float], list[float]]:
    """(seconds since the first timed sample, value) of every timed sample that has it."""
    timed = [s for s in samples if s.taken_at_s is not None]
    start = min((s.taken_at_s for s in timed if s.taken_at_s is not None), default=0.0)
    times: list[float] = []
    values: list[float] = []
    for sample in timed:
        value = getattr(sample, field).value
        if value is not None and sample.taken_at_s is not None:
            times.append(sample.taken_at_s - start)
            values.append(float(value))
    return times, values


def _counter_chart(
    samples: Sequence[HealthSample],
    key: str,
    title: str,
    label: str,
    field: str,
    x_label: str,
) -> doc.Chart | str | None:
    """One counter over time from zero, or a note when it did not change (a flat line on the
    chart's top edge shows nothing); None with fewer than two timed values. A byte counter is
    drawn as the growth since the first sample, in GB or TB, so a week's writes do not vanish
    on a 150 TB axis; the wear indicator as it reads, in %."""
    times, values = _counter_values(samples, field)
    if len(times) < 2:
        return None
    if len(set(values)) == 1:
        shown = f"{values[0]:g} %" if field == "wear_used_pct" else format_decimal_bytes(values[0])
        return f"{label} stayed at {shown} over the {len(values):,} samples"
    unit, scale = "%", 1.0
    if field != "wear_used_pct":
        values = [v - values[0] for v in values]
        unit, scale = ("TB", TB) if max(values) >= TB else ("GB", GB)
    divisor, time_name = time_unit(max(times))
    return doc.Chart(
        key,
        title,
        x_label=x_label,
        x_unit=time_name,
        y_label=label,
        y_unit=unit,
        y_zero=True,
        series=(
            doc.Series(
                label,
                tuple(t / divisor for t in times),
                tuple(v / scale for v in values),
                style="steps",
            ),
        ),
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
        made = [
            _counter_chart(line.samples, key, title, label, field, x_label)
            for key, title, label, field in (
                (
                    "health-host-written",
                    "Host writes since the first sample",
                    "host writes",
                    "host_written_bytes",
                ),
                (
                    "health-nand-written",
                    "NAND writes since the first sample",
                    "NAND writes",
                    "nand_written_bytes",
                ),
                ("health-wear", "Wear used", "wear used", "wear_used_pct"),
            )
        ]
        drawn = tuple(c for c in made if isinstance(c, doc.Chart))
        flat = tuple(c for c in made if isinstance(c, str))
        if drawn or flat:
            sections.append(doc.Section("Counters over time", charts=drawn, notes=flat))
    identity = last.identity
    headline = [
        ("run", f"{run.run_id} ({run.status.value})"),
        ("drive", f"{identity.model or 'model not reported'} ({identity.serial or 'no serial'})"),
        ("samples", str(len(samples))),
    ]
    if rated is not None and rated.tbw_bytes is not None:
        headline.append(("rated endurance", format_tb(rated.tbw_bytes, "TBW", digits=0)))
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
