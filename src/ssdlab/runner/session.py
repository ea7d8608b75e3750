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
own `started_at_s`, so a fleet can measure how far apart its hosts started.

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

from ssdlab.errors import Interrupted, SsdlabError
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.run import Capture, RunKind
from ssdlab.model.target import Target
from ssdlab.model.units import format_time
from ssdlab.runner.events import Event, ProfileRunStarted
from ssdlab.runner.machine_watch import MachineWatch
from ssdlab.runner.profile import Analyse, FactsReading, ProfileOutcome, ProfileRunner, RoundCheck
from ssdlab.runner.run_row import RunHeader, create_run
from ssdlab.store.devices import upsert_device
from ssdlab.system.devicetarget import check_device_writes
from ssdlab.system.environment import collect_environment
from ssdlab.system.fio import FioTool, check_ioengine, find_fio
from ssdlab.system.health import HealthReading, read_health
from ssdlab.system.machine import LoadProbe, check_machine
from ssdlab.system.openers import refuse_while_fio_writes
from ssdlab.system.process import ProcessRunner
from ssdlab.system.signals import SignalGuard

FactsReader = Callable[[Target, ProcessRunner], tuple[dict[str, Any], tuple[Capture, ...]]]
HealthSource = Callable[[], HealthReading]
# what a second signal says before the process ends: given the run's id once its row exists
Advice = Callable[[int | None], str]

START_AT_PARAM = "start_at_s"  # the plan's param that records a --start-at
LATE_START_LIMIT_S = 5.0  # a --start-at further in the past is refused
FINE_WAIT_S = 0.05  # the last stretch before a start is slept in short steps


def late_start_problem(given: str, start_at: float, now: float) -> str | None:
    """Why a start time (`given` as typed) cannot be kept, it being well past; or None."""
    late = now - start_at
    if late <= LATE_START_LIMIT_S:
        return None
    return (
        f"{given} is {late:.0f} s in the past: the clocks of the hosts may "
        "disagree; check with ssdlab fleet doctor"
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
        fio runs needs its own, so that a stop signal stops fio, not a health read)."""
        device = target.device
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
    ) -> ProfileOutcome:
        """A new run of the plan: stored as it goes, shown as it goes, stopped by a signal;
        with `start_at`, started at that wall-clock time (nothing stored before)."""
        conn = self.conn
        environment = collect_environment(self.fio.version_text)
        machine = self.machine_watch(target)
        reader = calls.read_facts
        read_facts = None if reader is None else functools.partial(self._facts, reader, target)
        health = read_health if read_health is not None else self.health_reader(target)
        progress = self._edges.progress()
        runner = calls.runner(conn, self.fio, self._watching(progress), self.processes)
        if start_at is not None:
            self.wait_for_start(start_at)
            plan = replace(plan, params=(*plan.params, (START_AT_PARAM, start_at)))
        device_id = upsert_device(conn, target.device) if target.device else None
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
            )

    def wait_for_start(self, start_at: float) -> None:
        """Wait until `start_at` (wall clock, as NTP keeps it alike across hosts), saying so;
        a signal meanwhile ends the command with nothing run or stored."""
        now = time.time()
        problem = late_start_problem(f"{start_at:.3f}", start_at, now)
        if problem is not None:  # the checks and preparation took that long
            raise SsdlabError(f"--start-at {problem}")
        when = format_time(start_at, "millisecond" if start_at % 1 else "second")
        stop: list[str] = []
        with self.guard(lambda: stop.append("stop"), lambda: stop.append("stop"), None):
            if start_at >= now:
                self._edges.notice(f"starting at {when}, in {start_at - now:.0f} s")
            else:
                self._edges.notice(f"starting now, {now - start_at:.1f} s after {when}")
            if not sleep_until(start_at, lambda: bool(stop)):
                raise Interrupted(f"stopped while waiting for {when}; nothing was run or stored")

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
            )

    def machine_watch(self, target: Target) -> MachineWatch:
        """The machine check of a run on `target` (the governor, a virtual machine, the
        devices of the target and the store) and the sampler of its passes."""
        check = check_machine(target, self.database)
        return MachineWatch(check, LoadProbe(check.target_device).snapshot)

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
