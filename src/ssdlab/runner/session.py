"""One run session: the store, fio, the target checks, the health reader, progress and
signals, wired once for every kind of run.

The command line gives the session its edges (progress, and how a second signal ends the
process); the application makes the plan, and the session does the rest of the wiring
(app/start.py, app/resume.py):

    session = RunSession(database, open_store, edges)
    session.check_target(target, destructive=plan.destructive, destroy_data=destroy_data)
    outcome = session.run(plan, target, calls, keep_file=keep, advice=advice, start_at=start_at)

A second signal ends the process at once with the `advice` for the run under way (`Advice`:
given the run's id once the runner made its row, so that the command it names can be copied).

With `start_at` (`--start-at`, a fleet's synchronized start) the session waits, after every
check and all the wiring, until that wall-clock time, right before the runner makes the run
row; the time asked for is stored in the run's plan (`params`, `start_at_s`) beside the run's
own `started_at_s`, so a fleet can measure how far apart its hosts started. A run that gets
there after its time starts at once and says so; how late is stored too (`start_late_s`). A
fleet also gives the moment it sent the start (`start_sent_at`), which this host's clock is
held against when the start arrives (`clock_problem`): a start that arrived before it was sent,
or long after, tells clocks that disagree from a start-up that merely took long.

Every run row is made by `runner/run_row.create_run`: runs that execute a plan through the
profile runner (quick, every profile, endurance, resume), and the runs a command stores
itself through `session.create_run` (health samples, watch, imports) or `runner/sim.py`.
"""

import functools
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from ssdlab.errors import Interrupted
from ssdlab.model.profile import ProfilePlan, SettingValue
from ssdlab.model.run import Capture, RunKind
from ssdlab.model.target import Target
from ssdlab.model.units import format_time
from ssdlab.runner.events import Event, ProfileRunStarted
from ssdlab.runner.machine_watch import MachineWatch
from ssdlab.runner.pass_latency_monitor import LatencyMonitorRecord, MonitorStart
from ssdlab.runner.profile import Analyse, FactsReading, ProfileOutcome, ProfileRunner, RoundCheck
from ssdlab.runner.run_row import RunHeader, create_run
from ssdlab.runner.thermal_watch import ThermalWatch
from ssdlab.store.devices import upsert_device
from ssdlab.system.devicetarget import check_device_writes
from ssdlab.system.environment import collect_environment
from ssdlab.system.fio import FioTool, check_ioengine, find_fio
from ssdlab.system.health import HealthReading, read_health
from ssdlab.system.health_replay import HealthReplay
from ssdlab.system.latency_monitor import read_c3
from ssdlab.system.machine import LoadProbe, check_machine
from ssdlab.system.openers import refuse_while_fio_writes
from ssdlab.system.process import ProcessRunner
from ssdlab.system.signals import SignalGuard
from ssdlab.system.temperature import read_limits, read_temperatures, temperature_source
from ssdlab.system.virtual_drive_health import is_virtual_drive, read_virtual_drive

FactsReader = Callable[[Target, ProcessRunner], tuple[dict[str, Any], tuple[Capture, ...]]]
HealthSource = Callable[[], HealthReading]
# what a second signal says before the process ends: given the run's id once its row exists
Advice = Callable[[int | None], str]

START_AT_PARAM = "start_at_s"  # the plan's param that records a --start-at
START_LATE_PARAM = "start_late_s"  # how long after its --start-at a run started, when late
LATE_START_LIMIT_S = 5.0  # a --start-at typed this far in the past is refused
CLOCK_LIMIT_S = 5.0  # a host's clock further than this from a fleet seat's refuses its start
# the longest a fleet's start can take from the seat to the run on a node: the seat waits 60 s
# for `ssdlab node start` to answer (fleet/launch.py), then the run itself starts up there
TRANSIT_LIMIT_S = 120.0
FINE_WAIT_S = 0.05  # the last stretch before a start is slept in short steps


def late_start_problem(given: str, start_at: float, now: float) -> str | None:
    """Why a start time typed on this machine (`given`) cannot be kept, it being well past; or
    None. A fleet's start is never refused for being late (`clock_problem` checks its clock)."""
    late = now - start_at
    if late <= LATE_START_LIMIT_S:
        return None
    return (
        f"{given} is {late:.0f} s in the past: the clocks of the hosts may "
        "disagree; check with ssdlab fleet doctor"
    )


