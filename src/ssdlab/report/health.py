"""Health and wear documents: rows of (label, value) built from samples and analyses.

Values print `n/a — reason` when unknown; bytes are decimal (TB = 10^12 B).
"""

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from ssdlab.analysis.intervals import Interval
from ssdlab.analysis.lifetime import LifeProjection, RatingComparison
from ssdlab.analysis.steps import CounterStep
from ssdlab.analysis.waf import WafEstimate, lifetime_waf
from ssdlab.analysis.wear import SeriesReport, WearReport, compare_samples
from ssdlab.model.health import HealthSample, HealthValue
from ssdlab.model.units import format_number, format_tb, format_time


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    rows: tuple[tuple[str, str], ...]
    notes: tuple[str, ...] = ()


def format_series_time(ts: float | None, source: str | None) -> str:
    """A time on a series' clock: Unix time, or seconds of power-on time (see `Timeline`)."""
    if ts is not None and source == "power_on_hours":
        return f"power-on hour {ts / 3600:,.0f}"
    if ts is not None and source == "given":
        return f"+{ts / 3600:,.4g} h (on the clock of the given elapsed time)"
    return format_time(ts)


def format_elapsed(
    elapsed_s: float | None,
    source: str | None,
    uncertainty_pct: float | None,
    reason: str | None,
) -> str:
    if elapsed_s is None:
        return f"n/a — {reason}"
    text = f"{elapsed_s / 86400:,.2f} days ({elapsed_s / 3600:,.4g} h"
    if source == "power_on_hours":
        text += f" from Power_On_Hours, ± 1 h = ± {uncertainty_pct or 0:.3g} %"
    elif source == "given":
        text += ", as given"
    return text + ")"


def _sample_time(ts: float | None, power_on_hours: float | None) -> str:
    if ts is None and power_on_hours is not None:
        return f"unknown (power-on hour {power_on_hours:,.0f})"
    return format_time(ts)


def _with_source(text: str, value: HealthValue) -> str:
    if value.value is None or value.provenance is None:
        return text
    return f"{text}  [{value.provenance.source}]"


def _value_row(label: str, value: HealthValue, text: str) -> tuple[str, str]:
    if value.value is None:
        return (label, "n/a — the drive does not report it")
    return (label, _with_source(text, value))


def format_waf(estimate: WafEstimate) -> str:
    if estimate.waf is None:
        return f"n/a — {estimate.reason}"
    bound = " (upper bound)" if estimate.is_upper_bound else ""
    error = ""
    if estimate.quantisation_error_pct is not None:
        pct = estimate.quantisation_error_pct
        error = " ± <0.1 %" if pct < 0.1 else f" ± {pct:.1f} %"
    return f"{estimate.waf:.3f}{error}{bound}"


def sections_json(sections: Sequence[Section]) -> list[dict[str, object]]:
    """Sections as JSON: every row the terminal prints, label and text, with the notes."""
    return [
        {
            "title": s.title,
            "rows": [{"label": label, "text": text} for label, text in s.rows],
            "notes": list(s.notes),
        }
        for s in sections
    ]


def health_json(sample: HealthSample, sections: Sequence[Section]) -> dict[str, object]:
    """What a health document adds to the sample's own fields: the WAF to date (NAND ÷ host
    written so far) and the printed sections, so the JSON holds every figure the terminal shows."""
    return {"lifetime_waf": asdict(lifetime_waf(sample)), "sections": sections_json(sections)}


