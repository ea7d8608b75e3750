"""`ssdlab metrics`: the store's latest state as Prometheus metrics — per drive its latest
health sample and the wear analysis `ssdlab health` runs over its samples, its latest complete
quick run, and the endurance runs under way (docs/metrics.md).

Read in one read transaction through store/latest.py: the drives and their series from
indexes, one sample decoded per drive (its latest), the passes of the exported runs only. The
wear analysis is analysis/wear.py's, on the figures it reads of each sample; a drive whose
series that does not describe in full (fewer than two samples with a time, or a serial or
model with the key's `|` in it) has its samples decoded and `analyse_series` run on them.

A drive's `host` is that of the run that took its latest sample from the drive; samples read
from saved files (`ssdlab health FILE`, `health --import LOG`) say nothing of where the drive
is, and a drive known only from such files has host "". Turned into text by
report/metrics.py."""

import dataclasses
import sqlite3
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ssdlab.analysis.lifetime import LifeProjection, RatedEndurance, project_life
from ssdlab.analysis.passes import p99_ns
from ssdlab.analysis.profiles.endurance import status_of
from ssdlab.analysis.spec_match import match_spec
from ssdlab.analysis.waf import lifetime_waf
from ssdlab.analysis.wear import (
    IntervalWaf,
    WearFit,
    analyse_series,
    fit_wear,
    rated_pe_cycles_of,
    recent_window,
)
from ssdlab.app.ratings import known_spec_sheets, rated_endurance
from ssdlab.model.finding_names import BASELINE
from ssdlab.model.health import UNKNOWN, DriveIdentity, HealthSample, HealthValue, Provenance
from ssdlab.model.metrics import (
    BenchmarkState,
    BenchmarkTest,
    DriveLabels,
    DriveState,
    EnduranceState,
    MetricsState,
)
from ssdlab.model.profile import ProfileResults
from ssdlab.model.spec import SpecSheet
from ssdlab.model.step import StepResult
from ssdlab.report.metrics import metrics_text
from ssdlab.store import latest
from ssdlab.store.health import load_health_samples
from ssdlab.store.profile_runs import profile_plan_of
from ssdlab.store.runs import capture_times, load_run, load_step_results

RECENT_ENDURANCE_S = 7 * 86400.0  # a finished endurance run is exported for a week
RECENT_WAF_HOURS = 24.0  # the wear analysis' last window (analyse_series' default)
SECONDS_PER_HOUR = 3600.0
NS_PER_S = 1e9


@dataclass(frozen=True, slots=True)
class MetricsRequest:
    """What `ssdlab metrics` is asked: the store's state at `now_s` (Unix time; endurance runs
    that ended in the week before it are exported)."""

    now_s: float


def store_metrics(conn: sqlite3.Connection, request: MetricsRequest) -> str:
    """The store's latest state in Prometheus' text exposition format."""
    return metrics_text(metrics_state(conn, request))


def metrics_state(conn: sqlite3.Connection, request: MetricsRequest) -> MetricsState:
    """Everything `ssdlab metrics` exports, read from the store as it is at one instant."""
    with latest.read_snapshot(conn):
        return MetricsState(
            drives=drive_states(conn),
            benchmarks=benchmark_states(conn),
            endurance=endurance_states(conn, request.now_s),
        )


# ---- labels -------------------------------------------------------------------------------


def _text(value: str | None) -> str:
    return (value or "").strip()


def _labels(host: str, identity: DriveIdentity) -> DriveLabels:
    return DriveLabels(
        host=host,
        serial=_text(identity.serial),
        model=_text(identity.model),
        firmware=_text(identity.firmware),
    )


def run_labels(run: latest.RunDrive) -> DriveLabels:
    """The drive a run measured: its own last health sample's identity, else the block device
    ssdlab recorded for its target, else no drive labels."""
    if run.sampled:
        return DriveLabels(
            run.host, _text(run.sample_serial), _text(run.sample_model), _text(run.sample_firmware)
        )
    if run.device:
        return DriveLabels(
            run.host, _text(run.device_serial), _text(run.device_model), _text(run.device_firmware)
        )
    return DriveLabels(run.host, "", "", "")


# ---- drives -------------------------------------------------------------------------------


def _ratio(pct: float | None) -> float | None:
    return None if pct is None else pct / 100.0


def _scaled(value: float | None, factor: float) -> float | None:
    return None if value is None else value * factor


@dataclass(frozen=True, slots=True)
class WearState:
    """What the wear analysis of a drive's series gives the metrics (all None without one)."""

    recent: IntervalWaf | None = None
    fit: WearFit | None = None
    projection: LifeProjection | None = None


