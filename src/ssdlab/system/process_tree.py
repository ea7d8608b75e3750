"""The processes below a process, read from /proc, and how a child is tied to ssdlab's life.

fio forks one process per job and each calls setsid(): they are in sessions of their own, not in
fio's process group, so a signal to fio's group does not reach them. Ending fio at once means
ending them by pid too, found here by their parent links.

A child started with `end_with_parent()` as its pre-exec function is sent a signal by the kernel
when ssdlab dies, even by SIGKILL (PR_SET_PDEATHSIG). The kernel sends it when the *thread* that
forked the child ends, so a child must be started by a thread that outlives it: ProcessRunner
waits for its child in the thread that started it.
"""

import contextlib
import ctypes
import functools
import os
import signal
from collections.abc import Callable

# paths as os.path joins them, not pathlib: the fio guard (system/guard.py) starts a Python for
# every fio and imports this module first, and pathlib alone would double its imports' CPU time
ProcRoot = str | os.PathLike[str]
PROC = "/proc"
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _parent_links(proc_root: ProcRoot) -> dict[int, int]:
    """Every process's parent, by pid (field 4 of /proc/PID/stat, after the command name)."""
    links = {}
    try:
        with os.scandir(proc_root) as listing:
            entries = [entry for entry in listing if entry.name.isdigit()]
    except OSError:
        return {}
    for entry in entries:
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = os.path.join(entry.path, "stat")
            with open(stat, encoding="ascii", errors="replace") as handle:
                text = handle.read()
            links[int(entry.name)] = int(text.rsplit(")", 1)[1].split()[1])
    return links


def descendants(pid: int, proc_root: ProcRoot = PROC) -> list[int]:
    """The children of `pid`, their children, and so on (parents before their children)."""
    children: dict[int, list[int]] = {}
    for child, parent in _parent_links(proc_root).items():
        children.setdefault(parent, []).append(child)
    found: list[int] = []
    waiting = list(children.get(pid, []))
    while waiting:
        current = waiting.pop(0)
        if current not in found:
            found.append(current)
            waiting.extend(children.get(current, []))
    return found


def kill_tree(pid: int, proc_root: ProcRoot = PROC) -> None:
    """SIGKILL the process group led by `pid` and every process below it, in sessions of their
    own too. The group is stopped first (SIGSTOP), so it starts nothing between the listing of
    its processes and their end."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGSTOP)
    for below in descendants(pid, proc_root):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(below, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


@functools.cache
def _prctl() -> Callable[..., int] | None:
    """libc's prctl(2), looked up once in ssdlab itself (never in a forked child)."""
    try:
        function: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return function


def end_with_parent(signum: int = signal.SIGTERM) -> Callable[[], None]:
    """A pre-exec function (subprocess's `preexec_fn`) after which the kernel sends the child
    `signum` when the thread that started it ends, ssdlab's death included; a child whose parent
    died before the tie was made is killed before it starts its program.

    fio ends on SIGTERM as on Ctrl-C: it says so on its output, stops its job processes and
    exits. Its output is a pipe to the ssdlab that just died, so the child ignores SIGPIPE (a
    failed write instead): SIGPIPE would end fio before it stopped its jobs."""
    prctl = _prctl()
    parent = os.getpid()

    def tie() -> None:  # runs in the child between fork and exec: nothing that can block
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)
        if os.getppid() != parent:  # ssdlab died before the tie was made: never start
            os.kill(os.getpid(), signal.SIGKILL)

    return tie
