"""Simulated drives stored as runs, on the same path as measured ones.

A simulated run is a run of kind 'sim' with target kind 'simulated'. What the simulation did is
kept first, as its capture (the configuration, the workload and, for a trace, the trace file
verbatim); then each simulated drive ("point": one for `ssdlab sim`, one per value of a sweep)
becomes

- a step result keyed 'write' (a sweep: 'p1', 'p2', …) whose per-interval series is the
  simulated write throughput, so the `cache` profile's cliff analysis reads it as it reads
  fio's bandwidth log;
- SMART-like health samples, one for the fresh drive and one per interval: host and NAND bytes
  written, erase count min/avg/max, wear used = 100 × average erase count ÷ rated P/E cycles,
  every value's provenance saying 'simulated'; WAF, wear rate and lifetime projection read them
  as they read a drive's SMART data. The samples' times are the simulated clock (the run's
  start plus the drive's simulated busy time), and each point has its own serial number.
- findings: what the simulator itself reported (its WAF and steady WAF) and, for a single run,
  the `cache-cliff` verdict in the `cache` profile's form.

A signal (the CLI's SignalGuard sets the stop flag; the cores check it every 65,536 pages of
work) ends the run `interrupted`: the points that finished are kept as above; the point that
was cut short keeps its capture and the intervals it finished as a *discarded* step (like the
cut-short pass of a measured run: kept as evidence, not analysed: no health samples, no
verdicts), and its `sim-result-<key>` finding says how far it got.

What a run stores is bounded: at most MAX_STORED_INTERVALS intervals over all its points
(about 4.3 kB each: a health sample and a series point), chosen in the CLI by coarsening the
interval, which the stored settings then say.

A single simulation is stored under the `cache` profile (it is a sustained write logged per
interval, what that profile measures), so `compare` sets it beside a real drive's `cache` run
and `run cachefit --from-run` can test a real drive around the cache size it predicts. A sweep
is stored under the profile 'sim-sweep'.
"""

import functools
import json
import math
import platform
import socket
import sqlite3
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

from ssdlab import __version__
from ssdlab.analysis.cliff import detect_cache_cliff
from ssdlab.analysis.profiles.cache import CLIFF
from ssdlab.analysis.write_series import bytes_series
from ssdlab.errors import Interrupted
from ssdlab.model.finding_names import SIM_RESULT
from ssdlab.model.health import DriveIdentity, HealthSample, HealthValue, Provenance
from ssdlab.model.result import DirectionMetrics, SeriesPoint
from ssdlab.model.run import SIM_SWEEP_PROFILE, Capture, RunKind, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import TargetKind
from ssdlab.model.units import format_size
from ssdlab.runner.run_row import RunHeader, create_run
from ssdlab.sim.config import SimConfig
from ssdlab.sim.engine import SimResult, simulate
from ssdlab.sim.ftl import StopCheck
from ssdlab.sim.memory import MemoryLimit
from ssdlab.sim.workload import Workload
from ssdlab.store.captures import add_capture
from ssdlab.store.findings import add_finding
from ssdlab.store.health import add_health_sample
from ssdlab.store.lifecycle import finish_run, to_json
from ssdlab.store.steps import add_step_result

SIM_KIND = RunKind.SIM
SINGLE_PROFILE = "cache"
SIM_PROFILE_VERSION = 1
SAMPLE_PHASE = "simulated"
PROVENANCE_NOTE = "simulated"
STOP_REASON = "stopped by a signal"
# what one run may store: intervals over all its points (each a health sample of ~4 kB with its
# provenance and a series point: 1000 intervals ≈ 4.3 MB), and points in a sweep
MAX_STORED_INTERVALS = 1000
STORED_BYTES_PER_INTERVAL = 4300
MAX_SWEEP_POINTS = 100


@dataclass(frozen=True, slots=True)
class SimPlan:
    """One simulated drive to run: its configuration, workload and how it is labelled."""

    key: str  # 'write' for a single run, 'p1', 'p2', … in a sweep
    label: str
    config: SimConfig
    workload: Workload
    pe_cycles: float | None
    preset: str | None = None
    preset_source: str | None = None
    trace_name: str | None = None
    trace_text: str | None = None
    sweep_value: str | None = None


@dataclass(frozen=True, slots=True)
class SimRunSpec:
    """Everything a `sim` command runs: its points and the shared write volume."""

    points: tuple[SimPlan, ...]
    host_bytes: int
    interval_bytes: int
    daily_write_bytes: int
    core: str
    argv: tuple[str, ...]
    sweep_parameter: str | None = None
    interval_requested_bytes: int | None = None  # when the interval was coarsened to bound
    interval_note: str | None = None  # what was coarsened and why
    memory_limit: MemoryLimit | None = None

    @property
    def profile(self) -> str:
        return SINGLE_PROFILE if self.sweep_parameter is None else SIM_SWEEP_PROFILE


