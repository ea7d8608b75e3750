"""The terminal closes under a long command (SIGHUP): quick, a PTS run, an endurance run and
watch each stop fio, write their state, mark the run interrupted (watch: stopped) and leave no
fio and no job folder behind. A run whose ssdlab was killed (SIGKILL) loses its fio with it;
while another fio still writes its target (one of an ssdlab in another PID namespace, or started
by hand), the run cannot be resumed: the resume is refused, naming the fio, and starts no
second fio; `doctor --cleanup` keeps the file that fio still writes.

Each command runs in a real pseudo-terminal as its controlling terminal; closing the terminal's
master side is what sends the hangup, exactly as when a terminal window or an ssh session
closes (one variant sends SIGHUP with kill instead, output going to pipes). Every wait is for an
observable state — a row in the store, a fio holding the target — never a tuned sleep.
"""

import contextlib
import fcntl
import os
import pty
import select
import signal
import sqlite3
import subprocess
import termios
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import HANG_S, needs_fio
from tests.e2e.conftest import (
    LoopLab,
    needs_loop,
    run_ssdlab,
    ssdlab_argv,
    ssdlab_env,
    start_ssdlab,
)
from tests.e2e.orphans import alive
from tests.reliability.test_faults import PTS, QUICK, assert_store_sound, wait_for

pytestmark = [needs_fio, pytest.mark.slow]

WAIT_S = HANG_S


def _take_terminal() -> None:
    """In the child, after setsid: make the pty on stdin the session's controlling terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


@dataclass
class Terminal:
    """A command running in a pseudo-terminal; `close()` is the terminal window closing."""

    child: subprocess.Popen[bytes]
    master: int
    output: bytearray = field(default_factory=bytearray)
    _stop: threading.Event = field(default_factory=threading.Event)
    _reader: threading.Thread | None = None

    def start_reading(self) -> None:
        def read() -> None:  # drain the terminal, so the child never blocks on a full pty
            while not self._stop.is_set():
                ready, _, _ = select.select([self.master], [], [], 0.05)
                if ready:
                    try:
                        data = os.read(self.master, 65536)
                    except OSError:
                        return
                    if not data:
                        return
                    self.output.extend(data)

        self._reader = threading.Thread(target=read, daemon=True)
        self._reader.start()

    def close(self) -> None:
        self._stop.set()
        if self._reader is not None:
            self._reader.join()
        os.close(self.master)

    def wait(self) -> int:
        return self.child.wait(timeout=WAIT_S * 2)


def in_terminal(*args: str, env: dict[str, str]) -> Terminal:
    master, slave = pty.openpty()
    try:
        child = subprocess.Popen(
            ssdlab_argv(*args),
            env=ssdlab_env(env),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
            preexec_fn=_take_terminal,
        )
    finally:
        os.close(slave)
    terminal = Terminal(child, master)
    terminal.start_reading()
    return terminal


def with_pipes(*args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return start_ssdlab(*args, env=env)


def _links(pid: str) -> list[str]:
    base = Path("/proc") / pid
    found = []
    with contextlib.suppress(OSError):
        found.append(os.readlink(base / "cwd"))
    with contextlib.suppress(OSError):
        for entry in (base / "fd").iterdir():
            with contextlib.suppress(OSError):
                found.append(os.readlink(entry))
    return found


def fio_processes(*places: str) -> set[int]:
    """fio processes whose working directory or an open file is one of `places` or below it
    (this test's folders and loop devices: never another test's fio)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() != "fio":
                continue
        except OSError:
            continue
        for link in _links(entry.name):
            link = link.removesuffix(" (deleted)")
            if any(link == place or link.startswith(place.rstrip("/") + "/") for place in places):
                found.add(int(entry.name))
    return found


