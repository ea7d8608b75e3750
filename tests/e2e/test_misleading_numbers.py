"""No number that misleads: targets in RAM or the page cache are labelled as measuring memory,
loop devices are not called rotational drives without SMART, a missing /dev name and an
unknown ioengine are refused in one line before anything runs."""

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import needs_fio
from tests.e2e.conftest import FAST, LoopLab, needs_loop, run_ssdlab

pytestmark = [needs_fio]
SIZE = 32 * 2**20
# reads only where a test is about what a run is called or whether it may start: the label
# comes from the target, not the tests run on it (5 fio runs a quick instead of 13)
READ = [*FAST, "--mode", "read"]


def one_line_refusal(stderr: str) -> str:
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


def stored_runs(db: Path) -> list[dict[str, object]]:
    result = run_ssdlab("runs", "--json", "--db", str(db))
    assert result.code == 0, result.stderr
    runs = json.loads(result.stdout)["runs"]
    assert isinstance(runs, list)
    return runs


def test_a_missing_device_is_named_with_lsblk_advice(tmp_path: Path) -> None:
    for name in ("/dev/ssdlab-no-such-disk", "/dev/ssdlab-no-such-dir/disk"):
        result = run_ssdlab("quick", name, *FAST, "--db", str(tmp_path / "db"))
        assert result.code != 0
        line = one_line_refusal(result.stderr)
        assert f"there is no device {name}" in line
        assert "lsblk" in line
        assert not Path(name).exists()


def test_an_unknown_ioengine_is_refused_before_the_run(tmp_path: Path) -> None:
    db = tmp_path / "db"
    result = run_ssdlab(
        "quick", str(tmp_path), *FAST, "--ioengine", "nosuchengine", "--db", str(db)
    )
    assert result.code == 2
    line = one_line_refusal(result.stderr)
    assert "--ioengine nosuchengine" in line
    assert "fio --enghelp" in line
    assert not db.exists() or stored_runs(db) == []  # not stored as a failed run
    assert not list(tmp_path.glob("ssdlab-*.tmp"))


@pytest.mark.parametrize("engine", ["exec", "cpuio", "filedelete"])
def test_an_engine_that_does_no_storage_io_is_refused(tmp_path: Path, engine: str) -> None:
    db = tmp_path / "db"
    result = run_ssdlab("quick", str(tmp_path), *FAST, "--ioengine", engine, "--db", str(db))
    assert result.code == 2
    line = one_line_refusal(result.stderr)
    assert f"--ioengine {engine}" in line
    assert "no reads or writes" in line
    assert not db.exists() or stored_runs(db) == []


def test_a_known_ioengine_without_options_is_accepted(tmp_path: Path) -> None:
    # 'fio --enghelp=psync' exits 1 ("has no options"): its words decide, not its status
    result = run_ssdlab(
        "quick", str(tmp_path), *READ, "--ioengine", "psync", "--db", str(tmp_path / "db")
    )
    assert result.code == 0, result.stderr


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    if shutil.which("mount") is None or shutil.which("umount") is None:
        pytest.skip("mount is not installed")
    folder = tmp_path / "tmpfs"
    folder.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        if subprocess.run(["umount", str(folder)], capture_output=True, check=False).returncode:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


def test_a_file_on_tmpfs_is_labelled_as_measuring_memory(tmp_path: Path, tmpfs: Path) -> None:
    db = tmp_path / "db"
    terminal = run_ssdlab("quick", str(tmpfs), *READ, "--buffered", "--db", str(db))
    assert terminal.code == 0, terminal.stderr
    assert "MEASURES MEMORY" in terminal.stdout
    shown = run_ssdlab("export", "last", "--format", "json", "--db", str(db))
    doc = json.loads(shown.stdout)
    assert doc["measures_memory"] is True
    assert "tmpfs" in doc["measures_memory_reason"]
    markdown = run_ssdlab("report", "last", "--format", "md", "--db", str(db))
    assert markdown.code == 0, markdown.stderr
    assert "MEASURES MEMORY" in markdown.stdout


