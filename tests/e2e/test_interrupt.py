"""Ctrl-C, SIGTERM, a second Ctrl-C and kill -9 in the middle of a real quick run."""

import contextlib
import json
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import HANG_S, needs_fio
from tests.e2e.conftest import run_ssdlab, start_ssdlab
from tests.e2e.hints import hinted
from tests.e2e.orphans import kill_9, wait_gone

pytestmark = needs_fio

SLOW = [
    "--size",
    "8MiB",
    "--measure",
    "1",
    "--count",
    "3",
    "--interval",
    "0",
    "--preset",
    "real",
    "--mode",
    "read",
]


def start_quick(target: Path, db: Path) -> subprocess.Popen[str]:
    return start_ssdlab("quick", str(target), *SLOW, "--db", str(db))


def wait_for_steps(db: Path, count: int, timeout_s: float = HANG_S) -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if db.exists():
            with contextlib.suppress(sqlite3.OperationalError):  # schema not created yet
                with sqlite3.connect(db, timeout=5) as conn:
                    found = int(conn.execute("SELECT COUNT(*) FROM step_results").fetchone()[0])
                if found >= count:
                    return found
        time.sleep(0.05)
    raise AssertionError(f"fewer than {count} passes stored after {timeout_s} s")


def stored(db: Path) -> tuple[str, str | None, int]:
    with sqlite3.connect(db) as conn:
        status, reason = conn.execute("SELECT status, status_reason FROM runs").fetchone()
        steps = conn.execute("SELECT COUNT(*) FROM step_results").fetchone()[0]
    return status, reason, int(steps)


def assert_integrity(db: Path) -> None:
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signal_stops_fio_removes_file_keeps_finished_passes(
    tmp_path: Path, signum: signal.Signals
) -> None:
    db = tmp_path / "db"
    target = tmp_path / "t"
    target.mkdir()
    child = start_quick(target, db)
    wait_for_steps(db, 2)
    child.send_signal(signum)
    _, stderr = child.communicate(timeout=HANG_S)
    assert child.returncode == 130, stderr
    assert "interrupted" in stderr
    assert "Traceback" not in stderr
    status, reason, steps = stored(db)
    assert status == "interrupted"
    assert reason
    assert "signal" in reason
    assert 2 <= steps < 8  # what finished is kept; the cut pass is not counted
    assert list(target.iterdir()) == []
    assert_integrity(db)


def test_second_ctrl_c_exits_at_once_and_doctor_cleans_up(tmp_path: Path) -> None:
    db = tmp_path / "db"
    target = tmp_path / "t"
    target.mkdir()
    child = start_quick(target, db)
    wait_for_steps(db, 1)
    # two different signals: two of the same may reach the process as one
    child.send_signal(signal.SIGINT)
    child.send_signal(signal.SIGTERM)
    _, stderr = child.communicate(timeout=HANG_S)
    assert child.returncode == 130
    runs = json.loads(run_ssdlab("runs", "--json", "--db", str(db)).stdout)["runs"]
    assert runs[0]["status"] == "interrupted"
    # the advice it ended with, copied: the test file it made cannot be resumed on
    command = hinted(stderr, "doctor")
    assert command == ["doctor", "--cleanup", "--db", str(db)]
    assert f"stopped at once; 'ssdlab {' '.join(command)}' removes" in stderr
    cleanup = run_ssdlab(*command)
    assert cleanup.code in (0, 1)
    assert list(target.iterdir()) == []
    assert_integrity(db)


def test_kill_9_is_marked_interrupted_next_time_and_cleanup_finds_the_file(
    tmp_path: Path,
) -> None:
    db = tmp_path / "db"
    target = tmp_path / "t"
    target.mkdir()
    child = start_quick(target, db)
    wait_for_steps(db, 2)
    orphans = kill_9(child)
    leftovers = list(target.iterdir())
    assert len(leftovers) == 1
    assert leftovers[0].name.startswith("ssdlab-")
    wait_gone(orphans)  # fio ends with ssdlab; wait for it however loaded the machine
    runs = json.loads(run_ssdlab("runs", "--json", "--db", str(db)).stdout)["runs"]
    assert runs[0]["status"] == "interrupted"
    assert "stopped without finishing" in runs[0]["status_reason"]
    _, _, steps = stored(db)
    assert steps >= 2  # nothing finished was lost
    cleanup = run_ssdlab("doctor", "--cleanup", "--db", str(db), "--json")
    doc = json.loads(cleanup.stdout)
    assert [c["path"] for c in doc["cleanup"]] == [str(leftovers[0])]
    assert list(target.iterdir()) == []
    assert_integrity(db)