def wait_until(what: str, check: Callable[[], bool], alive: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        assert alive(), f"the command ended before {what}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def wait_gone(pids: set[int]) -> None:
    """Until every process in `pids` has ended (a zombie has: its parent may be gone)."""
    deadline = time.monotonic() + WAIT_S
    while any(alive(pid) for pid in pids):
        assert time.monotonic() < deadline, f"fio {pids} did not end"
        time.sleep(0.02)


def run_row(db: Path) -> tuple[int, str, str]:
    with sqlite3.connect(db) as conn:
        row = conn.execute(
            "SELECT id, status, status_reason FROM runs ORDER BY id DESC LIMIT 1"
        ).fetchone()
    return int(row[0]), str(row[1]), str(row[2] or "")


def step_keys(db: Path) -> set[str]:
    if not db.exists():
        return set()
    with contextlib.suppress(sqlite3.OperationalError), sqlite3.connect(db, timeout=5) as conn:
        return {str(row[0]) for row in conn.execute("SELECT step_key FROM step_results")}
    return set()


def job_folders(temp: Path) -> list[Path]:
    return sorted(temp.glob("ssdlab-*"))


@pytest.fixture
def temp(tmp_path: Path) -> Path:
    """The child's temporary directory (TMPDIR): its fio job folders land here only."""
    folder = tmp_path / "tmpdir"
    folder.mkdir()
    return folder


def hang_up_during_fio(
    args: list[str], db: Path, temp: Path, places: list[str], *, terminal: bool = True
) -> int:
    """Start the command, wait until a step is stored and a fio of it runs again, close the
    terminal (or send SIGHUP); return the exit status once it has ended."""
    env = {"TMPDIR": str(temp)}
    if terminal:
        term = in_terminal(*args, env=env)
        alive = lambda: term.child.poll() is None  # noqa: E731
        wait_for(db, "step_results", 1, term.child)  # type: ignore[arg-type]
        wait_until("a fio holds the target", lambda: bool(fio_processes(*places)), alive)
        term.close()
        code = term.wait()
    else:
        child = with_pipes(*args, env=env)
        wait_for(db, "step_results", 1, child)
        wait_until(
            "a fio holds the target",
            lambda: bool(fio_processes(*places)),
            lambda: child.poll() is None,
        )
        child.send_signal(signal.SIGHUP)
        child.communicate(timeout=WAIT_S * 2)
        code = child.returncode
    assert fio_processes(*places, str(temp)) == set(), "a fio outlived ssdlab"
    assert job_folders(temp) == [], "a fio job folder was left behind"
    return code


@pytest.mark.parametrize("how", ["terminal closed", "kill -HUP"])
def test_quick_stops_cleanly_when_the_terminal_closes(tmp_path: Path, temp: Path, how: str) -> None:
    db, target = tmp_path / "db", tmp_path / "t"
    target.mkdir()
    slow = [*QUICK[:2], "--measure", "2", "--count", "3", *QUICK[6:]]
    args = ["quick", str(target), *slow, "--db", str(db)]
    code = hang_up_during_fio(args, db, temp, [str(target)], terminal=how == "terminal closed")
    assert code == 130, run_row(db)
    _, status, reason = run_row(db)
    assert status == "interrupted"
    assert "signal" in reason
    assert list(target.iterdir()) == []  # the test file was removed on the way out
    assert_store_sound(db)


@needs_loop
@pytest.mark.loop
def test_pts_run_on_a_loop_device_stops_cleanly_when_the_terminal_closes(
    tmp_path: Path, temp: Path, lab: LoopLab
) -> None:
    device = lab.loop(64 * 2**20).path
    db = tmp_path / "db"
    slow = [*PTS[:1], "2", *PTS[2:]]
    args = ["run", "pts-tp", device, "--destroy-data", device, *slow, "--db", str(db)]
    assert hang_up_during_fio(args, db, temp, [device]) == 130
    _, status, reason = run_row(db)
    assert status == "interrupted"
    assert "signal" in reason
    assert_store_sound(db)


ENDURE = ["--size", "8MiB", "--iteration-time", "1", "--for", "1h", "--log-interval", "0.1"]


def test_endurance_run_stops_cleanly_when_the_terminal_closes(tmp_path: Path, temp: Path) -> None:
    db, target = tmp_path / "db", tmp_path / "e.dat"
    args = ["endure", str(target), *ENDURE, "--db", str(db)]
    assert hang_up_during_fio(args, db, temp, [str(target)]) == 130
    _, status, reason = run_row(db)
    assert status == "interrupted"
    assert "signal" in reason
    assert target.exists()  # kept for 'endure --resume'
    assert_store_sound(db)


@needs_loop
@pytest.mark.loop
def test_watch_stops_and_records_it_when_the_terminal_closes(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop().path
    db = tmp_path / "db"
    term = in_terminal("watch", device, "--every", "0.2s", "--db", str(db), env={})
    alive = lambda: term.child.poll() is None  # noqa: E731
    # a line per reading ('... sample N: ...' or '... no sample: ...'), printed once the
    # signal handlers are in place
    wait_until("the first reading", lambda: b"sample" in term.output, alive)
    term.close()
    assert term.wait() == 0
    _, status, reason = run_row(db)
    assert status == "complete"
    assert reason == "stopped by a signal (SIGHUP)"
    assert_store_sound(db)


def _fio_by_hand(target: str, folder: Path) -> "subprocess.Popen[bytes]":
    """A fio started by hand, writing `target` for ten minutes from `folder`."""
    folder.mkdir(exist_ok=True)
    size = os.stat(target).st_size if os.path.isfile(target) else 4 * 2**20
    job = folder / "by-hand.fio"
    job.write_text(
        f"[by-hand]\nfilename={target}\nrw=write\nbs=64k\nsize={size}\ntime_based\nruntime=600\n"
    )
    return subprocess.Popen(
        ["fio", job.name], cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


@contextlib.contextmanager
def orphaned_fio(
    args: list[str], db: Path, temp: Path, places: list[str], stored: str | None = None
) -> Iterator[set[int]]:
    """Run the command until its fio holds the target (after a step named `stored` is in the
    store, when given), then SIGKILL ssdlab: its fio ends with it. Then a fio started by hand
    writes the target, as one of an ssdlab in another PID namespace (or of another program)
    would go on doing; yields that fio's processes and stops them at the end."""
    child = with_pipes(*args, env={"TMPDIR": str(temp)})
    alive = lambda: child.poll() is None  # noqa: E731
    by_hand: subprocess.Popen[bytes] | None = None
    try:
        if stored is not None:
            wait_until(f"step {stored} stored", lambda: stored in step_keys(db), alive)
        wait_until("a fio holds the target", lambda: bool(fio_processes(*places)), alive)
        ssdlab_fio = fio_processes(*places, str(temp))
        child.kill()
        child.communicate(timeout=WAIT_S)
        wait_gone(ssdlab_fio)  # it ended with its ssdlab
        by_hand = _fio_by_hand(places[0], temp / "by-hand")
        started = lambda: by_hand is not None and by_hand.poll() is None  # noqa: E731
        wait_until(
            "the fio started by hand holds the target",
            lambda: bool(fio_processes(*places)),
            started,
        )
        yield fio_processes(*places, str(temp))
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate(timeout=WAIT_S)
        left = fio_processes(*places, str(temp))  # only the fio this test started
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        if by_hand is not None:
            by_hand.wait(timeout=WAIT_S)  # reaped: a zombie would count as still there
        wait_gone(left)


LONG_ENDURE = ["--size", "8MiB", "--iteration-time", "24h", "--for", "48h"]


def test_endurance_resume_is_refused_while_another_fio_still_writes_the_target(
    tmp_path: Path, temp: Path
) -> None:
    db, target = tmp_path / "db", tmp_path / "e.dat"
    args = ["endure", str(target), *LONG_ENDURE, "--db", str(db)]
    with orphaned_fio(args, db, temp, [str(target)]) as orphans:
        for attempt in (["endure", "--resume", "last"], ["resume", "last"]):
            refused = run_ssdlab(*attempt, "--db", str(db), env={"TMPDIR": str(temp)})
            assert refused.code == 1, refused.stderr
            message = " ".join(refused.stderr.split())
            assert "still writes to" in message
            assert str(target) in message
            assert any(f"fio (pid {pid})" in message for pid in orphans), message
            assert "kill " in message
            assert "Traceback" not in refused.stderr
            assert fio_processes(str(target), str(temp)) == orphans  # no second fio started
        _, status, _ = run_row(db)
        assert status == "interrupted"  # marked by the refused command: its ssdlab is gone
        kept = run_ssdlab("doctor", "--cleanup", "--db", str(db), env={"TMPDIR": str(temp)})
        assert kept.code == 0, kept.stderr
        assert target.exists(), "doctor --cleanup removed a file a fio still writes"
        assert "still has it open" in " ".join(kept.stdout.split())
    # once that fio has ended, the run resumes: its own fio starts (then it is stopped)
    resumed = with_pipes("endure", "--resume", "last", "--db", str(db), env={"TMPDIR": str(temp)})
    alive = lambda: resumed.poll() is None  # noqa: E731
    wait_until("the resumed run's fio", lambda: bool(fio_processes(str(target))), alive)
    resumed.send_signal(signal.SIGTERM)
    _, stderr = resumed.communicate(timeout=WAIT_S * 2)
    assert resumed.returncode == 130, stderr
    assert run_row(db)[1] == "interrupted"
    assert fio_processes(str(target)) == set()
    assert_store_sound(db)


@needs_loop
@pytest.mark.loop
def test_pts_resume_on_a_loop_device_is_refused_while_another_fio_still_writes_it(
    tmp_path: Path, temp: Path, lab: LoopLab
) -> None:
    device = lab.loop(64 * 2**20).path
    db = tmp_path / "db"
    slow = [*PTS[:1], "3600", *PTS[2:]]
    args = ["run", "pts-tp", device, "--destroy-data", device, *slow, "--db", str(db)]
    # the purge and the preconditioning are short; the fio left running is a round's
    with orphaned_fio(args, db, temp, [device], stored="wipc-128kib") as orphans:
        refused = run_ssdlab(
            "resume", "last", "--destroy-data", device, "--db", str(db), env={"TMPDIR": str(temp)}
        )
        assert refused.code == 1, refused.stderr
        message = " ".join(refused.stderr.split())
        assert any(f"fio (pid {pid})" in message for pid in orphans), message
        assert fio_processes(device, str(temp)) == orphans
        again = run_ssdlab(
            "run", "pts-tp", device, "--destroy-data", device, *slow, "--db", str(db),
            env={"TMPDIR": str(temp)},
        )  # fmt: skip
        assert again.code == 1
        assert "still writes to" in " ".join(again.stderr.split())
        assert fio_processes(device, str(temp)) == orphans
