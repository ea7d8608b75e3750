"""An endurance run read as numbers: its iterations, how far it is towards each stop condition,
whether a health sample calls for a safety stop, and the live status (host vs NAND writes, WAF
so far and recently, wear rate, days and TBW to end of life, and how sure those are).
"""

import dataclasses
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.analysis.steps import CounterStep, counter_step_timing
from ssdlab.analysis.wear import SeriesReport, analyse_series, timeline
from ssdlab.model.health import HealthSample, HealthValue
from ssdlab.model.profile_settings import EnduranceSettings
from ssdlab.model.step import StepResult
from ssdlab.model.units import format_decimal_bytes

# An iteration this much slower (time-bound: this much less throughput) than the median is
# flagged: a field report saw iterations take twice as long and could only guess why.
OUTLIER_RATIO = 1.5
# Error counters whose rise is a safety stop ("new media errors").
ERROR_COUNTERS = ("media_errors", "uncorrectable_errors", "reallocated_sectors", "pending_sectors")


@dataclass(frozen=True, slots=True)
class Iteration:
    """One finished iteration. `elapsed_s` is fio's own runtime of the writes; `started_at_s`
    and `ended_at_s` the wall clock around the fio process (None when not recorded)."""

    index: int
    started_at_s: float | None
    ended_at_s: float | None
    elapsed_s: float
    written_bytes: int
    write_bytes_per_s: float
    outlier: str | None = None


def iterations_of(
    steps: Sequence[StepResult], capture_times: Mapping[int, tuple[float, float]]
) -> tuple[Iteration, ...]:
    """The run's finished iterations in order, with slow ones flagged."""
    found = []
    for step in sorted(steps, key=lambda s: s.round_index):
        if step.discarded or step.write is None:
            continue
        times = capture_times.get(step.capture_id or -1)
        found.append(
            Iteration(
                index=step.round_index,
                started_at_s=times[0] if times else None,
                ended_at_s=times[1] if times else None,
                elapsed_s=step.write.runtime_s,
                written_bytes=step.write.io_bytes,
                write_bytes_per_s=step.write.bw_bytes_per_s,
            )
        )
    return _flag_outliers(found)


def _flag_outliers(found: list[Iteration]) -> tuple[Iteration, ...]:
    if len(found) < 3:
        return tuple(found)
    median_s = statistics.median(i.elapsed_s for i in found)
    median_bw = statistics.median(i.write_bytes_per_s for i in found)
    flagged = []
    for it in found:
        note = None
        if median_s > 0 and it.elapsed_s > OUTLIER_RATIO * median_s:
            note = f"took {it.elapsed_s / median_s:.2g}× the median time"
        elif it.write_bytes_per_s > 0 and median_bw > OUTLIER_RATIO * it.write_bytes_per_s:
            note = f"wrote at {it.write_bytes_per_s / median_bw:.2g}× the median speed"
        flagged.append(dataclasses.replace(it, outlier=note))
    return tuple(flagged)


@dataclass(frozen=True, slots=True)
class StopProgress:
    """How far the run is towards one stop condition (`fraction` 1.0 = reached)."""

    condition: str  # for_time | until_written | until_wear
    limit: float
    done: float | None
    fraction: float | None
    reason: str | None = None  # why `done` is unknown


@dataclass(frozen=True, slots=True)
class StopDecision:
    stop: bool
    reason: str | None
    progress: tuple[StopProgress, ...]


def wear_rise(samples: Sequence[HealthSample]) -> tuple[float | None, str | None]:
    """Points the wear indicator rose from the first sample of the run to the latest."""
    known = [s for s in samples if s.wear_used_pct.value is not None]
    if len(known) < 1:
        return None, "the drive reports no wear indicator"
    first = known[0].wear_used_pct.value
    last = known[-1].wear_used_pct.value
    assert first is not None
    assert last is not None
    return last - first, None


def decide_stop(
    settings: EnduranceSettings,
    iterations: Sequence[Iteration],
    samples: Sequence[HealthSample],
) -> StopDecision:
    """After an iteration: has any stop condition been reached? (The first reached stops.)"""
    progress = []
    written = float(sum(i.written_bytes for i in iterations))
    elapsed = float(sum(i.elapsed_s for i in iterations))
    for name, limit, done in (
        ("for_time", settings.for_time, elapsed),
        ("until_written", settings.until_written, written),
    ):
        if limit is not None:
            progress.append(StopProgress(name, float(limit), done, done / limit))
    wear_limit = settings.until_wear
    if wear_limit is not None:
        rise, why = wear_rise(samples)
        progress.append(
            StopProgress(
                "until_wear",
                wear_limit,
                rise,
                None if rise is None else rise / wear_limit,
                why,
            )
        )
    reached = [p for p in progress if p.fraction is not None and p.fraction >= 1.0]
    if reached:
        return StopDecision(True, _reached_text(reached[0]), tuple(progress))
    return StopDecision(False, None, tuple(progress))


