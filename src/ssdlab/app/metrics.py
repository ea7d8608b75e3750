"""`ssdlab metrics`: the store's latest state as Prometheus metrics — per drive its latest
health sample and the wear analysis `ssdlab health` runs over its samples, its latest complete
quick run, and the endurance runs under way (docs/metrics.md).

Read in one read transaction through store/latest.py: the drives and their series from
indexes, one sample decoded per drive (its latest) and the byte counters of the one its recent
window starts at, the passes of the exported runs only. The wear analysis is
analysis/wear.py's on the figures of the series; a drive they cannot describe (fewer than two
samples with a time, or a serial or model with the key's `|` in it) has its samples decoded
and `analyse_series` run on them.

A drive's `host` is that of the run that took its latest sample from the drive; samples read
from saved files (`ssdlab health FILE`, `health --import LOG`) say nothing of where the drive
is, and a drive known only from such files has host "". Turned into text by
report/metrics.py."""

import gc
import sqlite3
import statistics
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ssdlab.analysis.lifetime import LifeProjection, RatedEndurance
from ssdlab.analysis.passes import p99_ns
from ssdlab.analysis.spec_match import match_spec, rated_endurance
from ssdlab.analysis.waf import lifetime_waf
from ssdlab.analysis.wear import (
    WearFit,
    WearSeries,
    analyse_series,
    fit_projection,
    fit_wear_series,
    rated_pe_cycles_of,
    recent_start,
    window_between,
)
from ssdlab.app.spec_sheets import known_spec_sheets
from ssdlab.errors import StoreError
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
from ssdlab.model.spec import SpecSheet
from ssdlab.report.metrics import metrics_text
from ssdlab.store import latest
from ssdlab.store.health import load_health_samples

RECENT_ENDURANCE_S = 7 * 86400.0  # a finished endurance run is exported for a week
RECENT_WAF_HOURS = 24.0  # the wear analysis' last window (analyse_series' default)
SECONDS_PER_HOUR = 3600.0
NS_PER_S = 1e9
NO_IDENTITY = DriveIdentity(None, None, None, None, None)
PASSES_AT_ONCE = 100  # runs whose passes are read at once: memory stays that of 100 runs


@dataclass(frozen=True, slots=True)
class MetricsRequest:
    """What `ssdlab metrics` is asked: the store's state at `now_s` (Unix time; endurance runs
    that ended in the week before it are exported)."""

    now_s: float


def store_metrics(conn: sqlite3.Connection, request: MetricsRequest) -> str:
    """The store's latest state in Prometheus' text exposition format."""
    with _collector_paused():
        return metrics_text(metrics_state(conn, request))


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector held off for one scrape: a fleet's scrape makes some
    million objects that all live until its text is written, none in a cycle, and the
    collector would walk them (and every imported module) again and again as they pile up, 5 %
    of the scrape. Reference counting still frees what the scrape drops; the collector runs
    again after it, in `watch --textfile`'s loop too."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


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
    if run.device_id is not None:
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
    """What the wear analysis of a drive's series gives the metrics (all None without one):
    the WAF of its recent window, the wear fit and the life projection."""

    recent_waf: float | None = None
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
        write_amplification_recent=wear.recent_waf,
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


def _counter(value: float | None, resolution: float | None) -> HealthValue:
    """A byte counter as the WAF reads it: its value and resolution (the provenance's other
    parts are not read)."""
    if value is None and resolution is None:
        return UNKNOWN
    return HealthValue(value, None if resolution is None else Provenance("", None, "", resolution))


def _window_start(counters: latest.WrittenCounters) -> HealthSample:
    """The sample a recent window starts at, with what the window's WAF reads of it."""
    return HealthSample(
        taken_at_s=counters.taken_at_s,
        identity=NO_IDENTITY,
        host_written_bytes=_counter(counters.host_written_bytes, counters.host_resolution),
        nand_written_bytes=_counter(counters.nand_written_bytes, counters.nand_resolution),
    )


def series_wear(
    conn: sqlite3.Connection,
    series: latest.DriveSeries,
    sample: HealthSample,
    rated: RatedEndurance | None,
) -> WearState:
    """`analyse_series`' recent WAF, wear fit and projection of a drive whose samples have
    times (two or more) and one serial, from the figures of its series, its latest sample and
    the byte counters of the sample its recent window starts at: what analyse_series computes
    for them from all the decoded samples, but for the wear per TB of host writes and the
    projected TBW, which no metric exports (the days to end of life do not depend on them)."""
    first = series.times_s.count(None)  # samples without a time come first
    times = [t for t in series.times_s[first:] if t is not None]
    found = recent_start(times, RECENT_WAF_HOURS)
    start = _window_start(latest.written_counters(conn, series.sample_ids[first + (found or 0)]))
    pe_cycles, pe_note = rated_pe_cycles_of(rated, sample)
    fit = fit_wear_series(
        WearSeries(
            times_s=series.times_s,
            wear_pct=series.wear_pct,
            wear_resolution=series.wear_resolution,
            erase_count=series.erase_count,
            erase_resolution=series.erase_resolution,
            host_written_bytes=series.host_written_bytes,
        ),
        rated_pe_cycles=pe_cycles,
        rated_pe_note=pe_note,
        per_host_tb=False,
    )
    projection = fit_projection(fit, None)
    return WearState(window_between(start, sample).waf, fit, projection)


