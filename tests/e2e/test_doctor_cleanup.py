"""`ssdlab doctor --cleanup` removes only what nothing may still use: a test file stays while
its run may be alive — recorded in another PID namespace (a container, or the host seen from
one) — or while any process holds it open; a fio job folder stays while its ssdlab lives or a
fio left running by a killed ssdlab still works in it, and goes once both are gone."""

import contextlib
import json
import os
import shlex
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import HANG_S, needs_fio
from tests.e2e.conftest import FAST, Result, run_ssdlab, start_ssdlab

pytestmark = [needs_fio]

WAIT_S = HANG_S


def kept_test_file(tmp_path: Path) -> tuple[Path, Path]:
    """A finished quick run whose test file was kept: (store, test file)."""
    db, folder = tmp_path / "db", tmp_path / "t"
    folder.mkdir()
    done = run_ssdlab("quick", str(folder), *FAST, "--mode", "read", "--keep", "--db", str(db))
    assert done.code == 0, done.stderr
    (test_file,) = folder.iterdir()
    return db, test_file


def doctor(db: Path, temp: Path | None = None, *, cleanup: bool = True) -> Result:
    env = {"TMPDIR": str(temp)} if temp is not None else None
    args = ["doctor", "--json", "--db", str(db), *(["--cleanup"] if cleanup else [])]
    done = run_ssdlab(*args, env=env)
    assert done.code == 0, done.stderr
    return done


def cleanup_of(result: Result) -> dict[str, str]:
    document = json.loads(result.stdout)
    return {str(item["path"]): str(item["removed"]) for item in document["cleanup"]}


def set_run(db: Path, sql: str, *values: object) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(f"UPDATE runs SET {sql}", values)


