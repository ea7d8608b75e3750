"""`ssdlab quick` on loop devices: read-only tests, allowed writes, and the refusal matrix.

Every refusal is checked with the device's bytes hashed before and after. A mounted file
system or active swap area is made over the device's first OWNED bytes only, because the kernel
itself writes there while it is in use (journal, lazy inode-table init, the database file); the
hash covers the rest, which any write by ssdlab's 8 MiB test region would change.
"""

import json
import os
from pathlib import Path

import pytest

from tests.conftest import needs_fio
from tests.e2e.conftest import FAST, LoopLab, needs_loop, run_ssdlab, sha256_of

pytestmark = [needs_fio, needs_loop, pytest.mark.loop]
SIZE = 32 * 2**20
OWNED = 4 * 2**20
WRITE = [*FAST, "--mode", "write"]


def refused(device: str, tmp_path: Path, *extra: str, db: Path | None = None) -> str:
    before = sha256_of(device, SIZE - OWNED, offset=OWNED)
    result = run_ssdlab("quick", *extra, *WRITE, "--db", str(db or tmp_path / "db"))
    assert result.code == 3, result.stderr
    assert "Traceback" not in result.stderr
    assert sha256_of(device, SIZE - OWNED, offset=OWNED) == before
    return result.stderr


def test_read_only_tests_need_no_permission(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(SIZE, pattern=b"ssdlab-readonly!").path
    before = sha256_of(device, SIZE)
    result = run_ssdlab(
        "quick", device, *FAST, "--mode", "read", "--db", str(tmp_path / "db"), "--json"
    )
    assert result.code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["run"]["target"]["kind"] == "device"
    assert doc["run"]["target"]["device"]["transport"] == "loop"
    assert doc["run"]["target"]["device"]["capacity_bytes"] == SIZE
    assert sha256_of(device, SIZE) == before


def test_write_without_destroy_data_is_refused(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(SIZE, pattern=b"keep me").path
    stderr = refused(device, tmp_path, device)
    assert f"--destroy-data {device}" in stderr


def test_destroy_data_naming_another_device_is_refused(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(SIZE, pattern=b"keep me").path
    other = lab.loop(SIZE).path
    refused(device, tmp_path, device, "--destroy-data", other)


def test_destroy_data_allows_writes_to_an_unused_device(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(SIZE, pattern=b"old data").path
    before = sha256_of(device, SIZE)
    link = tmp_path / "by-id-link"
    link.symlink_to(device)
    result = run_ssdlab(
        "quick", str(link), *WRITE, "--destroy-data", device, "--db", str(tmp_path / "db"), "--json"
    )
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["run"]["status"] == "complete"
    assert sha256_of(device, SIZE) != before  # it really wrote


def test_mounted_device_is_refused(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(SIZE, pattern=b"keep me").path
    mount_point = lab.mount_new_ext4(device, OWNED)
    stderr = refused(device, tmp_path, device, "--destroy-data", device)
    assert "mounted" in stderr
    assert str(mount_point) in stderr


def test_symlink_to_a_mounted_device_is_refused(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(SIZE, pattern=b"keep me").path
    lab.mount_new_ext4(device, OWNED)
    link = tmp_path / "innocent-name"
    link.symlink_to(device)
    stderr = refused(device, tmp_path, str(link), "--destroy-data", str(link))
    assert "mounted" in stderr


def test_active_swap_is_refused(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(SIZE, pattern=b"keep me").path
    lab.swapon(device, OWNED)
    stderr = refused(device, tmp_path, device, "--destroy-data", device)
    assert "swap" in stderr


def test_device_holding_the_database_is_refused(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(SIZE, pattern=b"keep me").path
    mount_point = lab.mount_new_ext4(device, OWNED)
    db = mount_point / "ssdlab.db"
    stderr = refused(device, tmp_path, device, "--destroy-data", device, db=db)
    assert "database" in stderr


def test_device_smaller_than_the_test_size_is_refused(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(4 * 2**20).path
    result = run_ssdlab("quick", device, *FAST, "--mode", "read", "--db", str(tmp_path / "db"))
    assert result.code == 1
    assert "smaller --size" in result.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root")
def test_plan_marks_device_writes_destructive(lab: LoopLab) -> None:
    device = lab.loop(SIZE).path
    result = run_ssdlab("plan", "quick", device, *WRITE, "--json")
    assert json.loads(result.stdout)["destructive"] is True
    result = run_ssdlab("plan", "quick", device, *FAST, "--mode", "read", "--json")
    assert json.loads(result.stdout)["destructive"] is False
