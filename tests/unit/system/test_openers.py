"""Who holds a target open, read from a recorded /proc tree: fio job processes found by the
file's (device, inode) or a block device's number, named by their main fio; job folders and
test files judged in use or left behind."""

import json
import os
import socket
import stat
from pathlib import Path

import pytest

from ssdlab.errors import TargetError
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.system.doctor import reason_to_keep_test_file
from ssdlab.system.environment import read_boot_id, read_pid_namespace, run_liveness
from ssdlab.system.fio import OWNER_FILE, find_job_folders, job_folder, job_folder_in_use
from ssdlab.system.openers import (
    Opener,
    find_openers,
    fio_holders,
    processes_inside,
    refuse_while_fio_writes,
)


def _stat_line(pid: int, name: str, ppid: int, start_ticks: int) -> str:
    # pid (comm) state ppid, then fields 5..21, then field 22: the start time
    rest = " ".join(["0"] * 17)
    return f"{pid} ({name}) S {ppid} {rest} {start_ticks} 0 0\n"


class RecordedProc:
    """A /proc tree in a temporary folder: comm, stat, cwd and fd links per process."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir()

    def process(
        self,
        pid: int,
        name: str,
        *,
        ppid: int = 1,
        fds: tuple[Path, ...] = (),
        cwd: str = "/",
        start_ticks: int = 1000,
    ) -> Path:
        folder = self.root / str(pid)
        (folder / "fd").mkdir(parents=True)
        (folder / "comm").write_text(name + "\n")
        (folder / "stat").write_text(_stat_line(pid, name, ppid, start_ticks))
        (folder / "cmdline").write_bytes(name.encode() + b"\0")
        (folder / "cwd").symlink_to(cwd)
        for number, target in enumerate(fds, start=3):
            (folder / "fd" / str(number)).symlink_to(target)
        return folder


@pytest.fixture
def proc(tmp_path: Path) -> RecordedProc:
    return RecordedProc(tmp_path / "proc")


def test_a_file_is_found_by_device_and_inode_through_any_path(
    tmp_path: Path, proc: RecordedProc
) -> None:
    target = tmp_path / "e.dat"
    target.write_bytes(b"x")
    other = tmp_path / "other.dat"
    other.write_bytes(b"y")
    link = tmp_path / "link-to-e"
    link.symlink_to(target)
    hard = tmp_path / "hard-e"
    os.link(target, hard)
    proc.process(100, "fio", fds=(target,))
    proc.process(200, "bash", fds=(other,))
    proc.process(300, "dd", fds=(hard,))  # another name for the same inode
    proc.process(400, "less", fds=(link,))
    assert find_openers(target, proc.root) == [
        Opener(100, "fio"),
        Opener(300, "dd"),
        Opener(400, "less"),
    ]
    assert find_openers(tmp_path / "missing", proc.root) == []


def test_a_block_device_is_found_by_its_device_number(tmp_path: Path, proc: RecordedProc) -> None:
    if os.geteuid() != 0:
        pytest.skip("making device nodes needs root")
    target, same, other = tmp_path / "dev-a", tmp_path / "dev-a-again", tmp_path / "dev-b"
    os.mknod(target, stat.S_IFBLK | 0o600, os.makedev(7, 250))
    os.mknod(same, stat.S_IFBLK | 0o600, os.makedev(7, 250))  # another node, same device
    os.mknod(other, stat.S_IFBLK | 0o600, os.makedev(7, 251))
    proc.process(10, "fio", fds=(same,))
    proc.process(11, "fio", fds=(other,))
    assert find_openers(target, proc.root) == [Opener(10, "fio")]


def test_fio_job_processes_are_named_by_their_main_fio(tmp_path: Path, proc: RecordedProc) -> None:
    target = tmp_path / "t.dat"
    target.write_bytes(b"x")
    proc.process(500, "fio", ppid=1)  # the fio ssdlab started: holds nothing itself
    proc.process(501, "fio", ppid=500, fds=(target,))
    proc.process(502, "fio", ppid=500, fds=(target,))
    proc.process(600, "dd", fds=(target,))  # not a fio: not counted
    assert fio_holders(target, proc.root) == [500]
    with pytest.raises(TargetError) as refused:
        refuse_while_fio_writes(str(target), proc.root)
    message = str(refused.value)
    assert "fio (pid 500)" in message
    assert "kill 500" in message
    assert str(target) in message


def test_a_fio_still_starting_on_the_target_counts(tmp_path: Path, proc: RecordedProc) -> None:
    target = tmp_path / "t.dat"
    target.write_bytes(b"x")
    starting, other = tmp_path / "ssdlab-fio-1-aaaa", tmp_path / "ssdlab-fio-2-bbbb"
    starting.mkdir()
    other.mkdir()
    (starting / "job.fio").write_text(f"[global]\nfilename={target}\n[w]\nrw=write\n")
    (other / "job.fio").write_text(f"[global]\nfilename={target}.other\n")
    proc.process(1700, "fio", cwd=str(starting))  # parsing its job: nothing open yet
    proc.process(1701, "fio", cwd=str(other))
    proc.process(1702, "bash", cwd=str(starting))
    assert fio_holders(target, proc.root) == [1700]


def test_nothing_holding_the_target_lets_a_run_start(tmp_path: Path, proc: RecordedProc) -> None:
    target = tmp_path / "t.dat"
    target.write_bytes(b"x")
    proc.process(700, "fio", fds=(tmp_path,))
    refuse_while_fio_writes(str(target), proc.root)
    refuse_while_fio_writes(str(tmp_path / "not-yet-made.tmp"), proc.root)


def test_unreadable_or_vanished_processes_are_skipped(tmp_path: Path, proc: RecordedProc) -> None:
    target = tmp_path / "t.dat"
    target.write_bytes(b"x")
    (proc.root / "800").mkdir()  # no fd folder (exited, or another user's)
    (proc.root / "self").mkdir()  # not a pid
    broken = proc.process(801, "fio")
    (broken / "fd" / "3").symlink_to(tmp_path / "gone")
    proc.process(802, "fio", fds=(target,))
    assert find_openers(target, proc.root) == [Opener(802, "fio")]


def test_processes_inside_a_folder_by_working_directory_or_open_file(
    tmp_path: Path, proc: RecordedProc
) -> None:
    folder = tmp_path / "ssdlab-fio-1-abc"
    folder.mkdir()
    (folder / "w_bw.1.log").write_text("")
    proc.process(900, "fio", cwd=str(folder))
    proc.process(901, "tail", fds=(folder / "w_bw.1.log",))
    proc.process(902, "bash", cwd=str(tmp_path))
    sibling = tmp_path / "ssdlab-fio-1-abcdef"  # a name that only starts like the folder
    sibling.mkdir()
    proc.process(903, "fio", cwd=str(sibling))
    assert processes_inside(folder, proc.root) == [Opener(900, "fio"), Opener(901, "tail")]


def _marked_folder(temp: Path, name: str, **owner: object) -> Path:
    folder = temp / name
    folder.mkdir(parents=True)
    (folder / OWNER_FILE).write_text(json.dumps(owner))
    return folder


def test_job_folders_in_use_or_left_behind(tmp_path: Path, proc: RecordedProc) -> None:
    temp = tmp_path / "tmp"
    here = {"boot_id": read_boot_id(), "pid_namespace": read_pid_namespace()}
    proc.process(1200, "python3", start_ticks=555)
    alive = _marked_folder(temp, "ssdlab-fio-1200-aaaa1111", pid=1200, start_ticks=555, **here)
    reused = _marked_folder(temp, "ssdlab-fio-1200-bbbb2222", pid=1200, start_ticks=1, **here)
    dead = _marked_folder(temp, "ssdlab-fio-1300-cccc3333", pid=1300, start_ticks=9, **here)
    elsewhere = _marked_folder(
        temp, "ssdlab-parse-1400-dddd4444", pid=1400, start_ticks=9,
        boot_id=read_boot_id(), pid_namespace="pid:[1]",
    )  # fmt: skip
    rebooted = _marked_folder(
        temp, "ssdlab-fio-1200-eeee5555", pid=1200, start_ticks=555,
        boot_id="00000000-0000-0000-0000-000000000000", pid_namespace=read_pid_namespace(),
    )  # fmt: skip
    orphan = temp / "ssdlab-fio-1500-ffff6666"  # its ssdlab was killed; its fio still runs
    orphan.mkdir()
    proc.process(1501, "fio", cwd=str(orphan))
    old = temp / "ssdlab-fio-k2j4h5g6"  # named by an older ssdlab: no pid, no owner file
    old.mkdir()
    (temp / "ssdlab-fio-notes.txt").write_text("not a folder")
    (temp / "unrelated").mkdir()
    found = {Path(f.path).name: f for f in find_job_folders(temp, proc.root)}
    assert set(found) == {p.name for p in (alive, reused, dead, elsewhere, rebooted, orphan, old)}
    assert found[alive.name].in_use == "ssdlab (pid 1200) still runs"
    assert found[reused.name].in_use is None  # the pid names another process now
    assert found[dead.name].in_use is None
    assert found[dead.name].pid == 1300
    assert "another PID namespace" in (found[elsewhere.name].in_use or "")
    assert found[rebooted.name].in_use is None
    assert "fio (pid 1501)" in (found[orphan.name].in_use or "")
    assert found[old.name].in_use is None
    assert found[old.name].pid is None


def test_a_job_folder_is_marked_with_its_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    with job_folder("ssdlab-fio-") as folder:
        assert folder.parent == tmp_path
        assert folder.name.startswith(f"ssdlab-fio-{os.getpid()}-")
        owner = json.loads((folder / OWNER_FILE).read_text())
        assert owner["pid"] == os.getpid()
        assert owner["pid_namespace"] == read_pid_namespace()
        assert job_folder_in_use(folder) == f"ssdlab (pid {os.getpid()}) still runs"
    assert not folder.exists()


def _run(pid: int, namespace: str | None) -> RunRecord:
    return RunRecord(
        1, "profile", "endurance", 1, None, RunStatus.INTERRUPTED, None, "file", "/x", {}, {},
        {}, {}, 0.0, None, socket.gethostname(), pid, read_boot_id(), namespace,
    )  # fmt: skip


def test_a_run_of_another_pid_namespace_cannot_be_judged_so_it_counts_as_alive() -> None:
    gone = 2**22 + 12345  # above any pid_max: no such process
    assert run_liveness(_run(gone, read_pid_namespace())) is None
    assert run_liveness(_run(gone, None)) is None  # recorded before schema 5: judged by pid
    reason = run_liveness(_run(gone, "pid:[4026599999]"))
    assert reason is not None
    assert "another PID namespace" in reason


def test_a_test_file_stays_while_its_run_may_live_or_a_process_holds_it(
    tmp_path: Path, proc: RecordedProc
) -> None:
    gone = 2**22 + 12345
    target = tmp_path / "ssdlab-0123456789abcdef.tmp"
    target.write_bytes(b"x")

    def keep(run: RunRecord | None) -> str | None:
        return reason_to_keep_test_file(str(target), run, proc.root)

    here = read_pid_namespace()
    assert keep(_run(gone, here)) is None
    assert keep(None) is None
    in_container = keep(_run(gone, "pid:[4026599999]"))
    assert in_container is not None
    assert "namespace" in in_container
    proc.process(1600, "fio", fds=(target,))
    assert keep(_run(gone, here)) == "fio (pid 1600) still has it open"