def test_a_profile_run_on_tmpfs_is_labelled_too(tmp_path: Path, tmpfs: Path) -> None:
    db = tmp_path / "db"
    done = run_ssdlab(
        "run", "cache", str(tmpfs), "--size", "3MiB", "--rate", "8MiB", "--block-size",
        "64KiB", "--log-interval", "0.25", "--buffered", "--db", str(db),
    )  # fmt: skip
    assert done.code == 0, done.stderr
    assert "MEASURES MEMORY" in done.stdout
    doc = json.loads(run_ssdlab("show", "last", "--json", "--db", str(db)).stdout)
    assert doc["measures_memory"] is True
    assert "tmpfs" in doc["measures_memory_reason"]


def on_memory_fs(path: Path) -> bool:
    """Whether `path` lies on tmpfs or ramfs (the suite may run with TMPDIR there)."""
    kind = subprocess.run(["stat", "-f", "-c", "%T", str(path)], capture_output=True, text=True)
    return kind.stdout.strip() in ("tmpfs", "ramfs")


@needs_loop
@pytest.mark.loop
def test_a_file_backed_loop_without_direct_io_measures_memory(tmp_path: Path, lab: LoopLab) -> None:
    loop = lab.loop(SIZE, pattern=b"ssdlab-loopdio0!")
    dio = Path(f"/sys/block/{loop.name}/loop/dio")
    if not dio.exists() or dio.read_text().strip() != "0":
        pytest.skip("this loop device does not report loop/dio = 0")
    db = tmp_path / "db"
    terminal = run_ssdlab("quick", loop.path, *READ, "--db", str(db))
    assert terminal.code == 0, terminal.stderr
    both = terminal.stdout + terminal.stderr
    assert "measures memory" in both
    assert "MEASURES MEMORY" in terminal.stdout
    assert "rotational" not in both
    assert "no SMART data" not in both
    assert "loop device: no SMART by nature" in both
    doc = json.loads(run_ssdlab("show", "last", "--json", "--db", str(db)).stdout)
    assert doc["measures_memory"] is True
    assert str(loop.image) in doc["measures_memory_reason"]
    # the page cache (dio 0), or memory itself when the image lies on tmpfs (TMPDIR there)
    assert ("tmpfs" if on_memory_fs(loop.image) else "dio") in doc["measures_memory_reason"]


@needs_loop
@pytest.mark.loop
def test_a_loop_with_direct_io_is_not_called_memory(tmp_path: Path, lab: LoopLab) -> None:
    loop = lab.loop(SIZE, pattern=b"ssdlab-loopdio1!")
    done = subprocess.run(
        ["losetup", "--direct-io=on", loop.path], capture_output=True, text=True, check=False
    )
    dio = Path(f"/sys/block/{loop.name}/loop/dio")
    if done.returncode != 0 or not dio.exists() or dio.read_text().strip() != "1":
        pytest.skip(f"cannot turn on direct I/O of a loop device here: {done.stderr.strip()}")
    db = tmp_path / "db"
    result = run_ssdlab("quick", loop.path, *READ, "--db", str(db), "--json")
    assert result.code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["measures_memory"] is on_memory_fs(loop.image)  # an image on tmpfs is memory
    assert "rotational" not in result.stderr
    assert "loop device" in result.stderr  # still not called a drive


@needs_loop
@pytest.mark.loop
def test_a_file_on_a_filesystem_over_a_file_backed_loop_measures_memory(
    tmp_path: Path, lab: LoopLab
) -> None:
    loop = lab.loop(64 * 2**20)
    dio = Path(f"/sys/block/{loop.name}/loop/dio")
    if not dio.exists() or dio.read_text().strip() != "0":
        pytest.skip("this loop device does not report loop/dio = 0")
    mount_point = lab.mount_new_ext4(loop.path)
    db = tmp_path / "db"
    result = run_ssdlab("quick", str(mount_point), *READ, "--db", str(db), "--json")
    assert result.code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["measures_memory"] is True
    assert loop.path in doc["measures_memory_reason"]
    assert "rotational" not in result.stderr
