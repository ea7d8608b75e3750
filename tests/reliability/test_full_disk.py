"""A full disk never hides the runs: on a small tmpfs filled to the last byte, every reading
command still reads the store (opened read-only, dead runs left unmarked and named in one line),
and every writing command says in one line that the disk is full, where (the store, a test
file, an output) and what to do, with nothing written and nothing lost."""

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import needs_fio, needs_root
from tests.e2e.conftest import run_ssdlab, start_ssdlab
from tests.e2e.orphans import kill_9, wait_for_fio, wait_gone

pytestmark = [needs_fio, needs_root, pytest.mark.slow]

QUICK = ["--size", "8MiB", "--measure", "0.3", "--count", "1", "--interval", "0",
         "--preset", "real", "--mode", "read"]  # fmt: skip
ENDURE = ["--size", "8MiB", "--iteration-time", "600", "--for", "3600", "--log-interval", "1"]
READING = {
    "runs": ["runs"],
    "show": ["show", "1"],
    "export": ["export", "1", "--format", "json"],
    "report": ["report", "1", "-o", "{out}/report.md"],
    "compare": ["compare", "1", "1"],
    "metrics": ["metrics"],
    "status": ["status", "2"],
}


def _mount(folder: Path, size: str) -> None:
    folder.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.strip()}")


def _fill(folder: Path) -> Path:
    """Fill the file system of `folder` to its last byte."""
    filler = folder / "filler"
    with contextlib.suppress(OSError), filler.open("wb") as handle:
        while True:
            handle.write(b"\0" * 4096)
            handle.flush()
    assert os.statvfs(folder).f_bavail == 0
    return filler


@contextlib.contextmanager
def _small_disk(folder: Path) -> Iterator[Path]:
    """A 4 MiB tmpfs in `folder`, unmounted afterwards."""
    mount = folder / "small"
    _mount(mount, "4m")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with _small_disk(tmp_path) as mount:
        yield mount


def _one_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def _make_killed_store(disk: Path, work: Path) -> Path:
    """A store on `disk` with a complete quick run (1) and an endurance run whose ssdlab was
    killed (2, still marked running)."""
    db = disk / "ssdlab.db"
    target = work / "target"
    target.mkdir()
    done = run_ssdlab("quick", str(target), *QUICK, "--db", str(db))
    assert done.code == 0, done.stderr
    child = start_ssdlab("endure", str(work / "e.dat"), *ENDURE, "--db", str(db))
    wait_for_fio(child, "runtime=600")  # the first iteration runs
    wait_gone(kill_9(child))
    return db


@pytest.fixture(scope="module")
def killed_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The module's one killed store (`_make_killed_store`, on a 4 MiB tmpfs as the tests'
    own), made once: each full store below is a copy of its files (the store, its -wal and
    its -shm, as the killed ssdlab left them; nothing opens them here), so the two runs cost
    real fio once per module, not once per test."""
    work = tmp_path_factory.mktemp("killed-store")
    with _small_disk(work) as disk:
        yield _make_killed_store(disk, work)


def _full_copy(killed: Path, disk: Path) -> Path:
    """The killed store's files copied onto `disk` (a small tmpfs of its own), then the disk
    filled: the store as `_make_killed_store` would have left it there."""
    for source in killed.parent.glob(f"{killed.name}*"):  # the store, -wal and -shm
        shutil.copyfile(source, disk / source.name)
    _fill(disk)
    return disk / killed.name


@pytest.fixture(scope="module")
def full_store_to_read(
    killed_store: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """A full store the tests only read."""
    work = tmp_path_factory.mktemp("full-store")
    with _small_disk(work) as disk:
        yield _full_copy(killed_store, disk)


@pytest.fixture
def full_store(killed_store: Path, small_disk: Path) -> Path:
    """A full store of the test's own."""
    return _full_copy(killed_store, small_disk)