def drive_state(
    host: str, sample: HealthSample, rated: RatedEndurance | None, wear: WearState
) -> DriveState:
    """One drive: its latest sample's figures, the lifetime WAF of that sample, and the wear
    analysis of its series."""
    fit, projection = wear.fit, wear.projection
    days = projection.days_to_eol if projection is not None else None
    error = _ratio(fit.quantisation_error_pct) if fit is not None and days is not None else None
    return DriveState(
        labels=_labels(host, sample.identity),
        capacity_bytes=sample.identity.capacity_bytes,
        temperature_celsius=sample.temperature_c.value,
        temperature_warning_celsius=sample.temperature_warning_c.value,
        power_on_seconds=_scaled(sample.power_on_hours.value, SECONDS_PER_HOUR),
        host_written_bytes=sample.host_written_bytes.value,
        nand_written_bytes=sample.nand_written_bytes.value,
        wear_used_ratio=_ratio(sample.wear_used_pct.value),
        available_spare_ratio=_ratio(sample.available_spare_pct.value),
        available_spare_threshold_ratio=_ratio(sample.available_spare_threshold_pct.value),
        write_amplification_recent=wear.recent.waf.waf if wear.recent is not None else None,
        write_amplification_to_date=lifetime_waf(sample).waf,
        wear_rate_ratio_per_day=_ratio(fit.pct_per_day if fit is not None else None),
        end_of_life_days=days,
        end_of_life_error_ratio=error,
        rated_written_bytes=rated.rated_tbw_bytes() if rated is not None else None,
        media_errors=sample.media_errors.value,
        uncorrectable_errors=sample.uncorrectable_errors.value,
        critical_warning=sample.critical_warning.value,
        error_log_entries=sample.error_log_entries.value,
        sample_timestamp_seconds=sample.taken_at_s,
    )


def _value(value: float | None, resolution: float | None) -> HealthValue:
    """A counter as the analysis reads it: its value and resolution (the provenance's other
    parts are not read by it)."""
    if value is None and resolution is None:
        return UNKNOWN
    provenance = None if resolution is None else Provenance("", None, "", resolution)
    return HealthValue(value, provenance)


def _counters(point: latest.DrivePoint, identity: DriveIdentity) -> HealthSample:
    """The sample of a series point, with the counters the wear analysis fits."""
    return HealthSample(
        taken_at_s=point.taken_at_s,
        identity=identity,
        host_written_bytes=_value(point.host_written_bytes, point.host_written_resolution),
        nand_written_bytes=_value(point.nand_written_bytes, point.nand_written_resolution),
        wear_used_pct=_value(point.wear_used_pct, point.wear_used_resolution),
        erase_count_avg=_value(point.erase_count_avg, point.erase_count_resolution),
    )


def series_wear(
    points: Sequence[latest.DrivePoint], sample: HealthSample, rated: RatedEndurance | None
) -> WearState:
    """`analyse_series`' window WAF, wear fit and projection of a drive whose samples have
    times (two or more) and one serial, from the figures of its points: what analyse_series
    computes for them from the decoded samples."""
    timed = [_counters(p, sample.identity) for p in points if p.taken_at_s is not None]
    recent, _note = recent_window(timed, RECENT_WAF_HOURS)
    pe_cycles, pe_note = rated_pe_cycles_of(rated, sample)
    fit = fit_wear(timed, rated_pe_cycles=pe_cycles, rated_pe_note=pe_note)
    host_now = next(
        (
            s.host_written_bytes.value
            for s in timed
            if fit.times_s and s.taken_at_s == fit.times_s[-1]
        ),
        None,
    )
    projection = project_life(
        fit.wear_pct[-1] if fit.wear_pct else None,
        fit.pct_per_day,
        fit.pct_per_host_tb,
        host_now,
        reason=fit.reason,
    )
    return WearState(recent, fit, projection)


def _described_by_points(key: str, points: Sequence[latest.DrivePoint]) -> bool:
    """Whether the series points give what analyse_series would: two or more samples with a
    time (the series is then on their clock), and one serial (a key of one model and one
    serial, so no two serials can share it)."""
    timed = sum(1 for p in points if p.taken_at_s is not None)
    return timed >= 2 and key.count("|") == 1


class _Ratings:
    """The rated endurance of each model and capacity, matched once per scrape."""

    def __init__(self, sheets: Sequence[SpecSheet]) -> None:
        self._sheets = sheets
        self._found: dict[tuple[str | None, int | None], RatedEndurance | None] = {}

    def of(self, sample: HealthSample) -> RatedEndurance | None:
        key = (sample.identity.model, sample.identity.capacity_bytes)
        if key not in self._found:
            self._found[key] = rated_endurance(match_spec(key[0], key[1], self._sheets))
        return self._found[key]


def _drive_host(conn: sqlite3.Connection, points: Sequence[latest.DrivePoint]) -> str:
    """The host of the run that took the drive's latest sample from the drive itself ("" when
    every sample was read from a saved file)."""
    taken = [p for p in points if not p.imported]
    if not taken:
        return ""
    return latest.run_hosts(conn, [taken[-1].run_id]).get(taken[-1].run_id, "")


