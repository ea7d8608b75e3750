"""The life of a run, shared by every runner: the run row, health before and after, the test
file, signals, and the status written at the end whatever happened in between.

Order of work (each line one transaction in the store):
  run row (status running) → health sample before → test file registered → the runner's own
  work → test file removed → health sample after (not after an interrupt) → run status.
"""

import os
import socket
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass

from ssdlab.model.run import Capture, Environment, RunStatus
from ssdlab.model.target import Target
from ssdlab.runner.events import Event, Notice
from ssdlab.store import runs as store
from ssdlab.store.health import add_health_sample
from ssdlab.system.environment import read_boot_id, read_pid_namespace
from ssdlab.system.filetarget import remove_test_file
from ssdlab.system.fio import FioTool
from ssdlab.system.health import HealthReading
from ssdlab.system.process import ProcessRunner

Work = Callable[[int], tuple[RunStatus, str | None]]


@dataclass(frozen=True, slots=True)
class RunHeader:
    """What a run row records before any work starts."""

    kind: str
    profile: str
    profile_version: int
    preset: str | None
    target_kind: str
    target_path: str
    settings_json: str
    plan_json: str


def fio_failure(capture: Capture) -> str:
    """fio's exit status and the last lines it printed, for a run's status reason."""
    tail = "\n".join((capture.stderr or capture.stdout).strip().splitlines()[-8:])
    return f"fio exited with status {capture.exit_code}: {tail or '(no message)'}"


class RunnerBase:
    """Owns the store connection, fio and the child process; `request_stop()` may be called
    from a signal handler, `kill()` ends the running child at once."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        fio: FioTool,
        on_event: Callable[[Event], None],
        processes: ProcessRunner | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._conn = conn
        self._fio = fio
        self._emit = on_event
        self._processes = processes or ProcessRunner()
        self._sleep = sleep
        self._stop_requested = False

    def request_stop(self) -> None:
        self._stop_requested = True
        self._processes.stop()

    def kill(self) -> None:
        self._processes.kill()

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def _create_run(
        self, header: RunHeader, target: Target, environment: Environment, device_id: int | None
    ) -> int:
        return store.create_run(
            self._conn,
            store.NewRun(
                kind=header.kind,
                profile=header.profile,
                profile_version=header.profile_version,
                preset=header.preset,
                target_kind=header.target_kind,
                target_path=header.target_path,
                target_json=store.to_json(target),
                device_id=device_id,
                settings_json=header.settings_json,
                plan_json=header.plan_json,
                environment_json=store.to_json(environment),
                started_at_s=time.time(),
                host=socket.gethostname(),
                pid=os.getpid(),
                boot_id=read_boot_id(),
                pid_namespace=read_pid_namespace(),
            ),
        )

    def _live(
        self,
        run_id: int,
        target: Target,
        work: Work,
        *,
        keep_file: bool,
        read_health: Callable[[], HealthReading] | None,
        resumed_file_id: int | None = None,
    ) -> tuple[RunStatus, str | None]:
        """Health before, the work, then cleanup and the final status, whatever happens.
        A resumed run passes the id of the test file its first life registered."""
        for warning in target.warnings:
            self._emit(Notice(warning))
        if read_health is not None:
            self._sample_health(run_id, "before", read_health)
        file_id = resumed_file_id
        if target.created_file and file_id is None:
            file_id = store.add_test_file(self._conn, run_id, target.path, time.time())
        status, reason = RunStatus.COMPLETE, None
        try:
            status, reason = work(run_id)
        except BaseException as error:
            status = RunStatus.INTERRUPTED if self._stop_requested else RunStatus.FAILED
            reason = str(error) or type(error).__name__
            raise
        finally:
            if target.created_file and not keep_file:
                remove_test_file(target.path)
                if file_id is not None:
                    store.mark_test_file_removed(self._conn, file_id, time.time())
            if read_health is not None and status is not RunStatus.INTERRUPTED:
                self._sample_health(run_id, "after", read_health)
            store.finish_run(self._conn, run_id, status, reason, time.time())
        return status, reason

    def _sample_health(
        self, run_id: int, phase: str, read_health: Callable[[], HealthReading]
    ) -> None:
        """A health sample before or after the run; missing SMART is a note, never a failure."""
        reading = read_health()
        capture_ids = tuple(
            store.add_capture(self._conn, run_id, capture) for capture in reading.captures
        )
        if reading.sample is not None:
            add_health_sample(self._conn, run_id, phase, reading.sample, capture_ids)
        if phase == "before" and reading.notes:
            self._emit(Notice("health: " + "; ".join(reading.notes)))

    def _wait(self, seconds: float) -> None:
        """Sleep, waking early when a stop is requested."""
        deadline = time.monotonic() + seconds
        while not self._stop_requested:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._sleep(min(0.2, left))
