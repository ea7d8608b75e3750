"""What happened between health samples: host and NAND writes, WAF, wear rate, days to end of life.

`compare_samples` answers `ssdlab wear A B`; `analyse_series` does the same over a watch series
(per-interval WAF, WAF over the last hours, a least-squares wear rate with how sure it is). The
refusal rules live with the numbers they guard: WAF in `analysis.waf` (≤ 5 % quantisation
error), wear rates in `analysis.lifetime` (≥ 3 counter steps). Nothing here reads a clock: "now"
is the last sample.

Time between samples comes from the samples: their timestamps, else (smartctl text without a
"Local Time is:" line, `smartctl -A` snapshots) the drive's Power_On_Hours, which counts whole
hours of powered-on time; a caller may give the elapsed time instead (`elapsed_s`), which then
overrides both.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any

from ssdlab.analysis.intervals import Interval, slope_interval
from ssdlab.analysis.lifetime import (
    MIN_RATE_STEPS,
    S_PER_DAY,
    LifeProjection,
    RatedEndurance,
    RatingComparison,
    WearRate,
    estimate_rated_pe_cycles,
    project_life,
    rating_comparison,
    wear_rate,
)
from ssdlab.analysis.waf import (
    CounterChange,
    WafEstimate,
    counter_change,
    erase_count_waf,
    estimate_raw_nand_capacity_bytes,
    lifetime_waf,
    value_resolution,
    window_waf,
)
from ssdlab.model.health import HealthSample
from ssdlab.model.units import GB, TB, GiB, format_number

POWER_ON_HOURS_RESOLUTION_S = 3600.0


@dataclass(frozen=True, slots=True)
class ElapsedTime:
    """The time between two samples and where it came from.

    `source`: "timestamps" (the samples' times), "power_on_hours" (ΔPower_On_Hours, when the
    samples carry no time) or "given" (by the caller). `resolution_s`: how far off the elapsed
    time can be from the counter's step (1 h for power-on hours: each reading is truncated to
    a whole hour); `uncertainty_pct`: that as a share of the elapsed time, which is how far off
    every rate per day (and days to end of life) can be from it. `reason` when unknown.
    """

    elapsed_s: float | None
    source: str | None
    resolution_s: float | None
    uncertainty_pct: float | None
    note: str | None
    reason: str | None


def elapsed_between(
    before: HealthSample, after: HealthSample, *, given_s: float | None = None
) -> ElapsedTime:
    """Given time, else the samples' timestamps, else ΔPower_On_Hours (see the module's rule)."""
    if given_s is not None:
        if not math.isfinite(given_s) or given_s <= 0:
            raise ValueError(f"the elapsed time must be positive, not {given_s:g} s")
        note = f"elapsed time {_hours_text(given_s)} as given (overrides the samples' own times)"
        return ElapsedTime(given_s, "given", None, None, note, None)
    if before.taken_at_s is not None and after.taken_at_s is not None:
        elapsed = after.taken_at_s - before.taken_at_s
        if elapsed <= 0:
            return _no_elapsed(
                f"the after sample is not later than the before sample (Δt = {elapsed:g} s)"
            )
        return ElapsedTime(elapsed, "timestamps", None, None, None, None)
    untimed = (
        "the samples carry no time"
        if before.taken_at_s is None and after.taken_at_s is None
        else f"the {'before' if before.taken_at_s is None else 'after'} sample has no time"
    )
    hours_before, hours_after = before.power_on_hours.value, after.power_on_hours.value
    if hours_before is None or hours_after is None:
        return _no_elapsed(f"{untimed}, and not both carry Power_On_Hours (give --elapsed)")
    delta_h = hours_after - hours_before
    if delta_h <= 0:
        return _no_elapsed(
            f"{untimed}, and Power_On_Hours did not advance ({hours_before:g} → "
            f"{hours_after:g} h; give --elapsed)"
        )
    return _power_on_elapsed(delta_h, f"{untimed}; ")


def _no_elapsed(reason: str) -> ElapsedTime:
    return ElapsedTime(None, None, None, None, None, reason)


def _power_on_elapsed(delta_h: float, why: str) -> ElapsedTime:
    elapsed = delta_h * 3600.0
    uncertainty = 100.0 * POWER_ON_HOURS_RESOLUTION_S / elapsed
    note = (
        f"{why}elapsed time from Power_On_Hours: {delta_h:g} h. The drive counts whole hours, "
        f"so this is known to ±1 h (±{uncertainty:.3g} %), and every rate per day and the days "
        "to end of life are uncertain by that much on top of the wear counter's own step; it "
        "counts powered-on time only, so the days are days of power-on time"
    )
    return ElapsedTime(
        elapsed, "power_on_hours", POWER_ON_HOURS_RESOLUTION_S, uncertainty, note, None
    )


def _hours_text(seconds: float) -> str:
    hours = seconds / 3600.0
    return f"{hours:,.4g} h ({hours / 24.0:,.4g} days)"


@dataclass(frozen=True, slots=True)
class WearReport:
    """Two samples compared. Every part carries its inputs, and a reason when it is n/a.

    `waf`: ΔNAND / Δhost over the window; `erase_count_waf`: Δavg erase × raw NAND capacity /
    Δhost; `lifetime_waf`: NAND / host totals of the after sample (the drive's history).
    `raw_nand_capacity_bytes`: given, or estimated from the capacity (see `notes`).
    `elapsed_source`, `elapsed_resolution_s`, `elapsed_uncertainty_pct`: see `ElapsedTime`;
    `before_power_on_hours` / `after_power_on_hours`: the drive's counter, as read.
    """

    before_taken_at_s: float | None
    after_taken_at_s: float | None
    before_power_on_hours: float | None
    after_power_on_hours: float | None
    elapsed_s: float | None
    elapsed_reason: str | None
    elapsed_source: str | None
    elapsed_resolution_s: float | None
    elapsed_uncertainty_pct: float | None
    host_written_bytes: CounterChange
    nand_written_bytes: CounterChange
    wear_used_pct: CounterChange
    erase_count_avg: CounterChange
    capacity_bytes: int | None
    raw_nand_capacity_bytes: int | None
    host_written_bytes_per_day: float | None
    waf: WafEstimate
    erase_count_waf: WafEstimate
    lifetime_waf: WafEstimate
    wear_rate: WearRate
    projection: LifeProjection
    rating: RatingComparison | None
    notes: tuple[str, ...]


def compare_samples(
    before: HealthSample,
    after: HealthSample,
    *,
    raw_nand_capacity_bytes: int | None = None,
    slc_cached: bool | None = None,
    rated: RatedEndurance | None = None,
    elapsed_s: float | None = None,
) -> WearReport:
    """Host/NAND writes, WAF (window, erase-count, lifetime), wear rate and projection from A to B.

    `raw_nand_capacity_bytes`: the flash behind the user capacity (estimated as the next power of
    two of the capacity when not given); `slc_cached`: whether the drive caches writes in SLC
    (an erase-count WAF is then an upper bound); `rated`: datasheet endurance to compare with;
    `elapsed_s`: the time between the samples, overriding their timestamps and power-on hours.
    """
    refusal = _drive_refusal((before, after))
    elapsed = elapsed_between(before, after, given_s=elapsed_s)
    elapsed_s, elapsed_reason = elapsed.elapsed_s, elapsed.reason
    host = counter_change(before, after, "host_written_bytes", refusal=refusal)
    nand = counter_change(before, after, "nand_written_bytes", refusal=refusal)
    wear = counter_change(before, after, "wear_used_pct", default_resolution=1.0, refusal=refusal)
    erase = counter_change(
        before, after, "erase_count_avg", default_resolution=1.0, refusal=refusal
    )
    capacity = _capacity(after, rated)
    raw_capacity, raw_note = _raw_capacity(raw_nand_capacity_bytes, capacity)
    pe_cycles, pe_note = rated_pe_cycles_of(rated, after)
    rate = wear_rate(
        wear,
        erase,
        host,
        elapsed_s,
        elapsed_reason=elapsed_reason,
        rated_pe_cycles=pe_cycles,
        rated_pe_note=pe_note,
    )
    projection = project_life(
        rate.wear_after_pct,
        rate.pct_per_day,
        rate.pct_per_host_tb,
        host.after if host.delta is not None else None,
        reason=rate.reason,
    )
    per_day = None
    if host.delta is not None and elapsed_s is not None:
        per_day = host.delta / (elapsed_s / S_PER_DAY)
    report = WearReport(
        before_taken_at_s=before.taken_at_s,
        after_taken_at_s=after.taken_at_s,
        before_power_on_hours=before.power_on_hours.value,
        after_power_on_hours=after.power_on_hours.value,
        elapsed_s=elapsed_s,
        elapsed_reason=elapsed_reason,
        elapsed_source=elapsed.source,
        elapsed_resolution_s=elapsed.resolution_s,
        elapsed_uncertainty_pct=elapsed.uncertainty_pct,
        host_written_bytes=host,
        nand_written_bytes=nand,
        wear_used_pct=wear,
        erase_count_avg=erase,
        capacity_bytes=capacity,
        raw_nand_capacity_bytes=raw_capacity,
        host_written_bytes_per_day=per_day,
        waf=window_waf(nand, host),
        erase_count_waf=erase_count_waf(
            erase, host, raw_capacity, capacity_note=raw_note, slc_cached=slc_cached
        ),
        lifetime_waf=lifetime_waf(after),
        wear_rate=rate,
        projection=projection,
        rating=None,
        notes=tuple(n for n in (elapsed.note, _days_note(elapsed, rate, projection)) if n)
        + _sample_notes((before, after), ("before", "after")),
    )
    if rated is None:
        return report
    return replace(report, rating=compare_with_rating(report, rated))


def _days_note(elapsed: ElapsedTime, rate: WearRate, projection: LifeProjection) -> str | None:
    """How far off the days to end of life can be: the wear step and the elapsed time's step."""
    if projection.days_to_eol is None or rate.quantisation_error_pct is None:
        return None
    parts = [f"±{rate.quantisation_error_pct:.3g} % from the wear counter's step"]
    if elapsed.uncertainty_pct is not None:
        parts.append(f"±{elapsed.uncertainty_pct:.3g} % from the elapsed time's {elapsed.source}")
    total = rate.quantisation_error_pct + (elapsed.uncertainty_pct or 0.0)
    return (
        f"days to end of life {projection.days_to_eol:,.1f}, uncertain by up to ±{total:.3g} % "
        f"({' and '.join(parts)})"
    )


def _drive_refusal(samples: Sequence[HealthSample]) -> str | None:
    serials = sorted({s.identity.serial for s in samples if s.identity.serial})
    if len(serials) > 1:
        return f"the samples come from different drives (serials {', '.join(serials)})"
    return None


def _capacity(sample: HealthSample, rated: RatedEndurance | None) -> int | None:
    if sample.identity.capacity_bytes is not None:
        return sample.identity.capacity_bytes
    return rated.capacity_bytes if rated is not None else None


def _raw_capacity(given: int | None, capacity: int | None) -> tuple[int | None, str | None]:
    if given is not None:
        if given <= 0:
            raise ValueError(f"raw NAND capacity must be positive, not {given}")
        return given, f"raw NAND capacity {format_number(given / GiB, 'GiB')} as given"
    if capacity is None or capacity <= 0:
        return None, None
    raw = estimate_raw_nand_capacity_bytes(capacity)
    return raw, (
        f"raw NAND capacity estimated as {format_number(raw / GiB, 'GiB')}, the next power of "
        f"two above the {format_number(capacity / GB, 'GB', 1)} capacity (give "
        "raw_nand_capacity_bytes to override)"
    )


def rated_pe_cycles_of(
    rated: RatedEndurance | None, sample: HealthSample
) -> tuple[float | None, str | None]:
    """The rated P/E cycles an erase-count wear rate divides by, and where they came from: the
    rating's, else the drive's own, else back-solved from its erase count and wear."""
    if rated is not None and rated.pe_cycles is not None:
        return rated.pe_cycles, f"rated P/E {rated.pe_cycles:g} as given"
    if sample.rated_pe_cycles.value is not None and sample.rated_pe_cycles.value > 0:
        return (
            sample.rated_pe_cycles.value,
            f"rated P/E {sample.rated_pe_cycles.value:g} from the drive",
        )
    wear, erase = sample.wear_used_pct.value, sample.erase_count_avg.value
    if wear is None or erase is None:
        return None, None
    pe = estimate_rated_pe_cycles(erase, wear)
    if pe is None:
        return None, None
    return pe, (
        f"rated P/E ≈ {pe:,.0f}, back-solved as erase count {erase:g} ÷ wear {wear:g} % "
        "(±1 % of wear makes this rough)"
    )


def _sample_notes(
    samples: Sequence[HealthSample], labels: tuple[str, str] = ("first", "last")
) -> tuple[str, ...]:
    notes: list[str] = []
    for label, sample in zip(labels, (samples[0], samples[-1]), strict=True):
        notes.extend(f"{label} sample: {flag}" for flag in sample.flags)
    if samples[-1].slc_nand_written_bytes.value is not None:
        notes.append(
            "the drive counts SLC NAND writes separately; WAF uses nand_written_bytes only"
        )
    return tuple(notes)


def compare_with_rating(
    report: "WearReport | SeriesReport", rated: RatedEndurance
) -> RatingComparison:
    """Projected TBW vs rated (ratio), days to end of life vs warranty, observed vs rated DWPD."""
    if isinstance(report, WearReport):
        host_reason = report.host_written_bytes.reason or report.elapsed_reason
    else:
        host_reason = report.reason or (
            report.overall.host_written_bytes.reason or report.overall.elapsed_reason
            if report.overall is not None
            else None
        )
    return rating_comparison(
        rated,
        report.projection,
        report.host_written_bytes_per_day,
        host_rate_reason=host_reason,
        capacity_bytes=report.capacity_bytes,
    )


@dataclass(frozen=True, slots=True)
class Timeline:
    """Samples placed in time for a series: `samples` in time order, each with `taken_at_s` set
    on the series' clock, and `originals` the same samples as given.

    `source`: "timestamps" (Unix time), "power_on_hours" (seconds of power-on time: the samples
    carry no time), "given" (seconds since the first sample: the samples' own clock stretched so
    that first → last is the given elapsed time; with no clock, two samples are that far apart).
    `left_out`: samples without a place on that clock. `reason` when no series can be made.
    """

    samples: tuple[HealthSample, ...]
    originals: tuple[HealthSample, ...]
    source: str | None
    resolution_s: float | None
    left_out: int
    note: str | None
    reason: str | None


def timeline(samples: Sequence[HealthSample], *, elapsed_s: float | None = None) -> Timeline:
    """The series' clock: timestamps when 2+ samples carry one, else Power_On_Hours; a given
    `elapsed_s` stretches that clock to span exactly `elapsed_s` (see `Timeline`)."""
    if elapsed_s is not None and (not math.isfinite(elapsed_s) or elapsed_s <= 0):
        raise ValueError(f"the elapsed time must be positive, not {elapsed_s:g} s")
    timed = sorted(
        ((s.taken_at_s, s) for s in samples if s.taken_at_s is not None), key=lambda p: p[0]
    )
    source: str | None = "timestamps"
    resolution: float | None = None
    note: str | None = None
    placed: list[tuple[float, HealthSample]] = timed
    if len(timed) < 2:
        hours = sorted(
            ((v * 3600.0, s) for s in samples if (v := s.power_on_hours.value) is not None),
            key=lambda p: p[0],
        )
        if len(hours) >= 2 and hours[-1][0] > hours[0][0]:
            placed, source, resolution = hours, "power_on_hours", POWER_ON_HOURS_RESOLUTION_S
            span = _power_on_elapsed(
                (hours[-1][0] - hours[0][0]) / 3600.0,
                f"{len(samples) - len(timed)} sample(s) carry no time; ",
            )
            note = span.note
            if elapsed_s is None:
                note = (note or "") + "; times shown are power-on hours"
        elif elapsed_s is not None and len(samples) == 2:
            placed, source = [(0.0, samples[0]), (elapsed_s, samples[1])], "given"
        else:
            placed, source = [], None
    if elapsed_s is not None and len(placed) >= 2:
        start, span_s = placed[0][0], placed[-1][0] - placed[0][0]
        if span_s > 0:
            scale = elapsed_s / span_s
            placed = [((t - start) * scale, s) for t, s in placed]
            source, resolution = "given", None
            note = (
                f"elapsed time {_hours_text(elapsed_s)} from the first to the last sample as "
                "given (overrides the samples' own times)"
            )
    reason = None
    if source is None or len(placed) < 2:
        reason = (
            f"a series needs at least 2 timed samples, not {len(timed)}, and the samples "
            "carry no Power_On_Hours that advance (give the elapsed time)"
        )
    return Timeline(
        samples=tuple(replace(s, taken_at_s=t) for t, s in placed),
        originals=tuple(s for _, s in placed),
        source=source,
        resolution_s=resolution,
        left_out=len(samples) - len(placed),
        note=note,
        reason=reason,
    )


@dataclass(frozen=True, slots=True)
class IntervalWaf:
    """WAF between two samples of a series."""

    start_s: float
    end_s: float
    waf: WafEstimate


@dataclass(frozen=True, slots=True)
class WearFit:
    """Least-squares wear rate over a series, and how sure it is.

    `source`: "wear_used_pct" or "erase_count_avg" (as 100 × erases ÷ rated P/E). `times_s` and
    `wear_pct` are the points fitted (inputs); `steps` how many counter steps of `step_pct` they
    span — the honest measure of certainty: the rate is known to about ±`quantisation_error_pct`
    = 100 / steps. `r_squared` and `residual_rms_pct` measure how straight the staircase is.
    `pct_per_host_tb` is fitted against host bytes written where those are known.
    `pct_per_day_interval`: the slope's 95 % interval, slope ± t(0.975, n − 2) · its standard
    error: it takes the points' scatter about the line as independent, which a counter's
    staircase is not quite; the quantisation bound says how coarse the counter is.
    """

    source: str | None
    times_s: tuple[float, ...]
    wear_pct: tuple[float, ...]
    step_pct: float | None
    steps: float | None
    pct_per_day: float | None
    pct_per_day_stderr: float | None
    r_squared: float | None
    residual_rms_pct: float | None
    pct_per_host_tb: float | None
    quantisation_error_pct: float | None
    rated_pe_cycles: float | None
    confidence: str | None
    notes: tuple[str, ...]
    reason: str | None
    pct_per_day_interval: Interval | None = None  # None: 2 points, or stored before


@dataclass(frozen=True, slots=True)
class SeriesReport:
    """A health series analysed. `sample_times_s`: the samples used, in time order.

    `intervals`: WAF between consecutive samples (mostly refused with coarse counters);
    `resolved_windows`: consecutive windows, each as short as the refusal rule allows;
    `recent`: WAF over the last `last_hours` (from the latest sample at least that old, or the
    first); `overall`: first vs last sample. `time_source`: the clock of `sample_times_s` and of
    every time in the report (see `Timeline`: Unix time, or seconds of power-on time).
    """

    sample_times_s: tuple[float, ...]
    time_source: str | None
    time_resolution_s: float | None
    intervals: tuple[IntervalWaf, ...]
    resolved_windows: tuple[IntervalWaf, ...]
    last_hours: float
    recent: IntervalWaf | None
    overall: WearReport | None
    wear_fit: WearFit
    projection: LifeProjection
    capacity_bytes: int | None
    host_written_bytes_per_day: float | None
    rating: RatingComparison | None
    notes: tuple[str, ...]
    reason: str | None


def fit_projection(fit: WearFit, host_now: float | None) -> LifeProjection:
    """The life projection a wear fit gives, with `host_now` the host bytes written at its
    last sample."""
    return project_life(
        fit.wear_pct[-1] if fit.wear_pct else None,
        fit.pct_per_day,
        fit.pct_per_host_tb,
        host_now,
        reason=fit.reason,
        pct_per_day_interval=fit.pct_per_day_interval,
    )


def analyse_series(
    samples: Sequence[HealthSample],
    *,
    last_hours: float = 24.0,
    raw_nand_capacity_bytes: int | None = None,
    slc_cached: bool | None = None,
    rated: RatedEndurance | None = None,
    elapsed_s: float | None = None,
) -> SeriesReport:
    """WAF per interval and over the last `last_hours`, a fitted wear rate, and its projection.

    Timed by `timeline` (timestamps, else Power_On_Hours; `elapsed_s` overrides both)."""
    if last_hours <= 0:
        raise ValueError(f"last_hours must be positive, not {last_hours}")
    line = timeline(samples, elapsed_s=elapsed_s)
    timed = list(line.samples)
    notes = []
    if line.note:
        notes.append(line.note)
    if line.left_out:
        notes.append(f"{line.left_out} sample(s) without a time left out")
    reason = _drive_refusal(timed) or line.reason
    if reason is not None:
        return _refused_series(timed, last_hours, rated, tuple(notes), reason)
    pairs = [IntervalWaf(_time(a), _time(b), window_between(a, b)) for a, b in pairwise(timed)]
    overall = compare_samples(
        line.originals[0],
        line.originals[-1],
        raw_nand_capacity_bytes=raw_nand_capacity_bytes,
        slc_cached=slc_cached,
        rated=rated,
        elapsed_s=elapsed_s if line.source == "given" else None,
    )
    recent, recent_note = _recent(timed, last_hours)
    if recent_note:
        notes.append(recent_note)
    pe_cycles, pe_note = rated_pe_cycles_of(rated, timed[-1])
    fit = fit_wear(timed, rated_pe_cycles=pe_cycles, rated_pe_note=pe_note)
    host_now = _host_at(timed, fit.times_s[-1]) if fit.times_s else None
    projection = fit_projection(fit, host_now)
    report = SeriesReport(
        sample_times_s=tuple(_time(s) for s in timed),
        time_source=line.source,
        time_resolution_s=line.resolution_s,
        intervals=tuple(pairs),
        resolved_windows=_resolved_windows(timed),
        last_hours=last_hours,
        recent=recent,
        overall=overall,
        wear_fit=fit,
        projection=projection,
        capacity_bytes=overall.capacity_bytes,
        host_written_bytes_per_day=overall.host_written_bytes_per_day,
        rating=None,
        notes=tuple(notes) + _sample_notes(timed),
        reason=None,
    )
    if rated is None:
        return report
    return replace(report, rating=compare_with_rating(report, rated))


def _refused_series(
    timed: Sequence[HealthSample],
    last_hours: float,
    rated: RatedEndurance | None,
    notes: tuple[str, ...],
    reason: str,
) -> SeriesReport:
    fit = WearFit(
        None, (), (), None, None, None, None, None, None, None, None, None, None, (),
        f"wear fit n/a: {reason}",
    )  # fmt: skip
    report = SeriesReport(
        sample_times_s=tuple(_time(s) for s in timed),
        time_source=None,
        time_resolution_s=None,
        intervals=(),
        resolved_windows=(),
        last_hours=last_hours,
        recent=None,
        overall=None,
        wear_fit=fit,
        projection=project_life(None, None, None, None, reason=reason),
        capacity_bytes=timed[-1].identity.capacity_bytes if timed else None,
        host_written_bytes_per_day=None,
        rating=None,
        notes=notes,
        reason=reason,
    )
    if rated is None:
        return report
    return replace(report, rating=compare_with_rating(report, rated))


def _time(sample: HealthSample) -> float:
    assert sample.taken_at_s is not None
    return sample.taken_at_s


def window_between(a: HealthSample, b: HealthSample) -> WafEstimate:
    """WAF from sample `a` to sample `b`: ΔNAND / Δhost under the refusal rule."""
    return window_waf(
        counter_change(a, b, "nand_written_bytes"), counter_change(a, b, "host_written_bytes")
    )


def _resolved_windows(timed: Sequence[HealthSample]) -> tuple[IntervalWaf, ...]:
    """Greedy: from each window's start, the first later sample whose WAF is not refused."""
    windows = []
    start = 0
    for end in range(1, len(timed)):
        nand = counter_change(timed[start], timed[end], "nand_written_bytes")
        host = counter_change(timed[start], timed[end], "host_written_bytes")
        if nand.decreased or host.decreased or nand.before is None or host.before is None:
            start = end  # a wrap or reset, or a start without the counters: start again
            continue
        if nand.after is None or host.after is None:
            continue
        estimate = window_waf(nand, host)
        if estimate.waf is not None:
            windows.append(IntervalWaf(_time(timed[start]), _time(timed[end]), estimate))
            start = end
    return tuple(windows)


def recent_start(times_s: Sequence[float], last_hours: float) -> int | None:
    """Where the window of the last `last_hours` of a timed series starts: the index of the
    latest sample at least that much older than the newest; None when none is (the series is
    shorter: the window starts at the first)."""
    boundary = times_s[-1] - last_hours * 3600.0
    older = [i for i, t in enumerate(times_s[:-1]) if t <= boundary]
    return older[-1] if older else None


def _recent(timed: Sequence[HealthSample], last_hours: float) -> tuple[IntervalWaf, str | None]:
    end = timed[-1]
    found = recent_start([_time(s) for s in timed], last_hours)
    start = timed[0] if found is None else timed[found]
    note = None
    if found is None:
        covered = (_time(end) - _time(start)) / 3600.0
        note = f"the series covers only {covered:.3g} h of the {last_hours:g} h asked for"
    return IntervalWaf(_time(start), _time(end), window_between(start, end)), note


def _host_at(timed: Sequence[HealthSample], time_s: float) -> float | None:
    for sample in timed:
        if sample.taken_at_s == time_s:
            return sample.host_written_bytes.value
    return None


@dataclass(frozen=True, slots=True)
class LineFit:
    """y = slope × x + intercept by ordinary least squares."""

    slope: float
    intercept: float
    r_squared: float | None  # None when y is constant
    slope_stderr: float | None  # None with 2 points
    residual_rms: float


def least_squares(xs: Sequence[float], ys: Sequence[float]) -> LineFit | None:
    """OLS line through the points: scipy's `linregress`, figure for figure (the same numpy
    operations: np.mean and np.cov's, inlined), without importing scipy.stats (half a second) or
    computing the p-value nobody reads (1.4 ms a fit); None with fewer than 2 points or no
    spread in x."""
    if len(xs) != len(ys):
        raise ValueError(f"{len(xs)} x values but {len(ys)} y values")
    n = len(xs)
    if n < 2 or min(xs) == max(xs):
        return None
    import numpy as np  # imported by the first fit, not by every command that can fit

    points: Any = np.array((xs, ys), dtype=np.float64)  # np.cov's 2 × n matrix
    add = np.add.reduce  # np.mean's own sum, divided by n as np.mean divides it
    xmean, ymean = add(points[0], None) / n, add(points[1], None) / n
    points -= (add(points, 1) / n)[:, None]  # np.cov(x, y, bias=True), step by step
    covariance = np.dot(points, points.T.conj())
    covariance *= np.true_divide(1, n)
    ssxm, ssxym, _, ssym = covariance.flat
    r: Any
    if ssxm == 0.0 or ssym == 0.0:
        r = np.asarray(np.nan if ssxym == 0 else 0.0)[()]
    else:
        r = ssxym / np.sqrt(ssxm * ssym)
        if r > 1.0:  # rounding: r stays within [-1, 1]
            r = 1.0
        elif r < -1.0:
            r = -1.0
    slope = float(ssxym / ssxm)
    intercept = float(ymean - slope * xmean)
    ss_res = math.fsum([(b - (slope * a + intercept)) ** 2 for a, b in zip(xs, ys, strict=True)])
    return LineFit(
        slope=slope,
        intercept=intercept,
        r_squared=float(r) ** 2 if min(ys) != max(ys) else None,
        slope_stderr=float(np.sqrt((1 - r**2) * ssym / ssxm / (n - 2))) if n > 2 else None,
        residual_rms=math.sqrt(ss_res / n),
    )


def _rate_per_host_tb(
    points: Sequence[tuple[float, float, float | None, float | None]], notes: list[str]
) -> float | None:
    """The wear per TB of host writes fitted over the (time, wear, resolution, host bytes)
    points with host bytes; None, with a note of why, when there is none."""
    with_host = [(host / TB, v) for _, v, _, host in points if host is not None]
    host_line = least_squares([h for h, _ in with_host], [v for _, v in with_host])
    if host_line is None or host_line.slope <= 0:
        notes.append("no rate per TB: too few samples with host writes, or no host writes")
    elif any(b[0] < a[0] for a, b in pairwise(with_host)):
        notes.append("no rate per TB: the host-writes counter went down (wrap or reset)")
    else:
        return host_line.slope
    return None


@dataclass(frozen=True, slots=True)
class WearSeries:
    """The counters a wear fit reads, column by column, one entry per sample in time order:
    its time (None: none), wear indicator (%) and average erase count, each with its counter's
    resolution (None: not known), and host bytes written (None: not known). A series read from
    the store's plain columns is fitted without building a sample of each reading."""

    times_s: Sequence[float | None]
    wear_pct: Sequence[float | None]
    wear_resolution: Sequence[float | None]
    erase_count: Sequence[float | None]
    erase_resolution: Sequence[float | None]
    host_written_bytes: Sequence[float | None]

    @classmethod
    def of(cls, samples: Sequence[HealthSample]) -> "WearSeries":
        return cls(
            times_s=[s.taken_at_s for s in samples],
            wear_pct=[s.wear_used_pct.value for s in samples],
            wear_resolution=[value_resolution(s.wear_used_pct) for s in samples],
            erase_count=[s.erase_count_avg.value for s in samples],
            erase_resolution=[value_resolution(s.erase_count_avg) for s in samples],
            host_written_bytes=[s.host_written_bytes.value for s in samples],
        )


def fit_wear(
    samples: Sequence[HealthSample],
    *,
    rated_pe_cycles: float | None = None,
    rated_pe_note: str | None = None,
) -> WearFit:
    """Least-squares wear rate over time-ordered samples: the indicator, else erases ÷ rated P/E.

    Refused (with a reason) below `MIN_RATE_STEPS` counter steps, or when the counter went down.
    """
    return fit_wear_series(
        WearSeries.of(samples), rated_pe_cycles=rated_pe_cycles, rated_pe_note=rated_pe_note
    )


def fit_wear_series(
    series: WearSeries,
    *,
    rated_pe_cycles: float | None = None,
    rated_pe_note: str | None = None,
    per_host_tb: bool = True,
) -> WearFit:
    """`fit_wear` of a series given column by column. Without `per_host_tb` the wear per TB
    of host writes is not fitted (`pct_per_host_tb` None, no note on it): `ssdlab metrics`
    exports no TBW projection, and that fit is the second least-squares fit of every drive."""
    indicator = _fit_track(
        "wear_used_pct", series, series.wear_pct, series.wear_resolution, 1.0, None, per_host_tb
    )
    if indicator.reason is None:
        return indicator
    if rated_pe_cycles is None:
        return replace(
            indicator,
            reason=f"{indicator.reason}; no erase-count fallback: the rated P/E cycles are unknown",
        )
    erase = _fit_track(
        "erase_count_avg", series, series.erase_count, series.erase_resolution,
        100.0 / rated_pe_cycles, rated_pe_cycles, per_host_tb,
    )  # fmt: skip
    if erase.reason is not None:
        return replace(indicator, reason=f"{indicator.reason}; {erase.reason}")
    fallback = f"{indicator.reason.removeprefix('wear fit n/a: ')}; fitted erase counts instead"
    notes = (fallback, rated_pe_note) if rated_pe_note else (fallback,)
    return replace(erase, notes=notes + erase.notes)


def _fit_track(
    metric: str,
    series: WearSeries,
    readings: Sequence[float | None],
    resolutions_of: Sequence[float | None],
    scale: float,
    pe_cycles: float | None,
    per_host_tb: bool,
) -> WearFit:
    label = "wear indicator" if metric == "wear_used_pct" else "erase counts"
    points = [
        (t, value * scale, resolution, host)
        for t, value, resolution, host in zip(
            series.times_s, readings, resolutions_of, series.host_written_bytes, strict=True
        )
        if t is not None and value is not None
    ]
    resolutions = [r for _, _, r, _ in points if r is not None and r > 0]
    notes: list[str] = []
    if not resolutions:
        notes.append(f"{label}: assumed to step by 1")
    step = (max(resolutions) if resolutions else 1.0) * scale
    times = tuple([t for t, _, _, _ in points])
    values = tuple([v for _, v, _, _ in points])

    def refuse(why: str, steps: float | None = None) -> WearFit:
        return WearFit(
            None, times, values, step, steps, None, None, None, None, None, None, pe_cycles, None,
            tuple(notes), f"wear fit n/a: {label}: {why}",
        )  # fmt: skip

    if len(points) < 2:
        return refuse(f"known in {len(points)} sample(s); a fit needs 2 or more")
    drops = [(a, b) for a, b in pairwise(points) if b[1] < a[1]]
    if drops:
        (t0, v0, _, _), (t1, v1, _, _) = drops[0]
        return refuse(
            f"went down from {v0:g} % to {v1:g} % between {t0:.0f} s and {t1:.0f} s (reset?)"
        )
    steps = (values[-1] - values[0]) / step
    if steps < MIN_RATE_STEPS - 1e-9:
        return refuse(
            f"{steps:.3g} step(s) of {step:.3g} % observed; need ≥ {MIN_RATE_STEPS}", steps
        )
    days = [(t - times[0]) / S_PER_DAY for t in times]
    line = least_squares(days, values)
    if line is None:
        return refuse("all samples at the same time", steps)
    per_tb = _rate_per_host_tb(points, notes) if per_host_tb else None
    error = 100.0 / steps
    confidence = (
        f"{steps:.4g} steps of {step:.3g} % over {days[-1]:.4g} days from {len(points)} samples "
        f"(rate known to about ±{error:.2g} %)"
    )
    if line.r_squared is not None:
        confidence += f"; R² = {line.r_squared:.3f}"
    confidence += f", residual RMS {line.residual_rms:.2g} %"
    interval = slope_interval(line.slope, line.slope_stderr, len(days))
    if line.slope_stderr is not None:
        confidence += f"; slope {line.slope:.3g} ± {line.slope_stderr:.2g} %/day (1 s.e.)"
    return WearFit(
        source=metric,
        times_s=times,
        wear_pct=values,
        step_pct=step,
        steps=steps,
        pct_per_day=line.slope if line.slope > 0 else None,
        pct_per_day_stderr=line.slope_stderr,
        r_squared=line.r_squared,
        residual_rms_pct=line.residual_rms,
        pct_per_host_tb=per_tb,
        quantisation_error_pct=error,
        rated_pe_cycles=pe_cycles,
        confidence=confidence,
        notes=tuple(notes),
        reason=None,
        pct_per_day_interval=interval,
    )