def drive_states(conn: sqlite3.Connection) -> tuple[DriveState, ...]:
    """Every drive with stored health samples, in device-key order."""
    ratings = _Ratings(known_spec_sheets(conn))
    drives = []
    for key in latest.drive_keys(conn):
        points = latest.drive_points(conn, key)
        if not points:
            continue
        sample = latest.health_sample(conn, points[-1].sample_id)
        rated = ratings.of(sample)
        if len(points) < 2:
            wear = WearState()
        elif _described_by_points(key, points):
            wear = series_wear(points, sample, rated)
        else:
            series = analyse_series(
                [s.sample for s in load_health_samples(conn, key=key)], rated=rated
            )
            wear = WearState(series.recent, series.wear_fit, series.projection)
        drives.append(drive_state(_drive_host(conn, points), sample, rated, wear))
    return tuple(drives)


# ---- benchmarks ---------------------------------------------------------------------------


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if known and len(known) == len(values) else None


def benchmark_tests(
    steps: Sequence[StepResult], finished_at_s: float | None
) -> list[BenchmarkTest]:
    """Per test (step key, in the order they ran): the means over the measured passes."""
    grouped: dict[str, list[StepResult]] = {}
    for step in steps:
        if not step.discarded:
            grouped.setdefault(step.step_key, []).append(step)
    tests = []
    for key, group in grouped.items():
        latency = _mean([s.lat_mean_ns for s in group])
        p99 = _mean([p99_ns(s, mixed="none") for s in group])
        tests.append(
            BenchmarkTest(
                test=key,
                throughput_bytes_per_second=_mean([s.bw_bytes_per_s for s in group]),
                iops=_mean([s.iops for s in group]),
                latency_mean_seconds=_scaled(latency, 1 / NS_PER_S),
                latency_p99_seconds=_scaled(p99, 1 / NS_PER_S),
                timestamp_seconds=finished_at_s,
            )
        )
    return tests


def _baseline(body: Mapping[str, Any] | None) -> tuple[str | None, dict[str, bool]]:
    """The name of the baseline a run was judged against and each test's regression flag."""
    if body is None or not isinstance(body.get("name"), str):
        return None, {}
    flags = {}
    for test in body.get("tests") or ():
        if isinstance(test, dict) and isinstance(test.get("regression"), bool):
            flags[str(test.get("key"))] = test["regression"]
    return body["name"], flags


def benchmark_states(conn: sqlite3.Connection) -> tuple[BenchmarkState, ...]:
    """The latest complete quick run of each drive (imported runs left out), in the order of
    each drive's first quick run."""
    newest: dict[DriveLabels, latest.RunDrive] = {}
    for run in latest.complete_quick_runs(conn):
        newest[run_labels(run)] = run  # oldest first: the last one wins, in the first's place
    ids = [run.run_id for run in newest.values()]
    passes = latest.measured_passes(conn, ids)
    baselines = latest.findings_named(conn, BASELINE, ids)
    states = []
    for labels, run in newest.items():
        tests = benchmark_tests(passes[run.run_id], run.ended_at_s)
        name, flags = _baseline(baselines.get(run.run_id))
        if name is not None:
            tests = [dataclasses.replace(t, regression=flags.get(t.test)) for t in tests]
        states.append(BenchmarkState(labels, run.run_id, tuple(tests), name))
    return tuple(states)


# ---- endurance ----------------------------------------------------------------------------


def _progress(fractions: Sequence[float | None]) -> float | None:
    known = [f for f in fractions if f is not None]
    return min(1.0, max(0.0, max(known))) if known else None


def _endurance_results(conn: sqlite3.Connection, run_id: int) -> ProfileResults | None:
    """What `status_of` reads of an endurance run: its plan, iterations (without their
    series), their captures' times and the health samples."""
    run = load_run(conn, run_id)
    if run is None:
        return None
    return ProfileResults(
        run=run,
        plan=profile_plan_of(run),
        steps=tuple(load_step_results(conn, run_id, with_series=False)),
        facts={},
        outputs={},
        health=tuple((s.phase, s.sample) for s in load_health_samples(conn, run_id=run_id)),
        capture_times=capture_times(conn, run_id),
    )


def endurance_states(conn: sqlite3.Connection, now_s: float) -> tuple[EnduranceState, ...]:
    """Endurance runs running, or finished in the last week."""
    states = []
    for run in latest.endurance_runs(conn, now_s - RECENT_ENDURANCE_S):
        results = _endurance_results(conn, run.run_id)
        if results is None:
            continue
        status = status_of(results)
        states.append(
            EnduranceState(
                labels=run_labels(run),
                run=str(run.run_id),
                progress_ratio=_progress([p.fraction for p in status.stop.progress]),
                written_bytes=float(status.written_bytes),
            )
        )
    return tuple(states)