def point_settings(plan: SimPlan, spec: SimRunSpec) -> dict[str, Any]:
    """The settings a point is stored with: both spare conventions named, the full config."""
    config = plan.config
    return {
        "key": plan.key,
        "label": plan.label,
        "preset": plan.preset,
        "preset_source": plan.preset_source,
        "logical_bytes": config.logical_bytes,
        "physical_bytes": config.physical_bytes,
        "spare_logical_pct": 100.0 * config.spare_of_logical,
        "spare_physical_pct": 100.0 * config.spare_of_physical,
        "spare_note": "spare of logical = physical ÷ logical − 1 (industry '7 % OP'); spare of "
        "physical = (physical − logical) ÷ physical (MQSim, SimpleSSD); both from the pages "
        "the FTL can use (whole blocks, static SLC pool excluded)",
        "page_bytes": config.page_bytes,
        "pages_per_block": config.pages_per_block,
        "gc": str(config.gc_policy),
        "slc_static_bytes": config.slc_static_bytes,
        "slc_dynamic": config.slc_dynamic,
        "bits_per_cell": config.bits_per_cell,
        "pe_cycles": plan.pe_cycles,
        "workload": plan.workload.describe(),
        "trace": plan.trace_name,
        "sweep_value": plan.sweep_value,
        "host_bytes": spec.host_bytes,
        "interval_bytes": spec.interval_bytes,
        "interval_requested_bytes": spec.interval_requested_bytes,
        "interval_note": spec.interval_note,
        "daily_write_bytes": spec.daily_write_bytes,
        "core": spec.core,
        "config": asdict(config),
    }


def _value(value: float | None, source: str, unit: str, resolution: float | None) -> HealthValue:
    if value is None:
        return HealthValue(None, None)
    return HealthValue(
        float(value),
        Provenance(
            source=f"simulated: {source}",
            raw=value,
            unit=unit,
            resolution=resolution,
            note=PROVENANCE_NOTE,
        ),
    )