def run_status(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        return str(conn.execute("SELECT status FROM runs").fetchone()[0])


NO_SUCH_PID = 2**22 + 4321  # above any pid_max
OTHER_NAMESPACE = "pid:[4026599999]"


def test_a_live_run_of_another_pid_namespace_keeps_its_test_file(tmp_path: Path) -> None:
    db, test_file = kept_test_file(tmp_path)
    # a run going on in a container: same host and boot, a pid this namespace does not have
    set_run(db, "status = 'running', pid = ?, pid_namespace = ?", NO_SUCH_PID, OTHER_NAMESPACE)
    doctor(db)
    assert run_status(db) == "running", "a run of another namespace was taken for dead"
    assert test_file.exists()
    # an older host-side ssdlab had already marked it dead: still not removed
    set_run(db, "status = 'interrupted'")
    kept = cleanup_of(doctor(db))[str(test_file)]
    assert test_file.exists()
    assert "another PID namespace" in kept
    # recorded in this namespace, with its process gone: removed
    own = os.readlink("/proc/self/ns/pid")
    set_run(db, "pid_namespace = ?", own)
    doctor(db)
    assert not test_file.exists()


def test_a_test_file_a_process_holds_open_survives_cleanup(tmp_path: Path) -> None:
    db, test_file = kept_test_file(tmp_path)
    with test_file.open("rb"):  # this test's own process holds it
        kept = cleanup_of(doctor(db))[str(test_file)]
        assert test_file.exists()
        assert f"(pid {os.getpid()}) still has it open" in kept
    doctor(db)
    assert not test_file.exists()


def test_the_hint_to_clean_up_again_names_the_store(tmp_path: Path) -> None:
    """'run ssdlab doctor --cleanup again' named no store: copied, it cleaned the default one."""
    db, test_file = kept_test_file(tmp_path)
    with test_file.open("rb"):
        kept = cleanup_of(doctor(db))[str(test_file)]
    hint = kept.split("; run ", 1)[1].removesuffix(" again once it has ended")
    words = shlex.split(hint[1:-1])  # inside the quotes that set it off
    assert words == ["ssdlab", "doctor", "--cleanup", "--db", str(db)]
    assert run_ssdlab(*words[1:]).code == 0
    assert not test_file.exists()


def _fio_in(folder: Path) -> set[int]:
    """fio processes working in (or holding a file in) `folder`: only this test's."""
    found = set()
    prefix = str(folder).rstrip("/") + "/"
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if (entry / "comm").read_text().strip() != "fio":
                continue
            links = [os.readlink(entry / "cwd")]
            links += [os.readlink(fd) for fd in (entry / "fd").iterdir()]
            if any(link == str(folder) or link.startswith(prefix) for link in links):
                found.add(int(entry.name))
    return found


def _holds(path: Path) -> bool:
    """Whether a fio holds `path` open."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if (entry / "comm").read_text().strip() != "fio":
                continue
            if any(os.readlink(fd) == str(path) for fd in (entry / "fd").iterdir()):
                return True
    return False


def _long_pass_running(temp: Path) -> bool:
    """A measured pass (not the short fill) runs: its job folder holds a job with a runtime,
    and a fio works in that folder."""
    for folder in temp.glob("ssdlab-fio-*"):
        with contextlib.suppress(OSError):
            if "runtime=" in (folder / "job.fio").read_text() and _fio_in(folder):
                return True
    return False


def _wait(what: str, check: object, child: subprocess.Popen[str] | None = None) -> None:
    assert callable(check)
    deadline = time.monotonic() + WAIT_S
    while not check():
        assert child is None or child.poll() is None, f"ssdlab ended before {what}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def folders_of(result: Result) -> dict[str, str | None]:
    document = json.loads(result.stdout)
    return {str(f["path"]): f["in_use"] for f in document["job_folders"]}


def start_long_quick(tmp_path: Path) -> tuple[Path, Path, Path, "subprocess.Popen[str]"]:
    """A quick run whose one measured pass lasts ten minutes, with its own TMPDIR (where its
    fio job folder goes): (store, target folder, TMPDIR, the ssdlab process)."""
    db, target, temp = tmp_path / "db", tmp_path / "t", tmp_path / "tmpdir"
    target.mkdir()
    temp.mkdir()
    long = ["--size", "8MiB", "--measure", "600", "--count", "1", "--interval", "0"]
    child = start_ssdlab(
        "quick", str(target), *long, "--preset", "real", "--db", str(db),
        env={"TMPDIR": str(temp)}, output=subprocess.DEVNULL,
    )  # fmt: skip
    return db, target, temp, child


def _fio_working_in(folder: Path, test_file: Path) -> "subprocess.Popen[bytes]":
    """A fio started by hand in a job folder left behind, reading the test file: what an ssdlab
    of another PID namespace, whose fio this doctor cannot tie to it, would leave running."""
    job = folder / "by-hand.fio"
    job.write_text(
        f"[by-hand]\nfilename={test_file}\nrw=read\nbs=4k\nsize=4m\ntime_based\nruntime=600\n"
    )
    return subprocess.Popen(
        ["fio", job.name], cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def test_a_leaked_job_folder_is_removed_only_once_its_ssdlab_and_fio_are_gone(
    tmp_path: Path,
) -> None:
    db, target, temp, child = start_long_quick(tmp_path)
    squatter: subprocess.Popen[bytes] | None = None
    try:
        _wait("a measured pass", lambda: _long_pass_running(temp), child)
        (folder,) = temp.glob("ssdlab-fio-*")
        assert folder.name.startswith(f"ssdlab-fio-{child.pid}-")
        # its ssdlab runs: the folder is in use and stays
        states = folders_of(doctor(db, temp))
        assert states[str(folder)] == f"ssdlab (pid {child.pid}) still runs"
        assert folder.exists()
        child.kill()  # ssdlab dies without cleaning up; its fio ends with it
        child.wait(timeout=WAIT_S)
        _wait("the fio to end with its ssdlab", lambda: not _fio_in(folder))
        (test_file,) = target.iterdir()
        squatter = _fio_working_in(folder, test_file)
        _wait("the fio started by hand to read the test file", lambda: _holds(test_file))
        result = doctor(db, temp)
        assert "still runs in it" in (folders_of(result)[str(folder)] or "")
        assert folder.exists(), "doctor --cleanup removed the folder a fio works in"
        assert "still has it open" in cleanup_of(result)[str(test_file)]
        assert test_file.exists()
        squatter.terminate()  # fio stops its job processes too
        squatter.wait(timeout=WAIT_S)
        _wait("that fio to end", lambda: not _fio_in(folder))
        report = doctor(db, temp, cleanup=False)  # reported, not removed, without --cleanup
        assert folders_of(report) == {str(folder): None}
        assert folder.exists()
        removed = json.loads(doctor(db, temp).stdout)["job_folders_removed"]
        assert removed == [{"path": str(folder), "removed": True}]
        assert not folder.exists()
        assert list(target.iterdir()) == []
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=WAIT_S)
        if squatter is not None and squatter.poll() is None:
            squatter.terminate()
            squatter.wait(timeout=WAIT_S)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_stopped_run_leaves_no_job_folder(tmp_path: Path, signum: int) -> None:
    _, _, temp, child = start_long_quick(tmp_path)
    try:
        _wait("a measured pass", lambda: _long_pass_running(temp), child)
        child.send_signal(signum)
        assert child.wait(timeout=WAIT_S) == 130
        assert list(temp.iterdir()) == []
        assert _fio_in(temp) == set()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=WAIT_S)
