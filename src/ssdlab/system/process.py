"""Run external tools without a shell and keep exactly what happened as a Capture."""

import contextlib
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar, cast

from ssdlab.errors import ToolError
from ssdlab.model.run import Capture
from ssdlab.system.guard import PARENT_GONE, guarded
from ssdlab.system.process_tree import end_with_parent, kill_tree
from ssdlab.system.sandbox import Confinement, confined


class ProcessRunner:
    """Runs one child at a time in its own session, so signals reach it only through us.

    `stop()` may be called from a signal handler: it asks the running child to stop with SIGINT
    (fio then ends the job and still prints its results); `kill()` ends it at once, with every
    process it started (fio's job processes are in sessions of their own).

    A child never outlives ssdlab: the kernel sends it SIGTERM when ssdlab dies, even by
    SIGKILL (`system/process_tree.end_with_parent`). It is tied to the thread that starts it,
    which waits for it in `run()`. fio, which may ignore that SIGTERM, runs below a guard
    (`run(..., guard=True)`, `system/guard.py`) that ends it and its job processes for sure.
    """

    def __init__(self) -> None:
        self._child: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    def run(
        self,
        argv: Sequence[str],
        *,
        tool: str,
        cwd: Path | None = None,
        timeout_s: float | None = None,
        tool_version: str | None = None,
        input_text: str | None = None,
        on_output: Callable[[str], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        guard: bool = False,
        confine: Confinement | None = None,
        binary_stdout: bool = False,
    ) -> Capture:
        """Run `argv` to the end (or the time limit). `on_output`, when given, is called with
        every line (ended by a newline or a carriage return) the child prints on stdout, while
        it runs; the capture still holds all of stdout. While `should_stop()` is true the child
        is asked to stop (SIGINT) once a second: a stop requested while it was being started,
        before `stop()` could see it, or one it missed while setting up, still reaches it.
        With `guard`, `argv` runs below the guard (`system/guard.py`): for fio, whose job
        processes must end with ssdlab even when fio ignores the kernel's SIGTERM. With
        `confine`, `argv` runs confined to a folder (`system/sandbox.py`), below a shielded
        guard; the capture holds `argv` as given. With `binary_stdout`, stdout is read as
        bytes, untranslated, and kept as latin-1 text: a character per byte, so that
        `capture.stdout.encode("latin-1")` gives back a binary output (a raw log page) exactly
        (text mode would turn its carriage returns into newlines)."""
        if binary_stdout and on_output is not None:
            raise ValueError("a binary stdout is read at the end, not line by line")
        if isinstance(argv, str):  # a string would be split by nobody: refuse it loudly
            raise TypeError("argv must be a list of arguments, never a command string")
        command = list(argv)
        if guard or confine is not None:
            if shutil.which(command[0]) is None:
                raise ToolError(
                    f"{argv[0]} was not found; run 'ssdlab doctor' to see what to install"
                )
            if confine is not None:
                command = confined(command, confine.folder, confine.why)
            command = guarded(command, shield=confine is not None)
        started = time.time()
        try:
            child = subprocess.Popen(
                command,
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=not binary_stdout,
                errors=None if binary_stdout else "replace",
                start_new_session=True,
                preexec_fn=end_with_parent(
                    PARENT_GONE if guard or confine is not None else signal.SIGTERM
                ),
            )
        except FileNotFoundError as error:
            raise ToolError(
                f"{argv[0]} was not found; run 'ssdlab doctor' to see what to install"
            ) from error
        except OSError as error:
            raise ToolError(f"cannot start {argv[0]}: {error}") from error
        with self._lock:
            self._child = child
        wait = _StopWatch(child, should_stop)
        try:
            if on_output is not None:
                stdout, stderr, timed_out = _communicate_streaming(
                    child, on_output, timeout_s, wait
                )
                if timed_out:
                    stderr += f"\n[ssdlab: stopped after the {timeout_s:g} s time limit]\n"
            else:
                stdout, stderr = self._communicate(child, timeout_s, wait, binary_stdout)
        finally:
            with self._lock:
                self._child = None
        return Capture(
            tool=tool,
            argv=tuple(argv),
            exit_code=child.returncode,
            stdout=stdout,
            stderr=stderr,
            started_at_s=started,
            ended_at_s=time.time(),
            tool_version=tool_version,
            input_text=input_text,
        )

    @staticmethod
    def _communicate(
        child: "subprocess.Popen[str]",
        timeout_s: float | None,
        wait: "_StopWatch",
        binary_stdout: bool = False,
    ) -> tuple[str, str]:
        def communicate(timeout: float | None = None) -> tuple[str, str]:
            out, err = child.communicate(timeout=timeout)
            if not binary_stdout:
                return out, err
            raw_out, raw_err = cast(bytes, out or b""), cast(bytes, err or b"")
            return raw_out.decode("latin-1"), raw_err.decode("utf-8", errors="replace")

        try:
            stdout, stderr = wait.until_done(timeout_s, communicate)
        except subprocess.TimeoutExpired:
            _interrupt(child)
            try:
                stdout, stderr = communicate(timeout=10)
            except subprocess.TimeoutExpired:
                kill_tree(child.pid)
                stdout, stderr = communicate()
            stderr += f"\n[ssdlab: stopped after the {timeout_s:g} s time limit]\n"
        return stdout, stderr

    def stop(self) -> None:
        """Ask the running child to finish (SIGINT). Safe to call from a signal handler."""
        child = self._child
        if child is not None and child.poll() is None:
            _interrupt(child)

    def kill(self) -> None:
        """End the running child now: SIGKILL to its process group and every process below it
        (fio's job processes, each in a session of its own)."""
        child = self._child
        if child is not None and child.poll() is None:
            kill_tree(child.pid)


_T = TypeVar("_T")
STOP_RESEND_S = 1.0  # while a stop is requested, how often the child is asked again


class _StopWatch:
    """Waits for a child in slices of a second, asking it to stop (SIGINT to its group) at
    each slice while `should_stop()` holds; without `should_stop`, one plain wait."""

    def __init__(
        self, child: "subprocess.Popen[str]", should_stop: Callable[[], bool] | None
    ) -> None:
        self._child = child
        self._should_stop = should_stop

    def until_done(self, timeout_s: float | None, wait: Callable[..., _T]) -> _T:
        """`wait(timeout=…)` until it returns; TimeoutExpired past `timeout_s`."""
        if self._should_stop is None:
            return wait(timeout=timeout_s)
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            if self._should_stop():
                _interrupt(self._child)
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise subprocess.TimeoutExpired(self._child.args, timeout_s or 0.0)
            try:
                return wait(timeout=STOP_RESEND_S if left is None else min(STOP_RESEND_S, left))
            except subprocess.TimeoutExpired:
                continue


def _interrupt(child: "subprocess.Popen[str]") -> None:
    """SIGINT to the child's process group: fio ends its job and prints its results (a
    guard, whose group it is, leaves the signal to fio)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGINT)


def _drain(stream: IO[str], sink: list[str], on_line: Callable[[str], None] | None) -> None:
    # text-mode pipes read with universal newlines: fio's "\r" progress updates end lines too
    for line in iter(stream.readline, ""):
        sink.append(line)
        if on_line is not None and line.strip():
            on_line(line.rstrip("\n"))


def _communicate_streaming(
    child: "subprocess.Popen[str]",
    on_line: Callable[[str], None],
    timeout_s: float | None,
    wait: _StopWatch,
) -> tuple[str, str, bool]:
    """communicate(), but stdout is handed to `on_line` as it arrives. The flag tells whether
    the time limit stopped the child (SIGINT, then SIGKILL after 10 s)."""
    if child.stdout is None or child.stderr is None:
        raise ValueError("the child's stdout and stderr must be pipes")
    out: list[str] = []
    err: list[str] = []
    readers = [
        threading.Thread(target=_drain, args=(child.stdout, out, on_line), daemon=True),
        threading.Thread(target=_drain, args=(child.stderr, err, None), daemon=True),
    ]
    for reader in readers:
        reader.start()
    timed_out = False
    try:
        wait.until_done(timeout_s, child.wait)
    except subprocess.TimeoutExpired:
        timed_out = True
        _interrupt(child)
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            kill_tree(child.pid)
            child.wait()
    for reader in readers:
        reader.join()
    child.stdout.close()
    child.stderr.close()
    return "".join(out), "".join(err), timed_out


KILL_WAIT_S = 5.0  # after SIGKILL, how long to wait for a child's pipes to close


@dataclass(frozen=True, slots=True)
class Bounded:
    """How a time-limited child ended: its exit code, output, and whether it was killed."""

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool


def run_bounded(
    argv: Sequence[str],
    *,
    timeout_s: float,
    input_text: str | None = None,
    env: Mapping[str, str] | None = None,
    ends_with_us: bool = False,
) -> Bounded:
    """Run `argv` (no shell) in a session of its own with `input_text` on stdin (or none);
    past `timeout_s` its whole process group is killed. With `ends_with_us` it is also sent
    SIGTERM when ssdlab dies (a helper of ssdlab's own; a user's hook is left to finish).
    OSError when it cannot start."""
    if isinstance(argv, str):
        raise TypeError("argv must be a list of arguments, never a command string")
    child = subprocess.Popen(
        list(argv),
        stdin=subprocess.PIPE if input_text is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
        env=None if env is None else dict(env),
        preexec_fn=end_with_parent() if ends_with_us else None,
    )
    try:
        stdout, stderr = child.communicate(input_text, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        stdout, stderr = _after_kill(child)
        return Bounded(child.returncode, stdout, stderr, timed_out=True)
    return Bounded(child.returncode, stdout, stderr, timed_out=False)


def _after_kill(child: "subprocess.Popen[str]") -> tuple[str, str]:
    """What a killed child printed; a descendant that left the group and holds the pipes open
    is not waited for."""
    try:
        return child.communicate(timeout=KILL_WAIT_S)
    except subprocess.TimeoutExpired:
        for stream in (child.stdout, child.stderr):
            if stream is not None:
                stream.close()
        child.wait()
        return "", ""
