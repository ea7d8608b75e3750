"""File targets on filesystems that cannot take the test: no O_DIRECT, read-only, too full."""

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import needs_fio, needs_root
from tests.e2e.conftest import FAST, run_ssdlab

pytestmark = [needs_fio, needs_root]


@pytest.fixture
def mounted() -> Iterator[list[Path]]:
    points: list[Path] = []
    yield points
    for point in reversed(points):
        subprocess.run(["umount", "-l", str(point)], check=False)


def mount(points: list[Path], where: Path, fstype: str, options: str | None = None) -> Path:
    where.mkdir()
    argv = ["mount", "-t", fstype, fstype, str(where)]
    if options:
        argv[1:1] = ["-o", options]
    subprocess.run(argv, check=True)
    points.append(where)
    return where


def test_filesystem_without_o_direct_says_so_and_offers_buffered(
    tmp_path: Path, mounted: list[Path]
) -> None:
    ramfs = mount(mounted, tmp_path / "ramfs", "ramfs")
    result = run_ssdlab("quick", str(ramfs), *FAST, "--db", str(tmp_path / "db"))
    assert result.code == 1
    assert "O_DIRECT" in result.stderr
    assert "--buffered" in result.stderr
    assert list(ramfs.iterdir()) == []
    buffered = run_ssdlab(
        "quick",
        str(ramfs),
        *FAST,
        "--mode",
        "read,write",
        "--buffered",
        "--db",
        str(tmp_path / "db"),
        "--json",
    )
    assert buffered.code == 0, buffered.stderr
    doc = json.loads(buffered.stdout)
    assert doc["run"]["settings"]["direct_io"] is False
    assert "measures memory" in buffered.stderr  # ramfs is memory, and ssdlab says so
    assert list(ramfs.iterdir()) == []


def test_read_only_filesystem_is_refused(tmp_path: Path, mounted: list[Path]) -> None:
    ro = mount(mounted, tmp_path / "ro", "tmpfs", "ro,size=64m")
    result = run_ssdlab("quick", str(ro), *FAST, "--db", str(tmp_path / "db"))
    assert result.code == 1
    assert "read-only" in result.stderr


def test_too_full_filesystem_is_refused_before_writing(tmp_path: Path, mounted: list[Path]) -> None:
    small = mount(mounted, tmp_path / "small", "tmpfs", "size=16m")
    result = run_ssdlab("quick", str(small), *FAST, "--size", "32MiB", "--db", str(tmp_path / "db"))
    assert result.code == 1
    assert "free" in result.stderr
    assert "smaller --size" in result.stderr
    assert list(small.iterdir()) == []


def test_doctor_reports_o_direct_per_directory(tmp_path: Path, mounted: list[Path]) -> None:
    ramfs = mount(mounted, tmp_path / "ramfs", "ramfs")
    doc = json.loads(
        run_ssdlab(
            "doctor", "--directory", str(ramfs), "--json", "--db", str(tmp_path / "db")
        ).stdout
    )
    assert doc["direct_io_problem"]
    assert "O_DIRECT" in doc["direct_io_problem"]
    assert doc["tools"][0]["tool"] == "fio"
    assert doc["tools"][0]["ok"] is True
    here = json.loads(
        run_ssdlab(
            "doctor", "--directory", str(tmp_path), "--json", "--db", str(tmp_path / "db")
        ).stdout
    )
    assert here["direct_io_problem"] is None
    assert here["is_root"] is True
    assert here["loop_devices"] is True
