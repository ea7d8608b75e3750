"""The processes below a child, ending them all at once, and a child tied to the life of the
process that started it (PR_SET_PDEATHSIG): real processes, waited for by /proc, never by time."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from ssdlab.system.process import ProcessRunner
from ssdlab.system.process_tree import descendants, kill_tree
from tests.conftest import HANG_S, needs_fio
from tests.e2e.orphans import alive, wait_gone

ROOT = Path(__file__).resolve().parents[3]

# a parent that starts a child in a session of its own (as fio starts its jobs), says both
# pids, and waits
FORKER = textwrap.dedent(
    """
    import json, subprocess, sys, time
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True
    )
    print(json.dumps([child.pid]), flush=True)
    time.sleep(600)
    """
)

# ssdlab in miniature: starts a ten-minute child tied to it, says its pid, waits
TIED = textwrap.dedent(
    """
    import json, subprocess, sys, time
    from ssdlab.system.process_tree import end_with_parent
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)"],
        start_new_session=True,
        preexec_fn=end_with_parent(),
    )
    print(json.dumps([child.pid]), flush=True)
    time.sleep(600)
    """
)


def _start(script: str) -> tuple["subprocess.Popen[str]", list[int]]:
    env = {"PYTHONPATH": str(ROOT / "src")}
    parent = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env
    )
    assert parent.stdout is not None
    pids: list[int] = json.loads(parent.stdout.readline())
    return parent, pids


def test_descendants_and_kill_tree_reach_a_child_in_a_session_of_its_own() -> None:
    parent, (grandchild,) = _start(FORKER)
    try:
        assert grandchild in descendants(parent.pid)
        kill_tree(parent.pid)  # the parent leads no group of its own: its child is found by pid
        wait_gone([grandchild])
    finally:
        parent.kill()
        parent.communicate()


def test_a_tied_child_ends_when_its_parent_is_killed() -> None:
    parent, (child,) = _start(TIED)
    assert alive(child)
    parent.send_signal(signal.SIGKILL)
    parent.communicate()
    wait_gone([child])  # the kernel sent it SIGTERM


# a tie made in one process, used by a process forked from it: to the child, its parent is not
# the one the tie expects, as when ssdlab died between the fork and the tie
ORPHANED = textwrap.dedent(
    """
    import os, subprocess, sys
    from ssdlab.system.process_tree import end_with_parent
    tie = end_with_parent()
    if os.fork() == 0:
        done = subprocess.run(
            [sys.executable, "-c", "print('started')"], preexec_fn=tie, capture_output=True
        )
        print(done.returncode, repr(done.stdout), flush=True)
        os._exit(0)
    os.wait()
    """
)


def test_a_child_whose_parent_is_gone_before_the_tie_never_starts() -> None:
    done = subprocess.run(
        [sys.executable, "-c", ORPHANED],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "src")},
        check=True,
    )
    assert done.stdout.split() == [str(-signal.SIGKILL), "b''"]


@needs_fio
def test_kill_ends_fio_and_its_job_processes(tmp_path: Path) -> None:
    job = tmp_path / "long.fio"
    job.write_text(
        f"[long]\nfilename={tmp_path / 'data'}\nsize=4m\nrw=randread\nbs=4k\n"
        "time_based\nruntime=600\n"
    )
    runner = ProcessRunner()
    ended: list[int | None] = []
    thread = threading.Thread(
        target=lambda: ended.append(runner.run(["fio", str(job)], tool="fio").exit_code)
    )
    thread.start()
    deadline = time.monotonic() + HANG_S
    fio: list[int] = []
    while len(fio) < 2:  # fio and its job process, which is in a session of its own
        assert time.monotonic() < deadline, "fio started no job process"
        fio = [pid for pid in descendants(os.getpid()) if _runs(pid, job)]
        time.sleep(0.02)
    runner.kill()
    thread.join()
    wait_gone(fio)
    assert ended == [-signal.SIGKILL]


def _runs(pid: int, job: Path) -> bool:
    """Whether `pid` is a fio started with the job file `job` (fio's job processes too)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        name = Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return False
    return name == "fio" and str(job).encode() in argv
