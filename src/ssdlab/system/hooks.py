"""Alert hooks: a program (an argv, never a shell) run with a document on its stdin and a time
limit. Nothing a hook does stops the caller: a hook that cannot start, fails or hangs (it is
killed, with its process group, at the limit) comes back as a result that says so."""

import time
from collections.abc import Sequence
from dataclasses import dataclass

from ssdlab.system.process import run_bounded

OUTPUT_KEPT = 2000  # characters of the hook's stdout/stderr kept in its result


@dataclass(frozen=True, slots=True)
class HookResult:
    """How one hook run went. `error`: why it failed (None when it exited 0)."""

    argv: tuple[str, ...]
    exit_code: int | None
    timed_out: bool
    error: str | None
    stdout: str
    stderr: str
    started_at_s: float
    ended_at_s: float

    @property
    def failed(self) -> bool:
        return self.error is not None


def run_hook(argv: Sequence[str], document: str, timeout_s: float) -> HookResult:
    """Run `argv` (no shell) in a session of its own with `document` on stdin; kill its
    process group at `timeout_s`."""
    if isinstance(argv, str):
        raise TypeError("a hook is a list of arguments, never a command string")
    started = time.time()
    try:
        done = run_bounded(argv, timeout_s=timeout_s, input_text=document)
    except OSError as error:
        reason = "not found" if isinstance(error, FileNotFoundError) else error.strerror
        return HookResult(
            tuple(argv), None, False, f"could not start: {reason}", "", "", started, time.time()
        )
    return HookResult(
        tuple(argv),
        done.exit_code,
        done.timed_out,
        _error(done.exit_code, done.timed_out, timeout_s),
        done.stdout[-OUTPUT_KEPT:],
        done.stderr[-OUTPUT_KEPT:],
        started,
        time.time(),
    )


def _error(exit_code: int | None, timed_out: bool, timeout_s: float) -> str | None:
    if timed_out:
        return f"killed after the {timeout_s:g} s time limit (--hook-timeout)"
    if exit_code is None or exit_code == 0:
        return None
    if exit_code < 0:
        return f"ended by signal {-exit_code}"
    return f"exited with status {exit_code}"