@pytest.mark.parametrize("command", sorted(READING))
def test_reading_commands_read_a_store_on_a_full_disk(
    full_store_to_read: Path, tmp_path: Path, command: str
) -> None:
    full_store = full_store_to_read
    words = [word.format(out=tmp_path) for word in READING[command]]
    done = run_ssdlab(*words, "--db", str(full_store))
    assert done.code == 0, done.stderr
    assert done.stdout.strip() or command == "report"
    if _status_of_run_2(full_store) == "interrupted":
        # the mark fitted in room SQLite already had (a WAL restarted over its own pages):
        # the store was written, so there is nothing to say
        assert done.stderr == ""
        return
    line = _one_line(done.stderr)
    assert line.startswith("ssdlab: run 2 is shown as running, but its ssdlab has ended"), line
    assert f"{full_store.parent}) is full: make room there" in line


def _status_of_run_2(db: Path) -> str:
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return str(conn.execute("SELECT status FROM runs WHERE id = 2").fetchone()[0])


def test_the_runs_are_all_there_and_the_dead_run_marked_once_there_is_room(
    full_store: Path,
) -> None:
    listed = json.loads(run_ssdlab("runs", "--json", "--db", str(full_store)).stdout)["runs"]
    # still running, unless the mark fitted in room SQLite already had (see above)
    assert [(r["id"], r["status"]) for r in listed] in (
        [(2, "running"), (1, "complete")],
        [(2, "interrupted"), (1, "complete")],
    )
    (full_store.parent / "filler").unlink()
    again = run_ssdlab("runs", "--json", "--db", str(full_store))
    assert again.code == 0, again.stderr
    assert again.stderr == ""
    statuses = [r["status"] for r in json.loads(again.stdout)["runs"]]
    assert statuses == ["interrupted", "complete"]
    with sqlite3.connect(full_store) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_store_whose_wal_index_is_gone_is_read_with_its_last_changes(
    full_store: Path,
) -> None:
    # a store copied without its -shm, or whose -shm was left half-made, on a full disk: the
    # WAL is still read (its index kept in memory), so the killed run is there
    shm = Path(f"{full_store}-shm")
    shm.unlink(missing_ok=True)
    _fill(full_store.parent)  # the room the -shm had is taken too
    done = run_ssdlab("show", "2", "--json", "--db", str(full_store))
    assert done.code == 0, done.stderr
    assert json.loads(done.stdout)["run"]["status"] == "running"
    assert "run 2 is shown as running" in _one_line(done.stderr)


def test_a_writing_command_says_the_store_disk_is_full(full_store: Path, tmp_path: Path) -> None:
    target = tmp_path / "target2"
    target.mkdir()
    done = run_ssdlab("quick", str(target), *QUICK, "--db", str(full_store))
    assert done.code == 1
    line = _one_line(done.stderr)
    assert f"the run store {full_store} cannot be written" in line
    assert "is full: make room there" in line
    assert list(target.iterdir()) == []  # nothing was started


def test_a_test_file_on_a_full_disk_is_named(small_disk: Path, tmp_path: Path) -> None:
    _fill(small_disk)
    db = str(tmp_path / "ssdlab.db")
    done = run_ssdlab("quick", str(small_disk), *QUICK, "--buffered", "--db", db)  # no O_DIRECT
    assert done.code == 1
    line = _one_line(done.stderr)
    assert f"{small_disk} has 0 B free" in line  # where the test file would be made
    assert "free some space or choose a smaller --size" in line
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]


def test_an_output_on_a_full_disk_is_named_and_not_left_cut_short(
    small_disk: Path, tmp_path: Path
) -> None:
    db = tmp_path / "ssdlab.db"
    target = tmp_path / "target"
    target.mkdir()
    assert run_ssdlab("quick", str(target), *QUICK, "--db", str(db)).code == 0
    _fill(small_disk)
    report = small_disk / "report.html"
    done = run_ssdlab("report", "1", "-o", str(report), "--db", str(db))
    assert done.code == 1
    line = _one_line(done.stderr)
    assert f"cannot write {report}: its file system is full" in line
    assert "make room there or give another -o" in line
    assert not report.exists()
