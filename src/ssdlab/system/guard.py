"""The guard: a small process of ssdlab's own between ssdlab and fio, so that fio never
outlives ssdlab.

The kernel tells a child when its parent dies (PR_SET_PDEATHSIG), but telling fio is not
enough: fio 3.33 ignores a SIGTERM that arrives in a short window while it sets its jobs up
(about 1 start in 100 when the signal comes 0–0.4 s after the start, measured here), and its
job processes, each in a session of its own, run on to the end of their job. So ssdlab starts
`python -m ssdlab.guard FIO ARGS…` instead of fio (`guarded()`). The guard:

- is tied to ssdlab (the kernel sends it `PARENT_GONE` when ssdlab dies, even by SIGKILL);
- becomes the subreaper of what it starts, so fio's job processes stay below it even when
  fio itself has ended;
- starts fio in its own process group, so ssdlab's signals to the group (Ctrl-C, stop) reach
  fio exactly as before, and ignores them itself;
- when ssdlab dies: SIGTERM to fio, and after `GRACE_S` SIGKILL to every process still below
  it, until none is left;
- when fio ends: SIGKILL to anything fio left behind, then it ends as fio ended (same exit
  status, or the same signal).

Shielded (`guarded(argv, shield=True)`, `--shield`): for a program that runs fio below it and
must not end on the group's Ctrl-C itself — bubblewrap, which confines fio's client
(system/sandbox.py), dies on SIGINT and takes fio with it before fio can stop cleanly. The
guard then starts it with SIGINT and SIGHUP ignored (fio sets its own handlers, so fio still
gets them); SIGTERM, the guard's own when ssdlab dies, is left to end it.
"""

import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Sequence
from types import FrameType

from ssdlab.system.process_tree import descendants

PARENT_GONE = signal.SIGUSR1  # the signal the kernel sends the guard when ssdlab dies
GRACE_S = 3.0  # after ssdlab's death, how long fio has to end by itself before SIGKILL
PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>
POLL_S = 0.05


SHIELD = "--shield"
SHIELDED = (signal.SIGINT, signal.SIGHUP)  # the group's signals a shielded child ignores


def guarded(argv: Sequence[str], *, shield: bool = False) -> list[str]:
    """The command that runs `argv` (fio) below a guard; the guard is ssdlab's child and must
    be started with `end_with_parent(PARENT_GONE)`. `shield`: see the module."""
    return [sys.executable, "-m", "ssdlab.guard", *([SHIELD] if shield else []), *argv]


class _ParentGone(Exception):
    """ssdlab died while the guard waited for fio."""


class _Watch:
    def __init__(self) -> None:
        self.gone = False
        self.waiting = False

    def parent_died(self, _signum: int, _frame: FrameType | None) -> None:
        self.gone = True
        if self.waiting:
            raise _ParentGone


def _ignore(_signum: int, _frame: FrameType | None) -> None:
    """A signal to the group is fio's to act on, not the guard's (a caught signal, unlike an
    ignored one, is back to its default in fio after exec)."""


def watch(argv: Sequence[str], *, shield: bool = False) -> int:
    """Run `argv` below the guard to its end, or end it with ssdlab; how it ended as a
    subprocess returncode (the exit status, or minus the signal that ended it). OSError when
    it cannot be started. `shield`: `argv` starts with SIGINT and SIGHUP ignored."""
    watch_state = _Watch()
    signal.signal(PARENT_GONE, watch_state.parent_died)
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) != signal.SIG_IGN:
            # ignored, not caught, is what a child inherits across exec
            signal.signal(signum, signal.SIG_IGN if shield and signum in SHIELDED else _ignore)
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    pid = os.posix_spawnp(argv[0], list(argv), dict(os.environ))
    try:
        watch_state.waiting = True
        if watch_state.gone:
            raise _ParentGone
        _, status = os.waitpid(pid, 0)
        watch_state.waiting = False
    except _ParentGone:
        watch_state.waiting = False
        _end(pid)
        return -signal.SIGTERM
    _end_all_below()
    return os.waitstatus_to_exitcode(status)


def _end(pid: int) -> None:
    """SIGTERM to fio; after GRACE_S, SIGKILL to whatever is still below the guard."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_S
    while time.monotonic() < deadline and _reap():
        time.sleep(POLL_S)
    _end_all_below()


def _reap() -> bool:
    """Collect every child that has ended; whether any child is still alive."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def _end_all_below() -> None:
    """SIGKILL to every process below the guard until none is left (orphans of fio come to
    the guard, its subreaper, and are collected here)."""
    while True:
        below = descendants(os.getpid())
        for pid in below:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if not _reap() and not below:
            return
        time.sleep(POLL_S)
