"""The guard between ssdlab and fio (system/guard.py): a child that ignores the kernel's SIGTERM
when ssdlab dies, and the processes it put in sessions of their own, still end; what the child
says and how it ends reach ssdlab as if the guard were not there.

The stand-in child does what fio does in the window where it ignores SIGTERM (fio 3.33, while
it sets its jobs up): it ignores SIGTERM and has forked a process that called setsid(), as each
fio job process does. The last test kills the parent of a real fio at random moments of its
start."""

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ssdlab.errors import ToolError
from ssdlab.system.process import ProcessRunner
from tests.conftest import HANG_S, needs_fio
from tests.e2e.orphans import alive, command_name, descendants, wait_gone

STUBBORN_FIO = textwrap.dedent(
    """
    import os, signal, sys, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    job = os.fork()
    if job == 0:
        os.setsid()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(600)
        os._exit(0)
    with open(sys.argv[1] + ".tmp", "w") as pids:
        pids.write(f"{os.getpid()} {job}")
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    time.sleep(600)
    """
)

# ssdlab's part, in a process of its own that the test kills: it runs argv below the guard
PARENT = textwrap.dedent(
    """
    import sys
    from ssdlab.system.process import ProcessRunner
    ProcessRunner().run(sys.argv[1:], tool="fio", timeout_s=900, guard=True)
    """
)


def _start_parent(argv: list[str]) -> "subprocess.Popen[str]":
    return subprocess.Popen(
        [sys.executable, "-c", PARENT, *argv],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _wait_for_file(path: Path, parent: "subprocess.Popen[str]") -> str:
    deadline = time.monotonic() + HANG_S
    while not path.exists():
        assert parent.poll() is None, parent.stderr.read() if parent.stderr else ""
        assert time.monotonic() < deadline, "the child never started"
        time.sleep(0.02)
    return path.read_text()


def test_a_child_that_ignores_sigterm_ends_with_its_parent_and_so_do_its_jobs(
    tmp_path: Path,
) -> None:
    pids_file = tmp_path / "pids"
    parent = _start_parent([sys.executable, "-c", STUBBORN_FIO, str(pids_file)])
    child, job = (int(word) for word in _wait_for_file(pids_file, parent).split())
    assert alive(child)
    assert alive(job)
    parent.kill()
    parent.communicate(timeout=HANG_S)
    wait_gone([child, job])  # without the guard both would sleep their ten minutes
    assert not alive(child)
    assert not alive(job)


def test_the_exit_status_and_the_output_come_through() -> None:
    capture = ProcessRunner().run(
        [sys.executable, "-c", "import sys; print('said'); sys.exit(3)"],
        tool="fio",
        timeout_s=900,
        guard=True,
    )
    assert capture.exit_code == 3
    assert capture.stdout == "said\n"
    assert capture.argv[0] == sys.executable  # the capture names the child, not the guard


def test_a_child_killed_by_a_signal_reads_as_killed_by_it() -> None:
    capture = ProcessRunner().run(
        [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGABRT)"],
        tool="fio",
        timeout_s=900,
        guard=True,
    )
    assert capture.exit_code == -signal.SIGABRT


def test_a_stop_reaches_the_child_below_the_guard(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    script = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGINT, lambda *_: sys.exit(5))\n"
        f"open({str(ready)!r}, 'w').close()\n"
        "time.sleep(600)\n"
    )
    capture = ProcessRunner().run(
        [sys.executable, "-c", script],
        tool="fio",
        timeout_s=900,
        should_stop=ready.exists,
        guard=True,
    )
    assert capture.exit_code == 5


def test_a_missing_program_is_named() -> None:
    with pytest.raises(ToolError, match="no-such-fio was not found"):
        ProcessRunner().run(["no-such-fio", "--version"], tool="fio", guard=True)


LIVES = 30
JOB = textwrap.dedent(
    """
    [long]
    filename={path}
    size=4m
    rw=randread
    ioengine=psync
    time_based=1
    runtime=600
    """
)


@needs_fio
@pytest.mark.slow
def test_a_real_fio_never_outlives_a_parent_killed_while_it_starts(tmp_path: Path) -> None:
    """fio ignores SIGTERM in a short window of its start (about 1 start in 100 here); the
    parent is killed at seeded moments of the first 0.4 s after fio appears, and every process
    below it must end, long before fio's ten-minute job would."""
    data = tmp_path / "f.dat"
    data.write_bytes(b"\0" * (4 << 20))
    job = tmp_path / "job.fio"
    job.write_text(JOB.format(path=data))
    rng = random.Random(30)
    survivors = []
    for _ in range(LIVES):
        parent = _start_parent(["fio", "--output-format=json+", str(job)])
        deadline = time.monotonic() + HANG_S
        while not any(command_name(pid) == "fio" for pid in descendants(parent.pid)):
            assert parent.poll() is None, parent.stderr.read() if parent.stderr else ""
            assert time.monotonic() < deadline, "fio never started"
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 0.4))
        os.kill(parent.pid, signal.SIGSTOP)
        below = descendants(parent.pid)
        parent.kill()
        parent.communicate(timeout=HANG_S)
        wait_gone(below, timeout_s=120.0)  # far below the job's 600 s
        survivors += [pid for pid in below if alive(pid)]
    assert survivors == []
