"""The write gate, end to end: nothing ssdlab writes reaches what the user did not name.

Every case runs the real command and hashes what must not change (a loop device, a user's
file, a link's target) before and after. The matrix at the end crosses every kind of path
with every command and flag that writes somewhere other than a named benchmark target.
"""

import contextlib
import errno
import json
import os
import signal
import socket
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import HANG_S, needs_fio
from tests.e2e.conftest import (
    FAST,
    LoopLab,
    Result,
    needs_loop,
    run_ssdlab,
    sha256_of,
    start_ssdlab,
)
from tests.e2e.orphans import wait_for_fio_processes

pytestmark = [needs_fio]
SIZE = 32 * 2**20
WRITE = [*FAST, "--mode", "write"]
SLOW_WRITE = ["--size", "8MiB", "--measure", "1", "--count", "3", "--interval", "0",
              "--preset", "real", "--mode", "write"]  # fmt: skip


def refused(result: Result) -> str:
    assert result.code != 0, result.stdout
    assert "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip(), "a refusal says why"
    return result.stderr


def file_sha(path: Path) -> str:
    return sha256_of(str(path), path.stat().st_size)


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with one finished quick run, for the commands that read runs and write files
    (what it measured does not matter to them: reads only, a third of the passes)."""
    folder = tmp_path_factory.mktemp("stored")
    db = folder / "db"
    target = folder / "t"
    target.mkdir()
    done = run_ssdlab("quick", str(target), *FAST, "--mode", "read", "--db", str(db))
    assert done.code == 0, done.stderr
    return db


# --- the run store (--db) --------------------------------------------------------------------


@needs_loop
@pytest.mark.loop
def test_db_on_a_mounted_block_device_is_refused_and_the_filesystem_survives(
    tmp_path: Path, lab: LoopLab
) -> None:
    loop = lab.loop(SIZE)
    mount_point = lab.mount_new_ext4(loop.path)
    (mount_point / "precious").write_bytes(b"user data\n" * 1000)
    for argv in (
        ["runs"],
        ["show", "last"],
        ["doctor", "--cleanup"],
        ["quick", str(tmp_path), *FAST],
        ["spec", "list"],
    ):
        stderr = refused(run_ssdlab(*argv, "--db", loop.path))
        assert "is a block device" in stderr
        assert "--db" in stderr
    subprocess.run(["umount", str(mount_point)], check=True)
    lab.mounts.remove(mount_point)
    check = subprocess.run(["e2fsck", "-fn", loop.path], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


@needs_loop
@pytest.mark.loop
def test_db_through_a_link_or_with_a_linked_journal_is_refused(
    tmp_path: Path, lab: LoopLab
) -> None:
    device = lab.loop(SIZE, pattern=b"not a store!").path
    before = sha256_of(device, SIZE)
    link = tmp_path / "store.db"
    link.symlink_to(device)
    refused(run_ssdlab("runs", "--db", str(link)))
    link.unlink()
    for side in ("-wal", "-shm", "-journal"):
        sidecar = Path(f"{link}{side}")
        sidecar.symlink_to(device)
        assert "is a block device" in refused(run_ssdlab("runs", "--db", str(link)))
        sidecar.unlink()
    assert not link.exists()
    assert sha256_of(device, SIZE) == before


def test_db_on_the_kernels_filesystems_or_special_files_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in ("/dev/ssdlab-no-such-device", "/proc/ssdlab.db", "/dev/null", str(fifo), "/"):
        refused(run_ssdlab("runs", "--db", path))
    assert not Path("/dev/ssdlab-no-such-device").exists()


# --- outputs (-o, --plots) -------------------------------------------------------------------


@needs_loop
@pytest.mark.loop
def test_outputs_onto_a_device_are_refused(stored: Path, tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(SIZE, pattern=b"keep me!").path
    before = sha256_of(device, SIZE)
    link = tmp_path / "report.html"
    link.symlink_to(device)
    for path in (device, str(link)):
        for argv in (
            ["report", "last", "-o", path],
            ["report", "last", "--format", "md", "-o", path],
            ["export", "last", "--format", "json", "-o", path],
            ["export", "last", "--format", "csv", "-o", path],
        ):
            assert "block device" in refused(run_ssdlab(*argv, "--db", str(stored)))
    assert sha256_of(device, SIZE) == before


def test_outputs_onto_special_files_are_refused_and_regular_files_are_written(
    stored: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    for path in (str(fifo), "/dev/null", str(folder), "/dev/ssdlab-new-report.html"):
        refused(run_ssdlab("report", "last", "-o", path, "--db", str(stored)))
        refused(run_ssdlab("export", "last", "--format", "json", "-o", path, "--db", str(stored)))
    assert not Path("/dev/ssdlab-new-report.html").exists()
    out = tmp_path / "r.json"
    out.write_text("old")
    done = run_ssdlab("export", "last", "--format", "json", "-o", str(out), "--db", str(stored))
    assert done.code == 0, done.stderr
    assert json.loads(out.read_text())["format"]  # an output file the user named is written


# --- test files: owned by what ssdlab recorded, never by name --------------------------------


def test_a_read_test_on_a_file_smaller_than_the_test_is_refused(tmp_path: Path) -> None:
    user_file = tmp_path / "data.bin"
    user_file.write_bytes(os.urandom(3 * 2**20))
    before = file_sha(user_file)
    stderr = refused(
        run_ssdlab("quick", str(user_file), *FAST, "--mode", "read", "--db", str(tmp_path / "db"))
    )
    assert "lay the file out again" in stderr
    assert "--size 3MiB" in stderr
    assert file_sha(user_file) == before
    assert user_file.stat().st_size == 3 * 2**20
    done = run_ssdlab(
        "quick", str(user_file), *FAST, "--size", "2MiB", "--mode", "read", "--db",
        str(tmp_path / "db"),
    )  # fmt: skip
    assert done.code == 0, done.stderr
    assert file_sha(user_file) == before  # a read test within the file reads only


def test_links_named_like_test_files_are_not_test_files(tmp_path: Path) -> None:
    user_file = tmp_path / "thesis.pdf"
    user_file.write_bytes(os.urandom(12 * 2**20))
    before = file_sha(user_file)
    db = str(tmp_path / "db")
    soft = tmp_path / "ssdlab-0123456789ab.tmp"
    soft.symlink_to(user_file)
    assert "symbolic link" in refused(run_ssdlab("quick", str(soft), *WRITE, "--db", db))
    soft.unlink()
    hard = tmp_path / "ssdlab-ba9876543210.tmp"
    os.link(user_file, hard)
    refused(run_ssdlab("quick", str(hard), *WRITE, "--db", db))
    hard.unlink()
    named = tmp_path / "ssdlab-aaaaaaaaaaaa.tmp"
    named.write_bytes(os.urandom(9 * 2**20))
    named_before = file_sha(named)
    assert "not a test file this store" in refused(
        run_ssdlab("quick", str(named), *WRITE, "--db", db)
    )
    assert file_sha(named) == named_before
    dangling = tmp_path / "ssdlab-dddddddddddd.tmp"
    dangling.symlink_to(tmp_path / "elsewhere.bin")
    assert "link to nothing" in refused(run_ssdlab("quick", str(dangling), *WRITE, "--db", db))
    assert not (tmp_path / "elsewhere.bin").exists()
    assert file_sha(user_file) == before


def test_a_kept_test_file_is_reused_only_while_it_is_the_same_file(tmp_path: Path) -> None:
    db = str(tmp_path / "db")
    folder = tmp_path / "t"
    folder.mkdir()
    done = run_ssdlab("quick", str(folder), *WRITE, "--keep", "--db", db)
    assert done.code == 0, done.stderr
    (kept,) = folder.iterdir()
    again = run_ssdlab("quick", str(kept), *WRITE, "--keep", "--db", db)
    assert again.code == 0, again.stderr  # the file this store created: reused
    kept.unlink()
    kept.write_bytes(os.urandom(8 * 2**20))  # someone else's file at the same name
    before = file_sha(kept)
    refused(run_ssdlab("quick", str(kept), *WRITE, "--db", db))
    assert file_sha(kept) == before
    other_store = run_ssdlab("quick", str(kept), *WRITE, "--db", str(tmp_path / "other"))
    assert "not a test file this store" in refused(other_store)


def test_doctor_cleanup_removes_only_the_files_it_created(tmp_path: Path) -> None:
    db = tmp_path / "db"
    folder = tmp_path / "t"
    folder.mkdir()
    assert run_ssdlab("quick", str(folder), *WRITE, "--keep", "--db", str(db)).code == 0
    (kept,) = folder.iterdir()
    with sqlite3.connect(db) as conn:  # mark the run's file as left behind (as after kill -9)
        conn.execute("UPDATE runs SET status = 'interrupted'")
    kept.unlink()
    kept.write_bytes(b"a user's file now")
    stranger = folder / "ssdlab-feedfacecafe.tmp"
    stranger.write_bytes(b"named like a test file, made by nobody ssdlab knows")
    cleanup = run_ssdlab("doctor", "--cleanup", "--directory", str(folder), "--db", str(db))
    assert "Traceback" not in cleanup.stderr
    assert kept.read_bytes() == b"a user's file now"
    assert stranger.exists()


# --- an exclusive claim for the whole destructive run ----------------------------------------


@contextlib.contextmanager
def running(argv: list[str]) -> Iterator[subprocess.Popen[str]]:
    child = start_ssdlab(*argv)
    try:
        yield child
    finally:
        if child.poll() is None:
            child.send_signal(signal.SIGCONT)
            child.send_signal(signal.SIGINT)
        child.communicate(timeout=HANG_S)


def wait_for_steps(db: Path, count: int, child: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + HANG_S  # a hang guard, not a timing assumption
    while time.monotonic() < deadline:
        assert child.poll() is None, child.communicate()
        if db.exists():
            with contextlib.suppress(sqlite3.OperationalError), sqlite3.connect(db) as conn:
                if conn.execute("SELECT COUNT(*) FROM step_results").fetchone()[0] >= count:
                    return
        time.sleep(0.05)
    pytest.fail("the run stored no step")


@needs_loop
@pytest.mark.loop
def test_a_destructive_run_holds_its_device_exclusively(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(SIZE).path
    db = tmp_path / "db"
    argv = ["quick", device, *SLOW_WRITE, "--destroy-data", device, "--db", str(db)]
    with running(argv) as child:
        wait_for_steps(db, 1, child)
        child.send_signal(signal.SIGSTOP)  # it keeps its claim, whatever the machine's speed
        second = run_ssdlab(
            "quick", device, *WRITE, "--destroy-data", device, "--db", str(tmp_path / "db2")
        )
        stderr = refused(second)
        assert "another ssdlab run is writing to" in stderr or "still writes to" in stderr
        same_store = run_ssdlab("quick", device, *WRITE, "--destroy-data", device, "--db", str(db))
        refused(same_store)
        with pytest.raises(OSError, match=os.strerror(errno.EBUSY)) as busy:
            os.open(device, os.O_RDONLY | os.O_EXCL)
        assert busy.value.errno == errno.EBUSY
        for tool in (["mkswap", device], ["mkfs.ext4", "-q", "-F", device]):
            done = subprocess.run(tool, capture_output=True, text=True, check=False)
            assert done.returncode != 0, f"{tool[0]} wrote to a device held by a run"
        assert child.poll() is None
        child.send_signal(signal.SIGCONT)
    fd = os.open(device, os.O_RDONLY | os.O_EXCL)  # released when the run ends
    os.close(fd)


def test_a_test_file_is_held_for_the_whole_run(tmp_path: Path) -> None:
    db = tmp_path / "db"
    folder = tmp_path / "t"
    folder.mkdir()
    assert run_ssdlab("quick", str(folder), *WRITE, "--keep", "--db", str(db)).code == 0
    (kept,) = folder.iterdir()
    with running(["quick", str(kept), *SLOW_WRITE, "--keep", "--db", str(db)]) as child:
        wait_for_steps(db, 5, child)  # the first run stored 4 passes
        # its fio is stopped, so the file is kept whatever the machine's speed; ssdlab itself
        # runs on, waiting for fio outside any transaction (stopped, it could hold the store's
        # write lock, and the next command would fail on the lock, not on the file)
        fio = wait_for_fio_processes(child)
        for pid in fio:
            os.kill(pid, signal.SIGSTOP)
        try:
            stderr = refused(run_ssdlab("quick", str(kept), *WRITE, "--db", str(db)))
            assert "still running" in stderr or "still writes to" in stderr
            other_store = run_ssdlab("quick", str(kept), *WRITE, "--db", str(tmp_path / "other"))
            refused(other_store)
        finally:
            for pid in fio:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)


# --- the matrix: every path kind x every writing command that is not a named target ----------


def _path_kinds(tmp_path: Path, lab: LoopLab) -> dict[str, tuple[str, Path | None]]:
    """name -> (path, file whose bytes must not change)."""
    device = lab.loop(SIZE, pattern=b"matrix!!").path
    user_file = tmp_path / "user.bin"
    user_file.write_bytes(os.urandom(2**20))
    link_device = tmp_path / "link-device"
    link_device.symlink_to(device)
    link_file = tmp_path / "ssdlab-111111111111.tmp"
    link_file.symlink_to(user_file)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock_path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))  # the socket file stays after the socket is closed
    folder = tmp_path / "dir"
    folder.mkdir()
    return {
        "block device": (device, Path(device)),
        "link to a block device": (str(link_device), Path(device)),
        "character device": ("/dev/null", None),
        "fifo": (str(fifo), None),
        "socket": (str(sock_path), None),
        "directory": (str(folder), None),
        "link to a user's file": (str(link_file), user_file),
        "new name on devtmpfs": ("/dev/ssdlab-matrix-new", None),
    }


def _commands(path: str, db: str) -> dict[str, list[str]]:
    return {
        "--db": ["runs", "--db", path],
        "report -o": ["report", "last", "-o", path, "--db", db],
        "report md -o": ["report", "last", "--format", "md", "-o", path, "--db", db],
        "export -o": ["export", "last", "--format", "csv", "-o", path, "--db", db],
        "show --plots": [
            "sim",
            "--capacity",
            "64MiB",
            "--write",
            "2x",
            "--plots",
            path,
            "--db",
            db,
        ],
        "quick without --destroy-data": ["quick", path, *WRITE, "--db", db],
        "run without --destroy-data": ["run", "fill", path, "--db", db],
    }


@needs_loop
@pytest.mark.loop
def test_every_path_kind_and_writing_command_is_refused(
    stored: Path, tmp_path: Path, lab: LoopLab
) -> None:
    kinds = _path_kinds(tmp_path, lab)
    # a directory is where new files go: a test file, or chart files inside it; an output the
    # user named (-o) through a link to a regular file is that file, written as asked
    writable = {("directory", c) for c in ("quick without --destroy-data", "show --plots")}
    writable.add(("directory", "run without --destroy-data"))
    writable |= {("link to a user's file", c) for c in ("report -o", "report md -o", "export -o")}
    tried = 0
    for kind, (path, guarded) in kinds.items():
        for command, argv in _commands(path, str(stored)).items():
            if (kind, command) in writable:
                continue
            size = guarded.stat().st_size if guarded else 0
            before = sha256_of(str(guarded), size) if guarded else ""
            result = run_ssdlab(*argv)
            assert result.code != 0, f"{command} on a {kind} was not refused"
            assert "Traceback" not in result.stderr, (kind, command, result.stderr)
            if guarded:
                assert sha256_of(str(guarded), size) == before, (kind, command)
            tried += 1
    assert tried == len(kinds) * 7 - len(writable)
    assert not Path("/dev/ssdlab-matrix-new").exists()
