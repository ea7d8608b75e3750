"""kill -9 an ssdlab process and wait for the fio it leaves behind, by what /proc shows rather
than by sleeping for as long as a pass takes on an idle machine.

fio runs in its own session, so it outlives a killed ssdlab and finishes its pass by itself. A
test that then resumes or cleans up must wait until that fio is gone; a fixed sleep is too short
on a loaded machine. The ssdlab process is stopped (SIGSTOP) before its fio children are listed,
so it cannot start one between the listing and the kill.
"""

import os
import signal
import subprocess
import time
from pathlib import Path


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        # pid (comm) state ppid ...: comm may hold spaces, so split after its closing bracket
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def children(pid: int) -> list[int]:
    """The processes `pid` started that are still there (its fio, for an ssdlab process)."""
    return _children(pid)


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"  # a zombie has finished


def kill_9(child: "subprocess.Popen[str]") -> list[int]:
    """SIGKILL `child` (an ssdlab process) and return the pids of the processes it started and
    left running (its fio)."""
    os.kill(child.pid, signal.SIGSTOP)
    orphans = _children(child.pid)
    child.kill()
    child.communicate(timeout=30)
    return orphans


def wait_gone(pids: list[int], timeout_s: float = 120) -> None:
    """Wait until every process in `pids` has exited."""
    deadline = time.monotonic() + timeout_s
    while any(_alive(pid) for pid in pids):
        assert time.monotonic() < deadline, f"processes {pids} still running after {timeout_s} s"
        time.sleep(0.05)
