"""Run external tools without a shell and keep exactly what happened as a Capture."""

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from ssdlab.errors import ToolError
from ssdlab.model.run import Capture


class ProcessRunner:
    """Runs one child at a time in its own session, so signals reach it only through us.

    `stop()` may be called from a signal handler: it asks the running child to stop with SIGINT
    (fio then ends the job and still prints its results); `kill()` ends it at once.
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
    ) -> Capture:
        if isinstance(argv, str):  # a string would be split by nobody: refuse it loudly
            raise TypeError("argv must be a list of arguments, never a command string")
        started = time.time()
        try:
            child = subprocess.Popen(
                list(argv),
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                errors="replace",
                start_new_session=True,
            )
        except FileNotFoundError as error:
            raise ToolError(
                f"{argv[0]} was not found; run 'ssdlab doctor' to see what to install"
            ) from error
        except OSError as error:
            raise ToolError(f"cannot start {argv[0]}: {error}") from error
        with self._lock:
            self._child = child
        try:
            try:
                stdout, stderr = child.communicate(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                child.send_signal(signal.SIGINT)
                try:
                    stdout, stderr = child.communicate(timeout=10)
                except subprocess.TimeoutExpired:
                    child.kill()
                    stdout, stderr = child.communicate()
                stderr += f"\n[ssdlab: stopped after the {timeout_s:g} s time limit]\n"
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

    def stop(self) -> None:
        """Ask the running child to finish (SIGINT). Safe to call from a signal handler."""
        child = self._child
        if child is not None and child.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGINT)

    def kill(self) -> None:
        """End the running child now (SIGKILL to its process group)."""
        child = self._child
        if child is not None and child.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)
