"""Faults injected into real ssdlab runs: signals at seeded points of a quick, a PTS and an
endurance run, fio killed from outside, a full disk under the test file and under the store, a
read-only store, and a smartctl that hangs. After each: the store passes `PRAGMA
integrity_check`, nothing that finished is lost, the run's status tells the truth, and no test
file is left behind once `ssdlab doctor --cleanup` has run.

The kill points are drawn from a seeded generator (the seed is in the test id), and every wait
is for an observable state (a row in the store, a process), never a sleep tuned to this machine.
"""

import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import HANG_S, needs_fio
from tests.e2e.conftest import (
    LoopLab,
    needs_loop,
    run,
    run_ssdlab,
    start_ssdlab,
)
from tests.e2e.orphans import fio_leader, signal_during_fio

pytestmark = [needs_fio, pytest.mark.slow]

QUICK = ["--size", "8MiB", "--measure", "0.5", "--count", "3", "--interval", "0",
         "--preset", "real", "--mode", "read"]  # fmt: skip
PTS = ["--round-seconds", "0.3", "--block-sizes", "128KiB", "--wipc-multiple", "0.25",
       "--max-rounds", "6"]  # fmt: skip
ENDURE = ["--size", "8MiB", "--iteration-time", "0.5", "--for", "2.5", "--log-interval", "0.1"]
SIGNALS = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM, "SIGKILL": signal.SIGKILL}


def start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return start_ssdlab(*args, env=env)


def count(db: Path, table: str) -> int:
    if not db.exists():
        return 0
    with contextlib.suppress(sqlite3.OperationalError), sqlite3.connect(db, timeout=5) as conn:
        return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    return 0


