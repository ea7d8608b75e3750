"""SIGINT, SIGTERM and SIGHUP in the middle of `ssdlab sim`: the run is marked interrupted with
the reason, exit status 130, no traceback, the store intact and readable.

The simulation is made long by its size (100,000 TB of host writes: days on either core), not
by the machine's speed; the signal is sent once the run's row is in the store."""

import contextlib
import json
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import HANG_S
from tests.e2e.conftest import run_ssdlab, start_ssdlab

ENDLESS = ["--capacity", "64MiB", "--pages-per-block", "64", "--write", "100000TB"]


def _default_sighup() -> None:
    # a test run under nohup would hand its SIG_IGN down, and ssdlab keeps an ignored SIGHUP
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def start_sim(db: Path, *extra: str) -> subprocess.Popen[str]:
    return start_ssdlab("sim", *ENDLESS, *extra, "--db", str(db), preexec_fn=_default_sighup)


def wait_for_running_run(db: Path, child: subprocess.Popen[str], timeout_s: float = HANG_S) -> None:
    """Until the run row is stored (a hang guard, not a tuned wait)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise AssertionError(f"ssdlab sim ended early ({child.returncode})")
        if db.exists():
            with contextlib.suppress(sqlite3.OperationalError):  # schema not created yet
                with sqlite3.connect(db, timeout=5) as conn:
                    row = conn.execute("SELECT status FROM runs").fetchone()
                if row is not None and row[0] == "running":
                    return
        time.sleep(0.05)
    child.kill()
    raise AssertionError(f"no running run stored after {timeout_s} s")


def stored_run(db: Path) -> dict[str, object]:
    done = run_ssdlab("runs", "--json", "--db", str(db))
    assert done.code == 0, done.stderr
    (run,) = json.loads(done.stdout)["runs"]
    assert isinstance(run, dict)
    return run


@pytest.mark.parametrize(
    ("signum", "core"),
    [
        (signal.SIGINT, "auto"),
        (signal.SIGTERM, "auto"),
        (signal.SIGHUP, "auto"),
        (signal.SIGTERM, "python"),
    ],
)
def test_a_signal_ends_the_simulation_interrupted(
    tmp_path: Path, signum: signal.Signals, core: str
) -> None:
    db = tmp_path / "db"
    child = start_sim(db, "--core", core)
    wait_for_running_run(db, child)
    child.send_signal(signum)
    _, stderr = child.communicate(timeout=HANG_S)
    assert child.returncode == 130, stderr
    assert "Traceback" not in stderr
    if signum != signal.SIGHUP:  # after a hangup ssdlab's output goes to /dev/null
        assert "interrupted (stopped by a signal" in stderr
    run = stored_run(db)
    assert run["status"] == "interrupted"
    assert "stopped by a signal" in str(run["status_reason"])
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    shown = run_ssdlab("show", "last", "--db", str(db))
    assert shown.code == 0, shown.stderr
    assert "interrupted" in shown.stdout


def test_a_second_signal_exits_at_once_and_the_run_is_marked_interrupted(
    tmp_path: Path,
) -> None:
    db = tmp_path / "db"
    child = start_sim(db)
    wait_for_running_run(db, child)
    child.send_signal(signal.SIGINT)
    child.send_signal(signal.SIGINT)
    _, stderr = child.communicate(timeout=HANG_S)
    assert child.returncode == 130, stderr
    assert "Traceback" not in stderr
    # stopped cleanly, or ended at once and marked by the next start: interrupted either way
    assert stored_run(db)["status"] == "interrupted"


def test_a_sweep_stopped_by_a_signal_is_interrupted(tmp_path: Path) -> None:
    db = tmp_path / "db"
    child = start_ssdlab("sim", "sweep", "--spare", "7,28", *ENDLESS, "--db", str(db))
    wait_for_running_run(db, child)
    child.send_signal(signal.SIGTERM)
    _, stderr = child.communicate(timeout=HANG_S)
    assert child.returncode == 130, stderr
    assert "Traceback" not in stderr, stderr
    assert "0 of 2 simulated drives that finished are stored" in stderr
    assert stored_run(db)["status"] == "interrupted"
