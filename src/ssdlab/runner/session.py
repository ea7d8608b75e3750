"""One run session: the store, fio, the target checks, the health reader, progress and
signals, wired once for every kind of run.

A command parses its options and makes its plan; the session does the rest of the wiring;
the command then builds its document and prints it:

    session = RunSession(database, open_store, edges)
    session.check_target(target, destructive=plan.destructive, destroy_data=args.destroy_data)
    outcome = session.run(plan, target, calls, keep_file=args.keep)

Every run row is made by `runner/run_row.create_run`: runs that execute a plan through the
profile runner (quick, every profile, endurance, resume), and the runs a command stores
itself through `session.create_run` (health samples, watch, imports) or `runner/sim.py`.
"""

import functools
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ssdlab.model.profile import ProfilePlan
from ssdlab.model.run import Capture
from ssdlab.model.target import Target
from ssdlab.runner.events import Event
from ssdlab.runner.profile import Analyse, FactsReading, ProfileOutcome, ProfileRunner, RoundCheck
from ssdlab.runner.run_row import RunHeader, create_run
from ssdlab.store import runs as store
from ssdlab.system.devicetarget import check_device_writes
from ssdlab.system.environment import collect_environment
from ssdlab.system.fio import FioTool, check_ioengine, find_fio
from ssdlab.system.health import HealthReading, read_health
from ssdlab.system.openers import refuse_while_fio_writes
from ssdlab.system.process import ProcessRunner
from ssdlab.system.signals import SignalGuard

FactsReader = Callable[[Target, ProcessRunner], tuple[dict[str, Any], tuple[Capture, ...]]]
HealthSource = Callable[[], HealthReading]


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


@dataclass(frozen=True, slots=True)
class RunCalls:
    """The parts of a profile a run calls: its facts about the target, its round check and
    its analysis (pure), and the runner that executes it."""

    read_facts: FactsReader | None = None
    check_round: RoundCheck | None = None
    analyse: Analyse | None = None
    runner: RunnerFactory = ProfileRunner
    kind: str = "profile"  # the run's kind in the store: quick runs keep their own


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
        hard_exit_advice: str = "'ssdlab doctor --cleanup' removes any test file left behind",
    ) -> ProfileOutcome:
        """A new run of the plan: stored as it goes, shown as it goes, stopped by a signal."""
        conn = self.conn
        device_id = store.upsert_device(conn, target.device) if target.device else None
        environment = collect_environment(self.fio.version_text)
        reader = calls.read_facts
        read_facts = None if reader is None else functools.partial(self._facts, reader, target)
        health = read_health if read_health is not None else self.health_reader(target)
        progress = self._edges.progress()
        runner = calls.runner(conn, self.fio, progress, self.processes)
        with self.guard(runner.request_stop, runner.kill, hard_exit_advice), progress:
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
            )

    def resume(
        self,
        plan: ProfilePlan,
        run_id: int,
        target: Target,
        calls: RunCalls,
        *,
        hard_exit_advice: str,
    ) -> ProfileOutcome:
        """Continue a stopped run on its own target, its test file kept."""
        progress = self._edges.progress()
        runner = calls.runner(self.conn, self.fio, progress, self.processes)
        with self.guard(runner.request_stop, runner.kill, hard_exit_advice), progress:
            return runner.resume(
                plan,
                run_id,
                target,
                keep_file=True,
                analyse=calls.analyse,
                check_round=calls.check_round,
            )

    def guard(
        self, stop: Callable[[], None], kill: Callable[[], None], advice: str | None
    ) -> SignalGuard:
        """The first SIGINT, SIGTERM or SIGHUP calls `stop`; the second `kill`s and ends the
        process at once, saying `advice` (without advice, the second only stops too)."""
        if advice is None:
            return SignalGuard(stop, stop)

        def second() -> None:
            kill()
            self._edges.hard_exit(advice)

        return SignalGuard(stop, second)

    def create_run(self, header: RunHeader) -> int:
        """A run the command stores itself (a health sample, a watch, an import)."""
        return create_run(self.conn, header)

    def _facts(self, reader: FactsReader, target: Target) -> FactsReading:
        facts, captures = reader(target, self.processes)
        return facts, tuple(captures)
