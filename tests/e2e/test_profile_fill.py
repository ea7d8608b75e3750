"""`ssdlab run fill` end to end with real fio, on a file and on a loop device."""

import json
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import needs_fio
from tests.e2e.conftest import LoopLab, needs_loop, run_ssdlab, sha256_of

pytestmark = [needs_fio]
FAST = ["--runtime", "0.3", "--levels", "0,50,90"]


def test_fill_on_a_file(tmp_path: Path) -> None:
    db = tmp_path / "db"
    done = run_ssdlab(
        "run", "fill", str(tmp_path), "--size", "32MiB", *FAST, "--db", str(db), "--json",
        "--plots", str(tmp_path / "plots"),
    )  # fmt: skip
    assert done.code == 0, done.stderr
    doc = json.loads(done.stdout)
    assert [r["level_pct"] for r in doc["result"]["levels"]] == [0, 50, 90]
    assert all(r["iops"] > 0 for r in doc["result"]["levels"])
    assert all(r["passes"] == 3 for r in doc["result"]["levels"])  # --repeat 3, the default
    assert doc["result"]["state"] in ("yes", "no", "inconclusive")
    assert doc["verdict"][0].startswith(f"Slows as it fills: {doc['result']['state']} — ")
    assert (tmp_path / "plots" / "fill-iops.png").stat().st_size > 1000
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM findings WHERE name='fill-levels'").fetchone()[0]
        rounds = conn.execute(
            "SELECT step_key, COUNT(*) FROM step_results WHERE discarded = 0 GROUP BY step_key"
        ).fetchall()
        assert dict(rounds) == {"randwrite-0": 3, "randwrite-50": 3, "randwrite-90": 3}


@needs_loop
@pytest.mark.loop
def test_fill_on_a_loop_device(tmp_path: Path, lab: LoopLab) -> None:
    size = 64 * 2**20
    device = lab.loop(size, pattern=b"fill me").path
    before = sha256_of(device, size)
    refused = run_ssdlab("run", "fill", device, *FAST, "--db", str(tmp_path / "db"))
    assert refused.code == 3
    assert sha256_of(device, size) == before
    done = run_ssdlab(
        "run", "fill", device, "--destroy-data", device, *FAST, "--db", str(tmp_path / "db")
    )
    assert done.code == 0, done.stderr
    assert "Random writes by fill level" in done.stdout
    assert "90 %" in done.stdout
