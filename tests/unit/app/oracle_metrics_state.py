"""The oracle of tests/unit/app/test_metrics_oracle.py: what `ssdlab metrics` read from the
store before it read the latest state by indexed queries — cli/metrics_state.py of commit
bd33ceb, kept here verbatim (only this docstring is new). It loads every drive's samples and
every complete quick run, and is what the new exporter's output is compared with."""

import dataclasses
import sqlite3
import statistics
import time
from collections.abc import Sequence

from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.analysis.profiles.endurance import status_of
from ssdlab.analysis.spec_match import match_spec, rated_endurance
from ssdlab.analysis.waf import lifetime_waf
from ssdlab.analysis.wear import SeriesReport, analyse_series
from ssdlab.app.runs import profile_results, run_baseline
from ssdlab.app.spec_sheets import known_spec_sheets
from ssdlab.model.health import DriveIdentity, HealthSample
from ssdlab.model.metrics import (
    BenchmarkState,
    BenchmarkTest,
    DriveLabels,
    DriveState,
    EnduranceState,
    MetricsState,
)
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.store.health import StoredHealthSample, load_health_samples
from ssdlab.store.run_rows import load_run
from ssdlab.store.steps import load_step_results

RECENT_ENDURANCE_S = 7 * 86400.0  # a finished endurance run is exported for a week
SECONDS_PER_HOUR = 3600.0
NS_PER_S = 1e9


def _text(value: str | None) -> str:
    return (value or "").strip()


def _labels(host: str, identity: DriveIdentity) -> DriveLabels:
    return DriveLabels(
        host=host,
        serial=_text(identity.serial),
        model=_text(identity.model),
        firmware=_text(identity.firmware),
    )


def _ratio(pct: float | None) -> float | None:
    return None if pct is None else pct / 100.0


def _scaled(value: float | None, factor: float) -> float | None:
    return None if value is None else value * factor


def _rating(conn: sqlite3.Connection, sample: HealthSample) -> RatedEndurance | None:
    identity = sample.identity
    return rated_endurance(
        match_spec(identity.model, identity.capacity_bytes, known_spec_sheets(conn))
    )


def _series(samples: Sequence[HealthSample], rated: RatedEndurance | None) -> SeriesReport | None:
    if len(samples) < 2:
        return None
    return analyse_series(samples, rated=rated)


def drive_state(
    host: str, samples: Sequence[HealthSample], rated: RatedEndurance | None
) -> DriveState:
    """One drive from its samples (oldest first): the latest sample's figures, the lifetime
    WAF of that sample, and the wear analysis of the series (two samples or more)."""
    latest = samples[-1]
    series = _series(samples, rated)
    recent = series.recent if series is not None else None
    fit = series.wear_fit if series is not None else None
    projection = series.projection if series is not None else None
    return DriveState(
        labels=_labels(host, latest.identity),
        capacity_bytes=latest.identity.capacity_bytes,
        temperature_celsius=latest.temperature_c.value,
        temperature_warning_celsius=latest.temperature_warning_c.value,
        power_on_seconds=_scaled(latest.power_on_hours.value, SECONDS_PER_HOUR),
        host_written_bytes=latest.host_written_bytes.value,
        nand_written_bytes=latest.nand_written_bytes.value,
        wear_used_ratio=_ratio(latest.wear_used_pct.value),
        available_spare_ratio=_ratio(latest.available_spare_pct.value),
        available_spare_threshold_ratio=_ratio(latest.available_spare_threshold_pct.value),
        write_amplification_recent=recent.waf.waf if recent is not None else None,
        write_amplification_to_date=lifetime_waf(latest).waf,
        wear_rate_ratio_per_day=_ratio(fit.pct_per_day if fit is not None else None),
        end_of_life_days=projection.days_to_eol if projection is not None else None,
        end_of_life_error_ratio=_eol_error(series),
        rated_written_bytes=rated.rated_tbw_bytes() if rated is not None else None,
        media_errors=latest.media_errors.value,
        uncorrectable_errors=latest.uncorrectable_errors.value,
        critical_warning=latest.critical_warning.value,
        error_log_entries=latest.error_log_entries.value,
        sample_timestamp_seconds=latest.taken_at_s,
    )


def _eol_error(series: SeriesReport | None) -> float | None:
    """The relative error of the wear rate the projection uses; None without a projection."""
    if series is None or series.projection.days_to_eol is None:
        return None
    return _ratio(series.wear_fit.quantisation_error_pct)