def health_sections(sample: HealthSample) -> tuple[Section, ...]:
    ident = sample.identity
    identity = Section(
        "Drive",
        (
            ("model", ident.model or "unknown"),
            ("family", ident.model_family or "unknown"),
            ("serial", ident.serial or "unknown"),
            ("firmware", ident.firmware or "unknown"),
            ("capacity", format_tb(ident.capacity_bytes)),
            ("protocol", ident.protocol or "unknown"),
            ("sampled", format_time(sample.taken_at_s)),
            ("verdict", sample.verdict or "unknown"),
        ),
        sample.exit_findings,
    )
    s = sample
    waf = lifetime_waf(sample)
    wear = Section(
        "Wear and writes",
        (
            _value_row("wear used", s.wear_used_pct, format_number(s.wear_used_pct.value, "%")),
            _value_row("host written", s.host_written_bytes, format_tb(s.host_written_bytes.value)),
            _value_row("host read", s.host_read_bytes, format_tb(s.host_read_bytes.value)),
            _value_row("NAND written", s.nand_written_bytes, format_tb(s.nand_written_bytes.value)),
            _value_row(
                "SLC NAND written",
                s.slc_nand_written_bytes,
                format_tb(s.slc_nand_written_bytes.value),
            ),
            ("WAF to date", format_waf(waf)),
            _value_row(
                "avg erase count", s.erase_count_avg, format_number(s.erase_count_avg.value)
            ),
            _value_row(
                "max erase count", s.erase_count_max, format_number(s.erase_count_max.value)
            ),
            _value_row("rated P/E", s.rated_pe_cycles, format_number(s.rated_pe_cycles.value)),
            _value_row(
                "available spare",
                s.available_spare_pct,
                format_number(s.available_spare_pct.value, "%"),
            ),
            _value_row(
                "power-on", s.power_on_hours, format_number(s.power_on_hours.value, "hours")
            ),
            _value_row("power cycles", s.power_cycles, format_number(s.power_cycles.value)),
            _value_row(
                "unsafe shutdowns", s.unsafe_shutdowns, format_number(s.unsafe_shutdowns.value)
            ),
        ),
    )
    errors = Section(
        "Errors and temperature",
        (
            _value_row("temperature", s.temperature_c, format_number(s.temperature_c.value, "°C")),
            _value_row("media errors", s.media_errors, format_number(s.media_errors.value)),
            _value_row(
                "reallocated", s.reallocated_sectors, format_number(s.reallocated_sectors.value)
            ),
            _value_row("pending", s.pending_sectors, format_number(s.pending_sectors.value)),
            _value_row(
                "uncorrectable", s.uncorrectable_errors, format_number(s.uncorrectable_errors.value)
            ),
            _value_row(
                "critical warning", s.critical_warning, format_number(s.critical_warning.value)
            ),
        ),
        s.flags,
    )
    return identity, wear, errors


def rate_interval_text(interval: Interval | None) -> str:
    """', 95 % interval 0.0118–0.0128 %/day from a least-squares fit of 12 samples' after a
    wear rate; '' without an interval (two samples, or a rate from two readings)."""
    if interval is None or interval.low is None or interval.high is None:
        return ""
    return (
        f", 95 % interval {interval.low:.4g}–{interval.high:.4g} %/day "
        f"from a least-squares fit of {interval.count} samples"
    )


def days_interval_text(interval: Interval | None, digits: int = 0) -> str:
    """' (95 % interval 7,800–8,500)' after the days to end of life, from the wear rate's
    interval; ' (95 % interval from 7,800, unbounded above: …)' when the rate's interval
    reaches zero; '' without one."""
    if interval is None or interval.low is None:
        return ""
    low = f"{interval.low:,.{digits}f}"
    if interval.high is None:
        return f" (95 % interval from {low}, unbounded above: the wear rate's interval reaches 0)"
    return f" (95 % interval {low}–{interval.high:,.{digits}f})"


def _projection_rows(projection: LifeProjection) -> list[tuple[str, str]]:
    if projection.days_to_eol is None:
        return [("days to end of life", f"n/a — {projection.reason}")]
    days = f"{projection.days_to_eol:,.0f} days"
    return [
        (
            "days to end of life",
            f"{days}{days_interval_text(projection.days_to_eol_interval)} at the observed rate",
        ),
        ("host written at end of life", format_tb(projection.host_written_at_eol_bytes)),
    ]


def _rating_rows(rating: RatingComparison | None) -> list[tuple[str, str]]:
    if rating is None:
        return [("rated endurance", "not given (use --tbw, --dwpd, --warranty-years)")]
    rows = [("rated TBW", f"{format_tb(rating.rated_tbw_bytes)} ({rating.rated_tbw_source})")]
    if rating.tbw_ratio is not None:
        rows.append(("projected / rated TBW", f"{rating.tbw_ratio:.2f}"))
    if rating.eol_vs_warranty_ratio is not None:
        rows.append(("life left / warranty", f"{rating.eol_vs_warranty_ratio:.2f}"))
    if rating.outlasts_warranty is not None:
        rows.append(("outlasts the warranty from now", rating.outlasts_warranty))
    if rating.observed_dwpd is not None:
        rows.append(("observed DWPD", f"{rating.observed_dwpd:.3f}"))
    return rows