def health_samples(
    result: SimResult, plan: SimPlan, identity: DriveIdentity, start_s: float
) -> list[HealthSample]:
    """The fresh drive, then one SMART-like sample at the end of every interval."""
    config = plan.config
    blocks = max(config.total_blocks, 1)
    erase_step = 1.0 / blocks  # one erase moves the average by this much
    pe = plan.pe_cycles
    fresh = config.initial_state == "empty"

    def sample(
        at_s: float,
        host: float,
        read: float,
        nand: float,
        erase: tuple[float, float, float] | None,
    ) -> HealthSample:
        wear = None if erase is None or not pe else 100.0 * erase[1] / pe
        return HealthSample(
            taken_at_s=start_s + at_s,
            identity=identity,
            power_on_hours=_value(at_s / 3600.0, "simulated busy time", "hours", None),
            host_written_bytes=_value(
                host, "SimInterval.host_write_bytes", "byte", config.page_bytes
            ),
            host_read_bytes=_value(read, "SimInterval.host_read_bytes", "byte", config.page_bytes),
            nand_written_bytes=_value(
                nand, "SimInterval.nand_write_bytes", "byte", config.page_bytes
            ),
            wear_used_pct=_value(
                wear,
                "100 × erase_count_avg ÷ rated P/E",
                "%",
                None if not pe else 100.0 * erase_step / pe,
            ),
            erase_count_avg=_value(
                erase and erase[1], "SimInterval.erase_count_avg", "cycles", erase_step
            ),
            erase_count_max=_value(erase and erase[2], "SimInterval.erase_count_max", "cycles", 1),
            erase_count_min=_value(erase and erase[0], "SimInterval.erase_count_min", "cycles", 1),
            rated_pe_cycles=_value(pe, "--pe-cycles / preset", "cycles", None),
            sources=("ssdlab sim",),
        )

    samples = [sample(0.0, 0.0, 0.0, 0.0, (0.0, 0.0, 0.0) if fresh else None)]
    for interval in result.intervals:
        samples.append(
            sample(
                interval.elapsed_s,
                interval.host_write_bytes,
                interval.host_read_bytes,
                interval.nand_write_bytes,
                (interval.erase_count_min, interval.erase_count_avg, interval.erase_count_max),
            )
        )
    return samples


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def write_step(result: SimResult, plan: SimPlan, capture_id: int | None) -> StepResult:
    """The simulated sustained write: per-interval throughput as its series."""
    # an interval that took no simulated time (all NAND times 0) has no throughput: None
    series = tuple(
        SeriesPoint(i.elapsed_s, "write", _finite(i.write_bytes_per_s), None, None)
        for i in result.intervals
    )
    last = result.intervals[-1] if result.intervals else None
    host = float(last.host_write_bytes) if last else 0.0
    elapsed = float(last.elapsed_s) if last else 0.0
    bw = host / elapsed if elapsed > 0 else 0.0
    ios = int(host // plan.config.page_bytes)
    iops = ios / elapsed if elapsed > 0 else 0.0
    metrics = DirectionMetrics(int(host), ios, elapsed, bw, iops, None, None, None, None, None)
    return StepResult(
        step_key=plan.key,
        step_label=plan.label,
        direction="write",
        round_index=1,
        discarded=False,
        bw_bytes_per_s=bw,
        iops=iops,
        lat_mean_ns=None,
        read=None,
        write=metrics,
        capture_id=capture_id,
        series=series,
    )


def _cliff_body(step: StepResult) -> dict[str, Any] | None:
    """The `cache-cliff` finding as the cache profile stores it (cachefit --from-run reads it)."""
    series = bytes_series(step)
    if not series:
        return None
    verdict = detect_cache_cliff(series)
    body = asdict(verdict)
    body["cliff_bytes"] = None if verdict.cliff_bytes is None else round(verdict.cliff_bytes)
    body["total_bytes"] = verdict.total_bytes
    body["simulated"] = True
    return body


def _capture_text(plan: SimPlan, settings: dict[str, Any]) -> str:
    return json.dumps(
        {"simulated": settings, "workload": asdict(replace(plan.workload, trace=()))},
        indent=2,
        sort_keys=True,
        default=str,
    )


def _run_row(spec: SimRunSpec, settings: list[dict[str, Any]]) -> RunHeader:
    first = spec.points[0]
    where = first.preset or format_size(first.config.logical_bytes)
    return RunHeader(
        kind=SIM_KIND,
        profile=spec.profile,
        profile_version=SIM_PROFILE_VERSION,
        preset=first.preset,
        target_kind=TargetKind.SIMULATED,
        target_path=f"simulated:{where}",
        target_json=to_json({"kind": "simulated", "config": settings[0]["config"]}),
        device_id=None,
        settings_json=to_json(
            {**settings[0], "sweep_parameter": spec.sweep_parameter, "points": settings}
        ),
        plan_json=to_json(
            {
                "simulations": [{"key": p.key, "label": p.label} for p in spec.points],
                "host_bytes": spec.host_bytes,
                "interval_bytes": spec.interval_bytes,
            }
        ),
        environment_json=to_json(
            {
                "ssdlab_version": __version__,
                "python_version": platform.python_version(),
                "host": socket.gethostname(),
                "core": spec.core,
            }
        ),
    )


Progress = Callable[[int, int, SimPlan], None]  # (point number from 1, points, point) → None
Simulate = Callable[[SimPlan, SimRunSpec], SimResult]


def simulate_point(
    plan: SimPlan, spec: SimRunSpec, should_stop: StopCheck | None = None
) -> SimResult:
    return simulate(
        plan.config,
        plan.workload,
        host_bytes=spec.host_bytes,
        interval_bytes=spec.interval_bytes,
        core=spec.core,
        should_stop=should_stop,
        memory_limit=spec.memory_limit,
    )


def run_simulation(
    conn: sqlite3.Connection,
    spec: SimRunSpec,
    *,
    on_point: Progress | None = None,
    simulate_one: Simulate | None = None,
    should_stop: StopCheck | None = None,
) -> int:
    """Store the run row, simulate every point and store it (one transaction each), then
    the status. When `should_stop` returns True (a signal) or on Ctrl-C without a handler, the
    points that finished are kept, a cut-short one as a discarded step, and the run is marked
    interrupted (raised as Interrupted)."""
    run_one = simulate_one or functools.partial(simulate_point, should_stop=should_stop)
    stopped = should_stop or (lambda: False)
    now_s = time.time()
    settings = [point_settings(p, spec) for p in spec.points]
    run_id = create_run(conn, _run_row(spec, settings), now_s)
    finished = 0
    cut = 0  # intervals of a point cut short
    try:
        for number, (plan, stored) in enumerate(zip(spec.points, settings, strict=True), 1):
            if stopped():
                raise _Stop(f"{STOP_REASON} before {plan.label}")
            if on_point is not None:
                on_point(number, len(spec.points), plan)
            started = time.time()
            result = run_one(plan, spec)
            ended = time.time()
            if result.stopped:
                _store_cut_point(conn, run_id, spec, plan, stored, result, (started, ended))
                cut = len(result.intervals)
                raise _Stop(
                    f"{STOP_REASON} during {plan.label} after {len(result.intervals)} of "
                    f"{result.planned} intervals"
                )
            _store_point(conn, run_id, spec, plan, stored, result, (now_s, started, ended))
            finished += 1
    except (_Stop, KeyboardInterrupt) as stop:
        reason = str(stop) if isinstance(stop, _Stop) else STOP_REASON
        finish_run(conn, run_id, RunStatus.INTERRUPTED, reason, time.time())
        raise Interrupted(
            f"run {run_id} was interrupted ({reason}); {_kept(finished, len(spec.points), cut)}"
        ) from None
    except BaseException as error:
        finish_run(conn, run_id, RunStatus.FAILED, str(error) or type(error).__name__, time.time())
        raise
    finish_run(conn, run_id, RunStatus.COMPLETE, None, time.time())
    return run_id


class _Stop(Exception):
    """The run was asked to stop (its message is the run's status reason)."""


def _kept(finished: int, points: int, cut: int) -> str:
    """What the store keeps of an interrupted run, for its message."""
    done = (
        f"the {finished} of {points} simulated drives that finished are stored"
        if points > 1
        else "the simulation had finished and is stored"
        if finished
        else ""
    )
    partial = (
        f"the {cut} intervals finished of the drive cut short are kept as a discarded step, "
        "not analysed"
        if cut
        else ""
    )
    return "; ".join(part for part in (done, partial) if part) or "no interval had finished"


def _store_cut_point(
    conn: sqlite3.Connection,
    run_id: int,
    spec: SimRunSpec,
    plan: SimPlan,
    settings: dict[str, Any],
    result: SimResult,
    times: tuple[float, float],
) -> None:
    """A point stopped part-way: its capture and finished intervals, marked discarded."""
    started, ended = times
    capture_id = _add_capture(conn, run_id, spec, plan, settings, result, started, ended)
    if result.intervals:
        step = replace(write_step(result, plan, capture_id), discarded=True)
        add_step_result(conn, run_id, step)
    reported = {
        "core": result.core,
        "stopped": True,
        "intervals": len(result.intervals),
        "intervals_planned": result.planned,
        "host_write_bytes": result.intervals[-1].host_write_bytes if result.intervals else 0,
        "wall_s": ended - started,
        "note": "stopped by a signal; the finished intervals are kept as a discarded step",
    }
    add_finding(conn, run_id, f"{SIM_RESULT}-{plan.key}", "facts", reported, ended)


def _add_capture(
    conn: sqlite3.Connection,
    run_id: int,
    spec: SimRunSpec,
    plan: SimPlan,
    settings: dict[str, Any],
    result: SimResult,
    started: float,
    ended: float,
) -> int:
    files = {plan.trace_name or "trace": plan.trace_text} if plan.trace_text is not None else None
    return add_capture(
        conn,
        run_id,
        Capture(
            tool="ssdlab-sim",
            argv=spec.argv,
            exit_code=130 if result.stopped else 0,
            stdout=_capture_text(plan, settings),
            stderr="stopped by a signal\n" if result.stopped else "",
            started_at_s=started,
            ended_at_s=ended,
            tool_version=f"ssdlab {__version__} ({result.core} core)",
        ),
        files,
    )


def _store_point(
    conn: sqlite3.Connection,
    run_id: int,
    spec: SimRunSpec,
    plan: SimPlan,
    settings: dict[str, Any],
    result: SimResult,
    times: tuple[float, float, float],
) -> None:
    start_s, started, ended = times
    capture_id = _add_capture(conn, run_id, spec, plan, settings, result, started, ended)
    step = write_step(result, plan, capture_id)
    add_step_result(conn, run_id, step)
    identity = DriveIdentity(
        protocol="simulated",
        model=f"ssdlab simulated drive ({plan.preset or 'own configuration'})",
        serial=f"sim-{run_id}-{plan.key}",
        firmware=None,
        capacity_bytes=plan.config.logical_bytes,
    )
    for sample in health_samples(result, plan, identity, start_s):
        add_health_sample(conn, run_id, SAMPLE_PHASE, sample, (capture_id,))
    reported = {
        "core": result.core,
        "waf": result.waf,
        "steady_waf": result.steady_waf,
        "intervals": len(result.intervals),
        "wall_s": ended - started,
    }
    add_finding(conn, run_id, f"{SIM_RESULT}-{plan.key}", "facts", reported, ended)
    if spec.sweep_parameter is None:
        body = _cliff_body(step)
        if body is not None:
            add_finding(conn, run_id, CLIFF, "verdict", body, ended)
