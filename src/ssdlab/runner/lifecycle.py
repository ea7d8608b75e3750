"""The life of a run, shared by every runner: the run row, health before and after, the test
file, signals, and the status written at the end whatever happened in between.

Order of work (each line one transaction in the store):
  run row (status running) → health sample before → test file registered → the runner's own
  work → test file removed → health sample after (not after an interrupt) → run status.
"""

import os
import sqlite3
import time
from collections.abc import Callable

from ssdlab.errors import TargetError
from ssdlab.model.run import Capture, RunStatus
from ssdlab.model.target import FileIdentity, Target
from ssdlab.runner.events import Event, Notice
from ssdlab.runner.run_row import RunHeader, create_run
from ssdlab.store.captures import add_capture
from ssdlab.store.health import add_health_sample
from ssdlab.store.lifecycle import finish_run
from ssdlab.store.run_rows import running_runs_on
from ssdlab.store.test_files import (
    add_test_file,
    mark_test_file_removed,
    open_test_files,
    owned_test_files_at,
    record_test_file_identity,
)
from ssdlab.system.claims import claim_target
from ssdlab.system.environment import run_process_alive
from ssdlab.system.fio import FioTool
from ssdlab.system.health import NO_SMART_NOTE, HealthReading
from ssdlab.system.process import ProcessRunner
from ssdlab.system.write_gate import (
    Removal,
    create_test_file,
    ownership_problem,
    remove_test_file,
)

Work = Callable[[int], tuple[RunStatus, str | None]]
LOOP_NO_SMART = "loop device: no SMART by nature"


def fio_failure(capture: Capture) -> str:
    """fio's exit status and the last lines it printed, for a run's status reason."""
    tail = "\n".join((capture.stderr or capture.stdout).strip().splitlines()[-8:])
    return f"fio exited with status {capture.exit_code}: {tail or '(no message)'}"


def _on_loop(target: Target) -> bool:
    """Whether the device measured (or under a file target) is a loop device."""
    device = target.device
    return device is not None and (device.transport == "loop" or device.name.startswith("loop"))


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

    def _create_run(self, header: RunHeader, target: Target) -> int:
        """The run row, once the target is free: no other live run of this store on it, and
        a reused test file still the one this store created."""
        if target.reuses_test_file:
            self._check_reused_test_file(target.path)
        self._check_no_other_run(target.path)
        return create_run(self._conn, header)

    def _check_no_other_run(self, path: str) -> None:
        """The store's own lock: no two live runs of one store on the same target."""
        for run in running_runs_on(self._conn, path):
            if run_process_alive(run):
                raise TargetError(
                    f"run {run.run_id} (pid {run.pid} on {run.host}) is still running on {path}; "
                    "wait for it to finish or stop it, then try again"
                )

    def _check_reused_test_file(self, path: str) -> None:
        """An existing file is written only when this store recorded creating that very file
        (kept with --keep); a name like ssdlab-….tmp proves nothing."""
        problems = [
            ownership_problem(path, record.identity)
            for record in owned_test_files_at(self._conn, path)
            if record.identity is not None
        ]
        if not problems:
            raise TargetError(
                f"{path} is not a test file this store's runs created (a file named like one, "
                "a link, or one from another store); ssdlab does not overwrite it. Give a "
                "directory (a new test file is made there) or a new file name"
            )
        if all(problem is not None for problem in problems):
            raise TargetError(f"{problems[0]}; ssdlab does not write to it")

    def _live(
        self,
        run_id: int,
        target: Target,
        work: Work,
        *,
        keep_file: bool,
        read_health: Callable[[], HealthReading] | None,
        destructive: bool,
        resumed_file_id: int | None = None,
    ) -> tuple[RunStatus, str | None]:
        """Health before, the work, then cleanup and the final status, whatever happens.
        A resumed run passes the id of the test file its first life registered."""
        for warning in target.warnings:
            self._emit(Notice(warning))
        if read_health is not None:
            self._sample_health(run_id, "before", read_health, loop=_on_loop(target))
        file_id, identity = resumed_file_id, None
        status, reason = RunStatus.COMPLETE, None
        try:
            if resumed_file_id is not None:
                identity = self._recorded_identity(run_id, resumed_file_id)
                problem = ownership_problem(target.path, identity)
                if problem is not None:
                    raise TargetError(f"{problem}; run {run_id} cannot resume on it")
            if target.created_file and file_id is None:
                # registered first, so a crash right after creating it leaves a record
                file_id = add_test_file(self._conn, run_id, target.path, time.time())
                identity = create_test_file(target.path, target.size_bytes)
                record_test_file_identity(self._conn, file_id, identity)
            with claim_target(target, destructive=destructive):
                status, reason = work(run_id)
        except BaseException as error:
            status = RunStatus.INTERRUPTED if self._stop_requested else RunStatus.FAILED
            reason = str(error) or type(error).__name__
            raise
        finally:
            if target.created_file and not keep_file and file_id is not None:
                self._remove_test_file(file_id, target.path, identity)
            if read_health is not None and status is not RunStatus.INTERRUPTED:
                self._sample_health(run_id, "after", read_health)
            finish_run(self._conn, run_id, status, reason, time.time())
        return status, reason

    def _recorded_identity(self, run_id: int, file_id: int) -> FileIdentity | None:
        found = [f for f in open_test_files(self._conn, run_id) if f.file_id == file_id]
        return found[0].identity if found else None

    def _remove_test_file(self, file_id: int, path: str, identity: FileIdentity | None) -> None:
        """Remove the test file if it is still the one ssdlab created; say so when it is not."""
        if identity is None and not os.path.lexists(path):
            removal = Removal.GONE  # never created (fio or the creation failed first)
        else:
            removal = remove_test_file(path, identity)
        if removal is Removal.NOT_OURS:
            self._emit(
                Notice(f"{path} was not removed: it is no longer the test file ssdlab created")
            )
        mark_test_file_removed(self._conn, file_id, time.time())

    def _sample_health(
        self,
        run_id: int,
        phase: str,
        read_health: Callable[[], HealthReading],
        *,
        loop: bool = False,
    ) -> None:
        """A health sample before or after the run; missing SMART is a note, never a failure.
        A loop device has no SMART by nature: that is said so, not as a missing drive's."""
        reading = read_health()
        capture_ids = tuple(
            add_capture(self._conn, run_id, capture) for capture in reading.captures
        )
        if reading.sample is not None:
            add_health_sample(self._conn, run_id, phase, reading.sample, capture_ids)
        notes = reading.notes
        if loop:  # said of a loop device, the missing drive's note would mislead
            notes = tuple(LOOP_NO_SMART if n == NO_SMART_NOTE else n for n in notes)
        if phase == "before" and notes:
            self._emit(Notice("health: " + "; ".join(notes)))

    def _wait(self, seconds: float) -> None:
        """Sleep, waking early when a stop is requested."""
        deadline = time.monotonic() + seconds
        while not self._stop_requested:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._sleep(min(0.2, left))