def _reached_text(progress: StopProgress) -> str:
    if progress.condition == "for_time":
        return f"--for reached: {progress.done:.4g} s of writing (limit {progress.limit:g} s)"
    if progress.condition == "until_written":
        return (
            f"--until-written reached: {format_decimal_bytes(progress.done or 0)} written "
            f"(limit {format_decimal_bytes(progress.limit)})"
        )
    return f"--until-wear reached: wear rose by {progress.done:g} points (limit {progress.limit:g})"


def _value(value: HealthValue) -> float | None:
    return value.value


def safety_problem(
    first: HealthSample | None,
    latest: HealthSample,
    *,
    max_temperature_c: float,
    max_wear_pct: float = 100.0,
) -> str | None:
    """Why the run must stop now, or None: too hot, an error counter rose since the run's first
    sample, SMART says FAILED, an NVMe critical warning, or the wear indicator at its end."""
    temperature = _value(latest.temperature_c)
    if temperature is not None and temperature > max_temperature_c:
        return f"temperature {temperature:g} °C is above the limit of {max_temperature_c:g} °C"
    if latest.verdict == "FAILED":
        return "SMART overall health says FAILED"
    warning = _value(latest.critical_warning)
    if warning is not None and warning > 0:
        return f"the drive reports an NVMe critical warning (0x{int(warning):02x})"
    if first is not None:
        for counter in ERROR_COUNTERS:
            before = _value(getattr(first, counter))
            now = _value(getattr(latest, counter))
            if before is not None and now is not None and now > before:
                name = counter.replace("_", " ")
                return f"new {name}: {before:g} at the start, {now:g} now"
    wear = _value(latest.wear_used_pct)
    if wear is not None and wear >= max_wear_pct:
        return f"end of life: the wear indicator is at {wear:g} % (limit {max_wear_pct:g} %)"
    return None


@dataclass(frozen=True, slots=True)
class EnduranceStatus:
    """Everything `ssdlab status` shows, from stored iterations and health samples."""

    iterations: tuple[Iteration, ...]
    written_bytes: int
    writing_s: float
    mean_write_bytes_per_s: float | None
    iteration_s_min: float | None
    iteration_s_median: float | None
    iteration_s_max: float | None
    drive_host_written_bytes: float | None  # the drive's host-writes counter, first → latest
    drive_nand_written_bytes: float | None
    series: SeriesReport | None
    wear_steps: tuple[CounterStep, ...]
    erase_steps: tuple[CounterStep, ...]
    stop: StopDecision
    replayed_from: str | None
    notes: tuple[str, ...]


def _delta(samples: Sequence[HealthSample], metric: str) -> float | None:
    values = [v for s in samples if (v := getattr(s, metric).value) is not None]
    if len(values) < 2:
        return None
    return float(values[-1] - values[0])


def endurance_status(
    settings: EnduranceSettings,
    iterations: Sequence[Iteration],
    samples: Sequence[HealthSample],
    *,
    rated: RatedEndurance | None = None,
) -> EnduranceStatus:
    """The run so far: totals, iteration times, WAF (so far and over --last-hours), the wear fit
    and its projection to end of life, compared with the rating when one is known."""
    notes: list[str] = []
    line = timeline(samples)  # timestamps, else the drive's Power_On_Hours
    timed = list(line.samples)
    last_hours = settings.last_hours or 24.0
    series = None
    if line.reason is None:
        series = analyse_series(samples, last_hours=last_hours, rated=rated)
    elif samples:
        notes.append(f"{len(timed)} timed health sample(s) so far; WAF and wear need 2 or more")
    else:
        notes.append(
            "no health samples: this target reports no SMART data, so WAF and wear are n/a"
        )
    replayed_from = settings.health_replay or None
    if replayed_from:
        notes.append(
            f"health data is REPLAYED from {replayed_from}, not read from the drive: WAF, wear "
            "and life projection describe that recording"
        )
    times = [i.elapsed_s for i in iterations]
    written = sum(i.written_bytes for i in iterations)
    writing_s = sum(times)
    slow = [i for i in iterations if i.outlier]
    if slow:
        notes.append(
            f"{len(slow)} iteration(s) ran slow ("
            + ", ".join(f"#{i.index} {i.outlier}" for i in slow[:5])
            + "): compare with the health samples and the drive's temperature around them"
        )
    return EnduranceStatus(
        iterations=tuple(iterations),
        written_bytes=written,
        writing_s=writing_s,
        mean_write_bytes_per_s=written / writing_s if writing_s > 0 else None,
        iteration_s_min=min(times) if times else None,
        iteration_s_median=statistics.median(times) if times else None,
        iteration_s_max=max(times) if times else None,
        drive_host_written_bytes=_delta(timed, "host_written_bytes"),
        drive_nand_written_bytes=_delta(timed, "nand_written_bytes"),
        series=series,
        wear_steps=counter_step_timing(timed, "wear_used_pct"),
        erase_steps=counter_step_timing(timed, "erase_count_avg"),
        stop=decide_stop(settings, iterations, samples),
        replayed_from=replayed_from,
        notes=tuple(notes),
    )