def wear_sections(report: WearReport) -> tuple[Section, ...]:
    elapsed = format_elapsed(
        report.elapsed_s,
        report.elapsed_source,
        report.elapsed_uncertainty_pct,
        report.elapsed_reason,
    )
    rate = report.wear_rate
    rate_text = (
        f"{rate.pct_per_day:.4f} %/day"
        + (f", {rate.pct_per_host_tb:.4f} %/TB written" if rate.pct_per_host_tb else "")
        + f" (from {rate.source})"
        if rate.pct_per_day is not None
        else f"n/a — {rate.reason}"
    )
    rows: list[tuple[str, str]] = [
        ("from", _sample_time(report.before_taken_at_s, report.before_power_on_hours)),
        ("to", _sample_time(report.after_taken_at_s, report.after_power_on_hours)),
        ("elapsed", elapsed),
        (
            "host written",
            _change_text(report.host_written_bytes.delta, report.host_written_bytes.reason),
        ),
        (
            "NAND written",
            _change_text(report.nand_written_bytes.delta, report.nand_written_bytes.reason),
        ),
        ("WAF (this window)", format_waf(report.waf)),
        ("WAF (erase counts)", format_waf(report.erase_count_waf)),
        ("WAF (lifetime)", format_waf(report.lifetime_waf)),
        ("wear rate", rate_text),
        *_projection_rows(report.projection),
        *_rating_rows(report.rating),
    ]
    notes = (*report.notes, *report.waf.assumptions, *rate.notes, *report.projection.notes)
    return (Section("Wear between two samples", tuple(rows), tuple(dict.fromkeys(notes))),)


def _change_text(delta: float | None, reason: str | None) -> str:
    return format_tb(delta) if delta is not None else f"n/a — {reason}"


def series_sections(report: SeriesReport, steps: Sequence[CounterStep]) -> tuple[Section, ...]:
    fit = report.wear_fit
    times, clock = report.sample_times_s, report.time_source
    rows: list[tuple[str, str]] = [
        ("samples", str(len(times))),
        ("from", format_series_time(times[0] if times else None, clock)),
        ("to", format_series_time(times[-1] if times else None, clock)),
        (
            "elapsed",
            format_elapsed(
                report.overall.elapsed_s,
                report.overall.elapsed_source,
                report.overall.elapsed_uncertainty_pct,
                report.overall.elapsed_reason,
            )
            if report.overall
            else f"n/a — {report.reason}",
        ),
        (
            f"WAF (last {report.last_hours:g} h)",
            format_waf(report.recent.waf) if report.recent else "n/a — no resolvable window",
        ),
        (
            "WAF (whole series)",
            format_waf(report.overall.waf) if report.overall else f"n/a — {report.reason}",
        ),
        (
            "wear rate (fit)",
            f"{fit.pct_per_day:.4f} %/day{rate_interval_text(fit.pct_per_day_interval)}, "
            f"confidence {fit.confidence}"
            if fit.pct_per_day is not None
            else f"n/a — {fit.reason}",
        ),
        *_projection_rows(report.projection),
        *_rating_rows(report.rating),
    ]
    step_rows = tuple(
        (
            f"{step.from_value:g} → {step.to_value:g}",
            f"at {format_series_time(step.midpoint_s, clock)} ± {step.uncertainty_s / 60:.0f} min; "
            + (
                f"{step.since_previous_step_s / 3600:.1f} h after the previous step"
                if step.since_previous_step_s is not None
                else "first step seen"
            )
            + (f"; host {format_tb(step.host_written_bytes)}" if step.host_written_bytes else "")
            + (f", NAND {format_tb(step.nand_written_bytes)}" if step.nand_written_bytes else ""),
        )
        for step in steps
    )
    sections = [Section("Wear over the series", tuple(rows), report.notes)]
    if steps:
        sections.append(Section(f"Counter steps ({steps[0].metric})", step_rows))
    return tuple(sections)


def run_health_sections(health: Sequence[tuple[str, HealthSample]]) -> tuple[Section, ...]:
    """What the drive reported before and after a benchmark run."""
    before = next((s for phase, s in health if phase == "before"), None)
    after = next((s for phase, s in health if phase == "after"), None)
    if before is None or after is None:
        return ()
    report = compare_samples(before, after)
    rows = (
        (
            "host written",
            _change_text(report.host_written_bytes.delta, report.host_written_bytes.reason),
        ),
        (
            "NAND written",
            _change_text(report.nand_written_bytes.delta, report.nand_written_bytes.reason),
        ),
        ("WAF (this run)", format_waf(report.waf)),
        (
            "wear used",
            f"{format_number(before.wear_used_pct.value, '%')} → "
            f"{format_number(after.wear_used_pct.value, '%')}",
        ),
        (
            "temperature",
            f"{format_number(before.temperature_c.value, '°C')} → "
            f"{format_number(after.temperature_c.value, '°C')}",
        ),
    )
    return (Section("Drive health during the run", rows, after.flags),)