def _device_keys(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute("SELECT DISTINCT device_key FROM health_samples ORDER BY device_key")
    return [str(row[0]) for row in rows.fetchall()]


def _host_of(conn: sqlite3.Connection, stored: StoredHealthSample) -> str:
    run = load_run(conn, stored.run_id)
    return run.host if run is not None else ""


def drive_states(conn: sqlite3.Connection) -> tuple[DriveState, ...]:
    """Every drive with stored health samples, in device-key order."""
    drives = []
    for key in _device_keys(conn):
        stored = load_health_samples(conn, key=key)
        if not stored:
            continue
        samples = [s.sample for s in stored]
        drives.append(drive_state(_host_of(conn, stored[-1]), samples, _rating(conn, samples[-1])))
    return tuple(drives)


def _run_labels(conn: sqlite3.Connection, run: RunRecord) -> DriveLabels:
    """The drive a run measured: its own health samples' identity, else the block device
    ssdlab recorded for the target, else no drive labels."""
    samples = load_health_samples(conn, run_id=run.run_id)
    if samples:
        return _labels(run.host, samples[-1].sample.identity)
    row = conn.execute(
        "SELECT d.model, d.serial, d.firmware FROM runs r JOIN devices d ON d.id = r.device_id"
        " WHERE r.id = ?",
        (run.run_id,),
    ).fetchone()
    if row is None:
        return DriveLabels(run.host, "", "", "")
    return DriveLabels(run.host, _text(row[1]), _text(row[0]), _text(row[2]))


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if known and len(known) == len(values) else None


def _p99_ns(step: StepResult) -> float | None:
    sides = [m for m in (step.read, step.write) if m is not None]
    if step.direction in ("read", "write"):
        sides = [m for m in sides if m is (step.read if step.direction == "read" else step.write)]
    if len(sides) != 1:
        return None  # a mixed test has two distributions: no one p99
    return next((float(ns) for pct, ns in sides[0].clat_percentiles_ns if pct == 99.0), None)


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
        p99 = _mean([_p99_ns(s) for s in group])
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


def _baseline(conn: sqlite3.Connection, run_id: int) -> tuple[str | None, dict[str, bool]]:
    """The name of the baseline the run was judged against and each test's regression flag."""
    body = run_baseline(conn, run_id)
    if body is None or not isinstance(body.get("name"), str):
        return None, {}
    flags = {}
    for test in body.get("tests") or ():
        if isinstance(test, dict) and isinstance(test.get("regression"), bool):
            flags[str(test.get("key"))] = test["regression"]
    return body["name"], flags


def _benchmark_state(
    conn: sqlite3.Connection, run: RunRecord, labels: DriveLabels
) -> BenchmarkState:
    tests = benchmark_tests(load_step_results(conn, run.run_id), run.ended_at_s)
    name, flags = _baseline(conn, run.run_id)
    if name is not None:
        tests = [dataclasses.replace(t, regression=flags.get(t.test)) for t in tests]
    return BenchmarkState(labels=labels, run_id=run.run_id, tests=tuple(tests), baseline=name)


def _quick_runs(conn: sqlite3.Connection) -> list[RunRecord]:
    rows = conn.execute(
        "SELECT id FROM runs WHERE profile = 'quick' AND kind != 'import' AND status = ?"
        " ORDER BY started_at_s, id",
        (RunStatus.COMPLETE.value,),
    ).fetchall()
    return [run for (run_id,) in rows if (run := load_run(conn, int(run_id))) is not None]


def benchmark_states(conn: sqlite3.Connection) -> tuple[BenchmarkState, ...]:
    """The latest complete quick run of each drive (imported runs left out)."""
    latest: dict[DriveLabels, RunRecord] = {}
    for run in _quick_runs(conn):
        latest[_run_labels(conn, run)] = run  # oldest first: the last one wins
    return tuple(_benchmark_state(conn, run, labels) for labels, run in latest.items())


def _progress(fractions: Sequence[float | None]) -> float | None:
    known = [f for f in fractions if f is not None]
    return min(1.0, max(0.0, max(known))) if known else None


def endurance_states(conn: sqlite3.Connection, now_s: float) -> tuple[EnduranceState, ...]:
    """Endurance runs running, or finished in the last week."""
    rows = conn.execute(
        "SELECT id FROM runs WHERE profile = 'endurance' AND (status = ? OR ended_at_s >= ?)"
        " ORDER BY id",
        (RunStatus.RUNNING.value, now_s - RECENT_ENDURANCE_S),
    ).fetchall()
    states = []
    for (run_id,) in rows:
        run = load_run(conn, int(run_id))
        if run is None:
            continue
        status = status_of(profile_results(conn, run.run_id))
        states.append(
            EnduranceState(
                labels=_run_labels(conn, run),
                run=str(run.run_id),
                progress_ratio=_progress([p.fraction for p in status.stop.progress]),
                written_bytes=float(status.written_bytes),
            )
        )
    return tuple(states)


def metrics_state(conn: sqlite3.Connection, now_s: float | None = None) -> MetricsState:
    """Everything `ssdlab metrics` exports, read from the store."""
    return MetricsState(
        drives=drive_states(conn),
        benchmarks=benchmark_states(conn),
        endurance=endurance_states(conn, time.time() if now_s is None else now_s),
    )
