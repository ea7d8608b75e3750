"""kill -9 an ssdlab process and wait for the fio it started to end, by what /proc shows rather
than by sleeping for as long as a pass takes on an idle machine.

ssdlab starts fio tied to its own life (the kernel sends fio SIGTERM when ssdlab dies, and fio
then stops its job processes), so the fio of a killed ssdlab ends within moments, not at the end
of its job. A test that then resumes or cleans up still waits until it is gone. The ssdlab
process is stopped (SIGSTOP) before the processes below it are listed, so it cannot start one
between the listing and the kill.
"""

import os
import signal
import subprocess
import time
from pathlib import Path

from tests.conftest import HANG_S


def _parents() -> dict[int, int]:
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        # pid (comm) state ppid ...: comm may hold spaces, so split after its closing bracket
        found[int(entry.name)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    return found


def descendants(pid: int) -> list[int]:
    """Every process below `pid`: its children (fio), theirs (fio's job processes), …"""
    parents = _parents()
    found: list[int] = []
    waiting = [pid]
    while waiting:
        current = waiting.pop()
        below = [child for child, parent in parents.items() if parent == current]
        found.extend(below)
        waiting.extend(below)
    return found


def fio_leader(pid: int) -> int | None:
    """The fio that ssdlab (`pid`) started, below its guard: the fio whose parent is not a
    fio (its job processes are); None while there is none."""
    parents = _parents()
    for below in descendants(pid):
        if command_name(below) == "fio" and command_name(parents.get(below, 0)) != "fio":
            return below
    return None


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"  # a zombie has finished


def kill_9(child: "subprocess.Popen[str]") -> list[int]:
    """SIGKILL `child` (an ssdlab process) and return the pids of every process below it at that
    moment (its fio and fio's job processes), for `wait_gone`."""
    os.kill(child.pid, signal.SIGSTOP)
    below = descendants(child.pid)
    child.kill()
    child.communicate(timeout=HANG_S)
    return below


def wait_gone(pids: list[int], timeout_s: float = HANG_S) -> None:
    """Wait until every process in `pids` has exited (a generous bound: a hang detector)."""
    deadline = time.monotonic() + timeout_s
    while any(alive(pid) for pid in pids):
        assert time.monotonic() < deadline, f"processes {pids} still running after {timeout_s} s"
        time.sleep(0.05)


def command_name(pid: int) -> str:
    """/proc/PID/comm ('' once the process is gone)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text(errors="replace").strip()
    except OSError:
        return ""


def runs_job(pid: int, words: str) -> bool:
    """Whether `pid` is a fio whose job file (job.fio in its working directory, one of
    ssdlab's job folders) holds `words`, e.g. 'runtime=600'."""
    if command_name(pid) != "fio":
        return False
    try:
        return words in Path(f"/proc/{pid}/cwd/job.fio").read_text(errors="replace")
    except OSError:
        return False


def wait_for_fio(
    child: "subprocess.Popen[str]", words: str, timeout_s: float = HANG_S
) -> list[int]:
    """Wait until a fio running a job file that holds `words` is below `child` (an ssdlab
    process); its pids. Fails when ssdlab ends first."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = [pid for pid in descendants(child.pid) if runs_job(pid, words)]
        if found:
            return found
        if child.poll() is not None:
            _, err = child.communicate()
            raise AssertionError(f"ssdlab ended (exit {child.returncode}) before fio: {err}")
        assert time.monotonic() < deadline, f"no fio with {words!r} after {timeout_s:g} s"
        time.sleep(0.01)


def signal_during_fio(child: "subprocess.Popen[str]", words: str, signum: int) -> list[int]:
    """Send `signum` to `child` (an ssdlab process) while a fio running a job file that holds
    `words` is below it: ssdlab is stopped (SIGSTOP), and signalled only if such a fio is still
    there (else let go on until the next one), so the signal finds that step under way whatever
    the machine's load. The pids of every process below it then."""
    while True:
        wait_for_fio(child, words)
        os.kill(child.pid, signal.SIGSTOP)
        below = descendants(child.pid)
        found = any(runs_job(pid, words) for pid in below)
        if found:
            os.kill(child.pid, signum)
        os.kill(child.pid, signal.SIGCONT)
        if found:
            return below


def kill_9_during_fio(child: "subprocess.Popen[str]", words: str) -> list[int]:
    """SIGKILL `child` (an ssdlab process) while a fio running a job file that holds `words` is
    below it (see `signal_during_fio`); the pids of every process below it, for `wait_gone`."""
    below = signal_during_fio(child, words, signal.SIGKILL)
    child.communicate(timeout=HANG_S)
    return below


def children(pid: int) -> list[int]:
    """The processes `pid` started that are still there (its fio, for an ssdlab process)."""
    return [child for child, parent in _parents().items() if parent == pid]


def wait_for_fio_processes(child: "subprocess.Popen[str]") -> list[int]:
    """The fio processes below `child` (fio and its job processes), once fio's job process
    has started."""
    deadline = time.monotonic() + HANG_S
    while True:
        found = [pid for pid in descendants(child.pid) if command_name(pid) == "fio"]
        if len(found) >= 2:
            return found
        assert child.poll() is None, "the run ended before its fio was seen"
        assert time.monotonic() < deadline, "no fio job process seen"
        time.sleep(0.02)