def clock_problem(sent_at: float, received_at: float) -> str | None:
    """Whether this host's clock disagrees with a fleet seat's: `sent_at` is the seat's clock
    when it sent the start, `received_at` this host's when the start arrived. With one clock
    the start arrives after it was sent, and within TRANSIT_LIMIT_S; a start that arrives
    more than CLOCK_LIMIT_S before it was sent, or that long after the longest journey, can
    only be a clock that differs (by at least that much). Anything between is a start-up that
    took its time, which the run records when it makes the start late."""
    took = received_at - sent_at
    if took < -CLOCK_LIMIT_S:
        return (
            f"this host's clock is at least {-took:.1f} s behind the fleet seat's (the start "
            "arrived before the seat sent it), so it would start late without knowing; set "
            "both clocks by NTP (ssdlab fleet doctor shows each host's offset)"
        )
    if took > TRANSIT_LIMIT_S + CLOCK_LIMIT_S:
        return (
            f"this host's clock is at least {took - TRANSIT_LIMIT_S:.0f} s ahead of the fleet "
            f"seat's (the start arrived {took:.0f} s after the seat sent it, longer than any "
            f"start takes: {TRANSIT_LIMIT_S:.0f} s); set both clocks by NTP (ssdlab fleet "
            "doctor shows each host's offset)"
        )
    return None


def start_lateness(start_at: float, now: float) -> float | None:
    """How long after `start_at` a run got there (`now`); None when it is in time to wait."""
    return now - start_at if now > start_at else None


def started_params(
    params: tuple[tuple[str, SettingValue], ...], start_at: float, late: float | None
) -> tuple[tuple[str, SettingValue], ...]:
    """A plan's params with the start time it was given and, when it started after it, how
    late (to the millisecond)."""
    added: list[tuple[str, SettingValue]] = [(START_AT_PARAM, start_at)]
    if late is not None:
        added.append((START_LATE_PARAM, round(late, 3)))
    return (*params, *added)


def late_start_notice(start_at: float, late: float, *, fleet: bool) -> str:
    """What a run that got to its start time `late` s after it says as it starts at once."""
    when = format_time(start_at, "millisecond" if start_at % 1 else "second")
    if fleet:
        return (
            f"starting now, {late:.1f} s after the fleet's start time {when}: the start "
            "reached this host late or its checks took long (its clock agrees with the "
            f"seat's); the run records it as {START_LATE_PARAM}"
        )
    return (
        f"starting now, {late:.1f} s after {when}: the checks before the start took that "
        f"long; the run records it as {START_LATE_PARAM}"
    )


def sleep_until(
    start_at: float, stopped: Callable[[], bool], clock: Callable[[], float] = time.time
) -> bool:
    """Sleep until the wall clock reads `start_at` (True), or until `stopped()` (False). Long
    sleeps end `FINE_WAIT_S` before the time and at least every quarter second (a signal is
    seen, a clock stepped by NTP followed); the rest is slept in millisecond steps."""
    while True:
        left = start_at - clock()
        if stopped():
            return False
        if left <= 0:
            return True
        if left > FINE_WAIT_S:
            time.sleep(min(left - FINE_WAIT_S, 0.25))
        else:
            time.sleep(min(left, 0.001))


def _quiet(_text: str) -> None:
    return None


def _cleanup_advice(_run_id: int | None) -> str:
    return "'ssdlab doctor --cleanup' removes any test file left behind"


class ProgressDisplay(Protocol):
    """Shows a run's events while it is open (the command line's bar or lines)."""

    def __call__(self, event: Event) -> None: ...

    def __enter__(self) -> object: ...

    def __exit__(self, *exc: object) -> None: ...


class RunnerFactory(Protocol):
    def __call__(
        self,
        conn: sqlite3.Connection,
        fio: FioTool,
        on_event: Callable[[Event], None],
        processes: ProcessRunner,
    ) -> ProfileRunner: ...


@dataclass(frozen=True, slots=True)
class Edges:
    """What the command line gives a session: where progress goes, and how a second signal
    ends the process at once (after saying what to do next)."""

    progress: Callable[[], ProgressDisplay]
    hard_exit: Callable[[str], None]
    notice: Callable[[str], None] = _quiet  # a line for the user outside a run's progress