def _described_by_series(key: str, series: latest.DriveSeries) -> bool:
    """Whether the series gives what analyse_series would: two or more samples with a time
    (the series is then on their clock), and one serial (a key of one model and one serial,
    so no two serials can share it)."""
    timed = len(series.times_s) - series.times_s.count(None)
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


def _drive_host(conn: sqlite3.Connection, series: latest.DriveSeries) -> str:
    """The host of the run that took the drive's latest sample from the drive itself ("" when
    every sample was read from a saved file)."""
    run_id = series.last_taken_run_id()
    host = None if run_id is None else latest.run_host(conn, run_id)
    return host or ""


def drive_states(conn: sqlite3.Connection) -> tuple[DriveState, ...]:
    """Every drive with stored health samples, in device-key order."""
    ratings = _Ratings(known_spec_sheets(conn))
    drives = []
    for key in latest.drive_keys(conn):
        series = latest.drive_series(conn, key)
        if not len(series):
            continue
        sample = latest.health_sample(conn, series.sample_ids[-1])
        rated = ratings.of(sample)
        if len(series) < 2:
            wear = WearState()
        elif _described_by_series(key, series):
            try:
                wear = series_wear(conn, series, sample, rated)
            except TypeError:  # a figure copied from a sample's JSON that is not a number
                raise StoreError(
                    f"the health samples of drive {key} cannot be read: a figure of them is "
                    "not a number"
                ) from None
        else:
            samples = [s.sample for s in load_health_samples(conn, key=key)]
            report = analyse_series(samples, rated=rated)
            recent = report.recent.waf.waf if report.recent is not None else None
            wear = WearState(recent, report.wear_fit, report.projection)
        drives.append(drive_state(_drive_host(conn, series), sample, rated, wear))
    return tuple(drives)


# ---- benchmarks ---------------------------------------------------------------------------


def _mean(values: Sequence[float | None]) -> float | None:
    """The mean of the values, None when any is unknown (fmean's value: one pass is its own)."""
    if len(values) == 1:
        return None if values[0] is None else float(values[0])
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if known and len(known) == len(values) else None


def benchmark_tests(
    steps: Sequence[latest.StoredPass],
    finished_at_s: float | None,
    regressions: Mapping[str, bool] | None = None,
) -> list[BenchmarkTest]:
    """Per test (step key, in the order they ran): the means over the measured passes, and
    the regression flag the run's baseline verdict gives it (`regressions`: None when the
    run was not judged against a baseline)."""
    grouped: dict[str, list[latest.StoredPass]] = {}
    for step in steps:
        grouped.setdefault(step.step_key, []).append(step)
    tests = []
    for key, group in grouped.items():
        latency = _mean([s.lat_mean_ns for s in group])
        try:
            p99 = _mean([p99_ns(s, mixed="none") for s in group])
        except (TypeError, ValueError) as error:  # percentiles that are not numbers
            raise StoreError(
                f"the {key} passes of run {group[0].run_id} cannot be read: {error}"
            ) from None
        tests.append(
            BenchmarkTest(
                test=key,
                throughput_bytes_per_second=_mean([s.bw_bytes_per_s for s in group]),
                iops=_mean([s.iops for s in group]),
                latency_mean_seconds=_scaled(latency, 1 / NS_PER_S),
                latency_p99_seconds=_scaled(p99, 1 / NS_PER_S),
                timestamp_seconds=finished_at_s,
                regression=None if regressions is None else regressions.get(key),
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
    for run in latest.newest_quick_runs(conn):  # in the order of each group's oldest run
        labels = run_labels(run)
        held = newest.get(labels)
        if held is None or (run.started_at_s, run.run_id) > (held.started_at_s, held.run_id):
            newest[labels] = run  # the newest run of the drive, in the place of its oldest
    chosen = list(newest.items())
    states = []
    for start in range(0, len(chosen), PASSES_AT_ONCE):  # the passes of a few runs at a time
        runs = chosen[start : start + PASSES_AT_ONCE]
        ids = [run.run_id for _, run in runs]
        passes = latest.measured_passes(conn, ids)
        baselines = latest.findings_named(conn, BASELINE, ids)
        for labels, run in runs:
            name, flags = _baseline(baselines.get(run.run_id))
            tests = benchmark_tests(
                passes[run.run_id], run.ended_at_s, None if name is None else flags
            )
            states.append(BenchmarkState(labels, run.run_id, tuple(tests), name))
    return tuple(states)


# ---- endurance ----------------------------------------------------------------------------


def _progress(fractions: Sequence[float | None]) -> float | None:
    known = [f for f in fractions if f is not None]
    return min(1.0, max(0.0, max(known))) if known else None


def endurance_states(conn: sqlite3.Connection, now_s: float) -> tuple[EnduranceState, ...]:
    """Endurance runs running, or finished in the last week."""
    runs = latest.endurance_runs(conn, now_s - RECENT_ENDURANCE_S)
    if not runs:
        return ()
    # imported only for a store with endurance runs to export: most scrapes have none
    from ssdlab.analysis.profiles.endurance import status_of

    states = []
    for run in runs:
        results = latest.endurance_results(conn, run.run_id)
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
