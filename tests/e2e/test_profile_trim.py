"""`ssdlab run trim` end to end on loop devices: zeroes after discard, dirty against
discarded, fstrim on a mount the test made, and the refusals."""

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.conftest import needs_fio
from tests.e2e.conftest import LoopLab, needs_loop, run_ssdlab

pytestmark = [needs_fio, needs_loop, pytest.mark.loop]


def test_trim_on_a_loop_device(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(64 * 2**20).path
    db = tmp_path / "db"
    refused = run_ssdlab("run", "trim", device, "--runtime", "0.3", "--db", str(db))
    assert refused.code == 3
    done = run_ssdlab(
        "run",
        "trim",
        device,
        "--destroy-data",
        device,
        "--size",
        "48MiB",
        "--runtime",
        "0.3",
        "--db",
        str(db),
        "--json",
    )
    assert done.code == 0, done.stderr
    result = json.loads(done.stdout)["result"]
    assert result["trim-support"]["supported"] is True
    assert result["zeroes_after_discard"]["zeroes"] is True  # loop devices punch holes
    effect = result["trim-effect"]
    assert effect["dirty_iops"] > 0
    assert effect["discarded_iops"] > 0
    assert effect["passes"] == 3  # --repeat 3, the default: three rounds, each filling again
    assert effect["state"] in ("yes", "no", "inconclusive")
    assert effect["sentence"].startswith(f"Faster after a discard: {effect['state']} — ")
    with sqlite3.connect(db) as conn:
        fills = conn.execute("SELECT COUNT(*) FROM step_results WHERE step_key = 'fill'")
        assert fills.fetchone()[0] == 3
    with sqlite3.connect(db) as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM findings")}
    assert {"trim-support", "trim-effect", "step:zero-check"} <= names


def test_fstrim_only_on_the_named_mount_point(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(64 * 2**20).path
    subprocess.run(["mkfs.ext4", "-q", device], check=True)
    mount = tmp_path / "mnt"
    mount.mkdir()
    subprocess.run(["mount", device, str(mount)], check=True)
    try:
        db = tmp_path / "db"
        not_mount = run_ssdlab(
            "run", "trim", str(mount), "--fstrim", str(tmp_path), "--size", "1MiB", "--db", str(db)
        )
        assert not_mount.code == 2
        assert "not a mount point" in not_mount.stderr
        done = run_ssdlab(
            "run",
            "trim",
            str(mount),
            "--fstrim",
            str(mount),
            "--size",
            "1MiB",
            "--db",
            str(db),
            "--json",
        )
        assert done.code == 0, done.stderr
        fstrim = json.loads(done.stdout)["result"]["fstrim"]
        assert fstrim["elapsed_s"] >= 0
        assert fstrim["trimmed_bytes"] > 0
    finally:
        subprocess.run(["umount", str(mount)], check=True)