def wait_for(db: Path, table: str, at_least: int, child: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + HANG_S
    while count(db, table) < at_least:
        assert child.poll() is None, f"ssdlab ended before {at_least} rows in {table}"
        assert time.monotonic() < deadline, f"fewer than {at_least} rows in {table}"
        time.sleep(0.02)


def steps_of(db: Path) -> list[tuple[str, int, int]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT step_key, round_index, capture_id FROM step_results")
        return [(str(k), int(r), int(c)) for k, r, c in rows.fetchall()]


def assert_store_sound(db: Path) -> None:
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []


def status_after(db: Path) -> tuple[str, str]:
    """The run's status as the next ssdlab command sees it (a dead run is marked then)."""
    runs = json.loads(run_ssdlab("runs", "--json", "--db", str(db)).stdout)["runs"]
    return runs[0]["status"], runs[0]["status_reason"] or ""


def stop_at_seeded_point(
    child: subprocess.Popen[str], db: Path, table: str, seed: int, signum: int, rows: int
) -> int:
    """Wait for a seeded number of rows (1..rows) plus a seeded fraction of a second, then
    send the signal while a fio runs (the run is mid-step however loaded the machine); returns
    the rows seen just before it."""
    rng = random.Random(seed)
    wait_for(db, table, rng.randint(1, rows), child)
    time.sleep(rng.uniform(0.0, 0.4))
    seen = count(db, "step_results")
    signal_during_fio(child, "", signum)
    child.communicate(timeout=HANG_S)
    return seen


def _holds(pid: str, place: str) -> bool:
    """Whether process `pid` is a fio on `place`: one that holds it (or a file below it) open,
    or one still starting in a job folder whose job file names it."""
    with contextlib.suppress(OSError):
        if (Path("/proc") / pid / "comm").read_text().strip() != "fio":
            return False
        with contextlib.suppress(OSError):
            if place in (Path("/proc") / pid / "cwd" / "job.fio").read_text():
                return True
        for fd in (Path("/proc") / pid / "fd").iterdir():
            with contextlib.suppress(OSError):
                link = os.readlink(fd)
                if link == place or link.startswith(place.rstrip("/") + "/"):
                    return True
    return False


def wait_for_orphans(folder: Path) -> None:
    """After SIGKILL the fio child (its own session) finishes its short job by itself; until
    then it holds the target open (so doctor --cleanup rightly keeps the test file)."""
    deadline = time.monotonic() + HANG_S
    while any(_holds(p.name, str(folder)) for p in Path("/proc").iterdir() if p.name.isdigit()):
        assert time.monotonic() < deadline, f"a fio still holds {folder}"
        time.sleep(0.05)


@pytest.mark.parametrize(("name", "seed"), [("SIGINT", 11), ("SIGTERM", 12), ("SIGKILL", 13)])
def test_quick_run_killed_at_a_seeded_point(tmp_path: Path, name: str, seed: int) -> None:
    db, target = tmp_path / "db", tmp_path / "t"
    target.mkdir()
    child = start("quick", str(target), *QUICK, "--db", str(db))
    seen = stop_at_seeded_point(child, db, "step_results", seed, SIGNALS[name], 3)
    wait_for_orphans(target)
    status, reason = status_after(db)
    assert status == "interrupted", reason
    assert len(steps_of(db)) >= seen  # every pass that was stored is still there
    assert_store_sound(db)
    cleanup = run_ssdlab("doctor", "--cleanup", "--db", str(db))
    assert cleanup.code == 0, cleanup.stderr
    assert list(target.iterdir()) == []


@needs_loop
@pytest.mark.loop
@pytest.mark.parametrize(("name", "seed"), [("SIGTERM", 21), ("SIGKILL", 22)])
def test_pts_run_killed_at_a_seeded_point_resumes(
    tmp_path: Path, lab: LoopLab, name: str, seed: int
) -> None:
    device = lab.loop(64 * 2**20).path
    db = tmp_path / "db"
    child = start("run", "pts-tp", device, "--destroy-data", device, *PTS, "--db", str(db))
    stop_at_seeded_point(child, db, "step_results", seed, SIGNALS[name], 4)
    wait_for_orphans(Path(device))
    status, _ = status_after(db)
    assert status == "interrupted"
    kept = steps_of(db)
    assert_store_sound(db)
    resumed = run_ssdlab("resume", "last", "--destroy-data", device, "--db", str(db))
    assert resumed.code == 0, resumed.stderr
    after = steps_of(db)
    keys = [(k, r) for k, r, _ in after]
    assert len(keys) == len(set(keys)), "no step stored twice"
    survivors = {c for _, _, c in after}
    loop_keys = {k for k, _, _ in after if k.startswith("seq-")}
    # steps that were stored stay stored, except a cut-short round, which runs again
    lost = [(k, r, c) for k, r, c in kept if c not in survivors and k not in loop_keys]
    assert lost == []
    assert status_after(db)[0] == "complete"
    assert_store_sound(db)


@pytest.mark.parametrize(("name", "seed"), [("SIGINT", 31), ("SIGTERM", 32)])
def test_endurance_run_stopped_at_a_seeded_point_resumes(
    tmp_path: Path, name: str, seed: int
) -> None:
    db, target = tmp_path / "db", tmp_path / "e.dat"
    child = start("endure", str(target), *ENDURE, "--db", str(db))
    stop_at_seeded_point(child, db, "step_results", seed, SIGNALS[name], 2)
    assert child.returncode == 130
    status, reason = status_after(db)
    assert status == "interrupted"
    assert "signal" in reason
    kept = sorted(r for _, r, _ in steps_of(db))
    assert kept == list(range(1, len(kept) + 1))
    assert target.exists()  # kept for the resume
    resumed = run_ssdlab("endure", "--resume", "last", "--db", str(db))
    assert resumed.code == 0, resumed.stderr
    after = sorted(r for _, r, _ in steps_of(db))
    assert after == list(range(1, len(after) + 1))
    assert after[: len(kept)] == kept
    assert_store_sound(db)
    assert not target.exists()  # a complete run removes the file it made


def test_fio_killed_from_outside_fails_the_run_with_the_reason(tmp_path: Path) -> None:
    db, target = tmp_path / "db", tmp_path / "t"
    target.mkdir()
    slow = [*QUICK[:2], "--measure", "3", "--count", "2", *QUICK[6:]]
    child = start("quick", str(target), *slow, "--db", str(db))
    wait_for(db, "step_results", 1, child)  # the warm-up pass of the first test is stored
    deadline = time.monotonic() + HANG_S
    fio = None
    while fio is None:
        assert time.monotonic() < deadline, "no fio child seen"
        fio = fio_leader(child.pid)
        time.sleep(0.02)
    os.kill(fio, signal.SIGKILL)
    _, stderr = child.communicate(timeout=HANG_S)
    assert child.returncode == 1, stderr
    status, reason = status_after(db)
    assert status == "failed"
    assert "fio" in reason
    assert "Traceback" not in stderr
    with sqlite3.connect(db) as conn:
        codes = [r[0] for r in conn.execute("SELECT exit_code FROM captures WHERE tool = 'fio'")]
    assert any(code != 0 for code in codes)  # the killed fio's evidence is stored
    assert list(target.iterdir()) == []  # the test file is removed even so
    assert_store_sound(db)


@needs_loop
@pytest.mark.loop
def test_a_full_disk_under_the_test_file_is_a_clear_error(tmp_path: Path, lab: LoopLab) -> None:
    mount = lab.mount_new_ext4(lab.loop(8 * 2**20).path)
    db = tmp_path / "db"
    result = run_ssdlab("quick", str(mount), "--size", "64MiB", "--db", str(db))
    assert result.code != 0
    assert "Traceback" not in result.stderr
    assert "free" in result.stderr or "space" in result.stderr
    assert [p.name for p in mount.iterdir() if p.name != "lost+found"] == []


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    with contextlib.suppress(OSError), filler.open("wb") as handle:
        while True:
            handle.write(b"\0" * 65536)
            handle.flush()
            os.fsync(handle.fileno())
    return filler


@needs_loop
@pytest.mark.loop
def test_the_store_disk_filling_up_mid_run_loses_nothing(tmp_path: Path, lab: LoopLab) -> None:
    mount = lab.mount_new_ext4(lab.loop(8 * 2**20).path)
    db = mount / "db"
    target = tmp_path / "e.dat"
    child = start("endure", str(target), *ENDURE[:4], "--for", "60", "--log-interval", "0.05",
                  "--db", str(db))  # fmt: skip
    wait_for(db, "step_results", 2, child)
    filler = _fill(mount)  # the next iteration's raw output no longer fits
    _, stderr = child.communicate(timeout=HANG_S)
    assert child.returncode == 1, stderr
    assert "cannot write to the run store" in stderr
    assert "free space" in stderr
    assert "Traceback" not in stderr
    filler.unlink()
    assert_store_sound(db)
    kept = sorted(r for _, r, _ in steps_of(db))
    assert len(kept) >= 2
    assert kept == list(range(1, len(kept) + 1))
    assert status_after(db)[0] in ("interrupted", "failed")
    resumed = run_ssdlab("endure", "--resume", "last", "--for", "0.1", "--db", str(db))
    assert resumed.code == 0, resumed.stderr  # and the run goes on once there is room
    assert_store_sound(db)


@needs_loop
@pytest.mark.loop
def test_a_read_only_store_is_refused_before_the_target_is_touched(
    tmp_path: Path, lab: LoopLab
) -> None:
    device = lab.loop(4 * 2**20).path
    mount = lab.mount_new_ext4(device)
    run("mount", "-o", "remount,ro", str(mount))
    target = tmp_path / "t"
    target.mkdir()
    result = run_ssdlab("quick", str(target), *QUICK, "--db", str(mount / "db"))
    assert result.code != 0
    assert "Traceback" not in result.stderr
    assert "--db" in result.stderr
    assert list(target.iterdir()) == []  # nothing was created on the target


@needs_loop
@pytest.mark.loop
def test_a_hanging_smartctl_is_cut_off_and_the_run_goes_on(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop().path
    tools = tmp_path / "bin"
    tools.mkdir()
    fake = tools / "smartctl"
    fake.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(600)\n")
    fake.chmod(0o755)
    env = {"PATH": f"{tools}{os.pathsep}{os.environ['PATH']}", "SSDLAB_SMARTCTL_TIMEOUT_S": "1"}
    db = tmp_path / "db"
    result = run_ssdlab("quick", device, *QUICK[:2], "--measure", "0.2", "--count", "1",
                        *QUICK[6:], "--json", "--db", str(db), env=env)  # fmt: skip
    assert result.code == 0, result.stderr
    assert "time limit" in result.stderr or "no JSON" in result.stderr
    with sqlite3.connect(db) as conn:
        stderr = [r[0] for r in conn.execute("SELECT stderr FROM captures WHERE tool = 'smartctl'")]
    assert stderr
    assert all("1 s time limit" in text for text in stderr)
    leftover = subprocess.run(["pgrep", "-f", str(fake)], capture_output=True, check=False)
    assert leftover.returncode != 0, "the hung smartctl was not stopped"