@dataclass(frozen=True, slots=True)
class RunCalls:
    """The parts of a profile a run calls: its facts about the target, its round check and
    its analysis (pure), and the runner that executes it."""

    read_facts: FactsReader | None = None
    check_round: RoundCheck | None = None
    analyse: Analyse | None = None
    runner: RunnerFactory = ProfileRunner
    kind: RunKind = RunKind.PROFILE  # the run's kind in the store: quick runs keep their own


class RunSession:
    """The wiring of one command's run; the store is opened and fio found only when needed,
    after the target checks (nothing is created on a device that is refused)."""

    def __init__(
        self,
        database: Path,
        open_store: Callable[[], sqlite3.Connection],
        edges: Edges,
        processes: ProcessRunner | None = None,
    ) -> None:
        self.database = database
        self._open_store = open_store
        self._edges = edges
        self.processes = processes or ProcessRunner()
        # the temperature readings' own: a stop signal stops fio, never a reading
        self.thermal_processes = ProcessRunner()
        self.run_id: int | None = None  # the run under way, once the runner made its row

    @functools.cached_property
    def conn(self) -> sqlite3.Connection:
        return self._open_store()

    @functools.cached_property
    def fio(self) -> FioTool:
        return find_fio(self.processes)

    def check_target(
        self,
        target: Target,
        *,
        destructive: bool,
        destroy_data: str | None,
        ioengine: str | None = None,
    ) -> None:
        """Before anything is opened for writing: no fio still has the target open; a device
        is written only when `--destroy-data` names it and nothing uses it; fio is there (with
        the ioengine asked for)."""
        refuse_while_fio_writes(target.path)
        if destructive:
            check_device_writes(target, destroy_data, self.database)
        if ioengine is not None:
            check_ioengine(self.processes, self.fio, ioengine)

    def health_reader(
        self, target: Target, processes: ProcessRunner | None = None
    ) -> HealthSource | None:
        """The device measured, or the one under a file target; None when there is none.
        Read through the run's process runner, or `processes` (a reader that samples while
        fio runs needs its own, so that a stop signal stops fio, not a health read). A virtual
        drive (`ssdlab sim serve`, or a loop device over it) is read from its health log."""
        device = target.device
        measured = device.path if device is not None else target.path
        if is_virtual_drive(measured):
            return functools.partial(read_virtual_drive, measured)
        if device is None:
            return None
        return functools.partial(
            read_health, device.path, processes or self.processes, usb=device.transport == "usb"
        )

    def run(
        self,
        plan: ProfilePlan,
        target: Target,
        calls: RunCalls,
        *,
        keep_file: bool,
        preset: str | None = None,
        read_health: HealthSource | None = None,
        advice: Advice = _cleanup_advice,
        start_at: float | None = None,
        fleet_start: bool = False,
        latency: MonitorStart | None = None,
    ) -> ProfileOutcome:
        """A new run of the plan: stored as it goes, shown as it goes, stopped by a signal;
        with `start_at`, started at that wall-clock time (nothing of the run stored before;
        its drive's row may be), or at once
        when it is past, storing how late (`fleet_start`: a time a fleet gave, said so)."""
        conn = self.conn
        environment = collect_environment(self.fio.version_text)
        machine = self.machine_watch(target)
        reader = calls.read_facts
        read_facts = None if reader is None else functools.partial(self._facts, reader, target)
        health = read_health if read_health is not None else self.health_reader(target)
        progress = self._edges.progress()
        runner = calls.runner(conn, self.fio, self._watching(progress), self.processes)
        # the drive's row before any wait: runs of one node started together would otherwise
        # queue for the store's write lock at the start time (SQLite's busy wait backs off in
        # steps of up to 100 ms), and start that much apart
        device_id = upsert_device(conn, target.device) if target.device else None
        if start_at is not None:
            late = self.wait_for_start(start_at, fleet=fleet_start)
            plan = replace(plan, params=started_params(plan.params, start_at, late))
        with self.guard(runner.request_stop, runner.kill, self._advice_now(advice)), progress:
            return runner.execute(
                plan,
                target,
                environment,
                device_id=device_id,
                keep_file=keep_file,
                read_health=health,
                read_facts=read_facts,
                analyse=calls.analyse,
                check_round=calls.check_round,
                kind=calls.kind,
                preset=preset,
                machine=machine,
                thermal=self.thermal_watch(target, replayed=isinstance(health, HealthReplay)),
                latency=self.latency_monitor(latency),
            )

    def wait_for_start(
        self, start_at: float, *, fleet: bool = False, clock: Callable[[], float] = time.time
    ) -> float | None:
        """Wait until `start_at` (wall clock, as NTP keeps it alike across hosts), saying so;
        a signal meanwhile ends the command with nothing run or stored. A time already past
        (the start arrived late, or the checks took long) starts at once, saying how late:
        how late it started, or None when it waited."""
        now = clock()
        late = start_lateness(start_at, now)
        if late is not None:
            self._edges.notice(late_start_notice(start_at, late, fleet=fleet))
            return late
        when = format_time(start_at, "millisecond" if start_at % 1 else "second")
        stop: list[str] = []
        with self.guard(lambda: stop.append("stop"), lambda: stop.append("stop"), None):
            self._edges.notice(f"starting at {when}, in {start_at - now:.0f} s")
            if not sleep_until(start_at, lambda: bool(stop), clock):
                raise Interrupted(f"stopped while waiting for {when}; nothing was run or stored")
        return None

    def resume(
        self,
        plan: ProfilePlan,
        run_id: int,
        target: Target,
        calls: RunCalls,
        *,
        advice: Advice,
    ) -> ProfileOutcome:
        """Continue a stopped run on its own target, its test file kept."""
        self.run_id = run_id
        progress = self._edges.progress()
        runner = calls.runner(self.conn, self.fio, progress, self.processes)
        with self.guard(runner.request_stop, runner.kill, self._advice_now(advice)), progress:
            return runner.resume(
                plan,
                run_id,
                target,
                keep_file=True,
                analyse=calls.analyse,
                check_round=calls.check_round,
                machine=self.machine_watch(target),
                thermal=self.thermal_watch(target),
            )

    def machine_watch(self, target: Target) -> MachineWatch:
        """The machine check of a run on `target` (the governor, a virtual machine, the
        devices of the target and the store) and the sampler of its passes."""
        check = check_machine(target, self.database)
        return MachineWatch(check, LoadProbe(check.target_device).snapshot)

    def thermal_watch(self, target: Target, *, replayed: bool = False) -> ThermalWatch:
        """The reading of the target's drive's temperatures each second of every pass, or the
        reason it has none (docs/thermal.md); none when the run's health is a replay of
        another drive's (`--health-replay`), whose temperatures these would not be."""
        if replayed:
            return ThermalWatch(
                None, "", "the drive's health is replayed: its temperatures are not read"
            )
        source = temperature_source(target.device)
        if isinstance(source, str):
            return ThermalWatch(None, "", source)
        read = functools.partial(read_temperatures, source, self.thermal_processes)
        limits = functools.partial(read_limits, source, self.thermal_processes)
        return ThermalWatch(
            read, source.text, read_limits=limits, cancel=self.thermal_processes.kill
        )

    def latency_monitor(self, start: MonitorStart | None) -> LatencyMonitorRecord | None:
        """The C3h reads around the measured passes (--latency-monitor), through the run's
        process runner: they come between passes, never while fio runs."""
        if start is None:
            return None
        return LatencyMonitorRecord(start, functools.partial(read_c3, self.processes, start.device))

    def guard(
        self,
        stop: Callable[[], None],
        kill: Callable[[], None],
        advice: str | Callable[[], str] | None,
    ) -> SignalGuard:
        """The first SIGINT, SIGTERM or SIGHUP calls `stop`; the second `kill`s and ends the
        process at once, saying `advice` (made when it is said, when it is a function;
        without advice, the second only stops too)."""
        if advice is None:
            return SignalGuard(stop, stop)

        def second() -> None:
            kill()
            self._edges.hard_exit(advice if isinstance(advice, str) else advice())

        return SignalGuard(stop, second)

    def _watching(self, progress: Callable[[Event], None]) -> Callable[[Event], None]:
        """`progress`, noting the id of the run under way once the runner made its row."""

        def on_event(event: Event) -> None:
            if isinstance(event, ProfileRunStarted):
                self.run_id = event.run_id
            progress(event)

        return on_event

    def _advice_now(self, advice: Advice) -> Callable[[], str]:
        return lambda: advice(self.run_id)

    def create_run(self, header: RunHeader) -> int:
        """A run the command stores itself (a health sample, a watch, an import)."""
        return create_run(self.conn, header)

    def _facts(self, reader: FactsReader, target: Target) -> FactsReading:
        facts, captures = reader(target, self.processes)
        return facts, tuple(captures)
