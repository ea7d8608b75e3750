"""fio never outlives ssdlab: SIGKILL of ssdlab at seeded moments of quick, profile and
endurance runs on files, each followed by a resume of the same run that is killed in turn.

Every fio job of these runs would last ten minutes by itself, so a fio that merely finished its
job would still be there long after the generous wait below: only a fio that ends with ssdlab
passes. Each kill waits for an event first (fio started below ssdlab, or fio's job processes
forked), then a seeded delay; ssdlab is stopped (SIGSTOP), every process below it listed, and
then killed. The test waits for those processes (and any other fio in the run's job folders) to
be gone and counts them: zero. The next `resume` must take the run up again (it marks the dead
run interrupted and starts fio on the same test file); the last one is stopped with Ctrl-C.
Nothing here asserts a duration.
"""

import json
import os
import random
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import HANG_S, needs_fio
from tests.e2e.conftest import run_ssdlab, ssdlab_argv, ssdlab_env, start_ssdlab
from tests.e2e.orphans import alive, command_name, descendants, runs_job

pytestmark = [needs_fio, pytest.mark.slow]

LONG = "runtime=600"  # in every measuring job file of these runs: ten minutes of fio
QUICK = ["--size", "8MiB", "--measure", "600", "--count", "1", "--interval", "0",
         "--preset", "real", "--mode", "read"]  # fmt: skip
SWEEP = ["--size", "8MiB", "--threads", "2", "--iodepths", "1,2", "--workloads",
         "randread:4KiB", "--runtime", "600", "--ramp", "0"]  # fmt: skip
ENDURE = ["--size", "8MiB", "--iteration-time", "600", "--for", "3600", "--log-interval", "1"]
KILLS_PER_RUN = 17  # 3 runs: 51 kills
FIO_ENDS_S = 120.0  # for fio to end: far shorter than its ten-minute job, and a hang guard


@dataclass(frozen=True)
class Kind:
    name: str
    start: list[str]  # a new run: its arguments before --db
    resume: list[str]  # its resume: the run id follows


KINDS = {
    "quick": Kind("quick", ["quick", "{target}", *QUICK], ["resume"]),
    "sweep": Kind("sweep", ["run", "sweep", "{target}", *SWEEP], ["resume"]),
    "endure": Kind("endure", ["endure", "{target}/e.dat", *ENDURE], ["endure", "--resume"]),
}


def _long_fio(pid: int) -> bool:
    """Whether `pid` is a fio running one of the run's ten-minute jobs."""
    return runs_job(pid, LONG)


def _fio_in(folder: Path) -> list[int]:
    """fio processes whose working directory is below `folder` (the run's job folders)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if cwd.startswith(f"{folder}/") and command_name(int(entry.name)) == "fio":
            found.append(int(entry.name))
    return found


def _wait_for(what: str, ready: Callable[[], bool], child: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + HANG_S
    while not ready():
        if child.poll() is not None:
            _, err = child.communicate()
            raise AssertionError(f"ssdlab ended (exit {child.returncode}) before {what}: {err}")
        assert time.monotonic() < deadline, f"no {what} after {HANG_S:g} s"
        time.sleep(0.01)


def _wait_for_kill_point(child: subprocess.Popen[str], rng: random.Random) -> str:
    """Wait for a seeded event (a long fio below ssdlab; or its job processes forked too),
    then a seeded delay; the kill point, for messages."""

    def long_fio() -> list[int]:
        return [pid for pid in descendants(child.pid) if _long_fio(pid)]

    event = rng.choice(["fio started", "fio's jobs forked"])
    if event == "fio started":
        _wait_for("a long fio", lambda: bool(long_fio()), child)
    else:
        _wait_for("fio's job processes", lambda: any(descendants(p) for p in long_fio()), child)
    delay = rng.uniform(0.0, 0.5)
    time.sleep(delay)
    return f"{event} + {delay:.3f} s"


def _kill_and_count(child: subprocess.Popen[str], jobs: Path) -> tuple[list[int], list[int]]:
    """SIGKILL ssdlab (stopped first, the processes below it listed); then wait for those and
    any fio in its job folders to end. The fio processes that were below it, and the processes
    still alive after the wait (empty when they ended with ssdlab)."""
    os.kill(child.pid, signal.SIGSTOP)
    below = descendants(child.pid)
    fio = [pid for pid in below if command_name(pid) == "fio"]
    child.kill()
    child.communicate(timeout=HANG_S)
    deadline = time.monotonic() + FIO_ENDS_S
    while True:
        left = [pid for pid in below if alive(pid)] + _fio_in(jobs)
        if not left or time.monotonic() > deadline:
            return fio, sorted(set(left))
        time.sleep(0.05)


def _steps(db: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT step_key, round_index FROM step_results").fetchall()
    return [(str(key), int(round_index)) for key, round_index in rows]


def _status(db: Path) -> str:
    runs = json.loads(run_ssdlab("runs", "--json", "--db", str(db)).stdout)["runs"]
    assert len(runs) == 1, runs  # every life of the run is the same run
    return str(runs[0]["status"])


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_fio_ends_with_a_killed_ssdlab_and_the_run_resumes(tmp_path: Path, kind: str) -> None:
    spec = KINDS[kind]
    rng = random.Random(f"kill-9-{kind}")
    target, jobs, db = tmp_path / "target", tmp_path / "jobs", tmp_path / "ssdlab.db"
    target.mkdir()
    jobs.mkdir()
    env = {"TMPDIR": str(jobs)}  # fio's job folders, to find any fio of this run
    argv = [word.format(target=target) for word in spec.start]
    kills = []
    for life in range(KILLS_PER_RUN):
        words = argv if life == 0 else [*spec.resume, "1"]
        child = start_ssdlab(*words, "--db", str(db), env=env)
        point = _wait_for_kill_point(child, rng)
        fio, left = _kill_and_count(child, jobs)
        assert fio, f"life {life}, killed at {point}: no fio below ssdlab"
        assert left == [], f"life {life}, killed at {point}: {left} still running"
        kills.append(point)
        assert len(set(_steps(db))) == len(_steps(db)), "a step stored twice"
    assert len(kills) == KILLS_PER_RUN
    # the last life is stopped cleanly: the run is interrupted, and could go on again
    child = start_ssdlab(*spec.resume, "1", "--db", str(db), env=env)
    _wait_for_kill_point(child, rng)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=HANG_S)
    assert child.returncode == 130, err
    assert "Traceback" not in err
    assert _status(db) == "interrupted"
    assert _fio_in(jobs) == []


def test_the_fio_server_of_a_killed_node_command_ends_too(tmp_path: Path) -> None:
    socket = tmp_path / "server" / "fio.sock"
    child = subprocess.Popen(
        ssdlab_argv("node", "fio-server", "--socket", str(socket)),
        env=ssdlab_env(),
        stdin=subprocess.PIPE,  # kept open: closing it would stop the server cleanly
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert json.loads(child.stdout.readline())["socket"] == str(socket)  # fio serves
    fio, left = _kill_and_count(child, tmp_path)
    assert fio, "no fio server was seen"
    assert left == []
