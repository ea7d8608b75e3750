"""`ssdlab run align` end to end with real fio: on a file, and on a loop device."""

import json
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import needs_fio
from tests.e2e.conftest import LoopLab, needs_loop, run_ssdlab, sha256_of

pytestmark = [needs_fio]
FAST = ["--runtime", "0.3", "--block-sizes", "512,4KiB,8KiB"]


def test_align_on_a_file(tmp_path: Path) -> None:
    db = tmp_path / "db"
    plots = tmp_path / "plots"
    result = run_ssdlab(
        "run", "align", str(tmp_path), "--size", "8MiB", *FAST,
        "--db", str(db), "--json", "--plots", str(plots),
    )  # fmt: skip
    assert result.code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["format"] == "ssdlab-profile-run"
    assert doc["profile"] == "align"
    rows = {r["block_size_bytes"]: r for r in doc["result"]["rows"]}
    assert set(rows) == {512, 4096, 8192}
    for row in rows.values():
        assert row["aligned_iops"] > 0
        assert row["misaligned_iops"] > 0
        assert row["ratio"] == pytest.approx(row["aligned_iops"] / row["misaligned_iops"])
        assert row["passes"] == 3
        interval = row["ratio_interval"]
        assert interval["basis"] == "repeats"
        assert interval["low"] is None or interval["low"] <= row["ratio"]
        assert interval["high"] is None or row["ratio"] <= interval["high"]
    assert doc["verdict"], "a plain-language verdict is always given"
    assert doc["result"]["misaligned_state"] in ("yes", "no", "inconclusive")
    assert doc["verdict"][0].startswith(
        f"Misalignment penalty: {doc['result']['misaligned_state']}"
    )
    assert (plots / "align-iops.svg").read_text().startswith("<?xml")
    assert (plots / "align-iops.png").stat().st_size > 1000
    assert not list(tmp_path.glob("ssdlab-*.tmp")), "the test file is removed"
    with sqlite3.connect(db) as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM findings")}
        assert {"alignment", "target-facts"} <= names
        body = json.loads(
            conn.execute("SELECT body_json FROM findings WHERE name = 'alignment'").fetchone()[0]
        )
        assert body["min_penalty_ratio"] == 1.5  # the criterion is stored with the verdict
        measured = conn.execute("SELECT COUNT(*) FROM step_results WHERE discarded = 0").fetchone()[
            0
        ]
        assert measured == 18  # 3 block sizes × 2 alignments × 3 repeats (the default)
        rounds = {r[0] for r in conn.execute("SELECT DISTINCT round_index FROM step_results")}
        assert rounds == {1, 2, 3}
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    shown = run_ssdlab("show", "last", "--db", str(db))
    assert shown.code == 0, shown.stderr
    assert "Random-write IOPS by block size" in shown.stdout


@needs_loop
@pytest.mark.loop
def test_align_on_a_loop_device_needs_destroy_data(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(32 * 2**20, pattern=b"align me").path
    before = sha256_of(device, 32 * 2**20)
    refused = run_ssdlab("run", "align", device, *FAST, "--db", str(tmp_path / "db"))
    assert refused.code == 3, refused.stderr
    assert f"--destroy-data {device}" in refused.stderr
    assert sha256_of(device, 32 * 2**20) == before
    done = run_ssdlab(
        "run", "align", device, "--destroy-data", device, *FAST,
        "--db", str(tmp_path / "db"), "--json",
    )  # fmt: skip
    assert done.code == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["run"]["target"]["kind"] == "device"
    assert doc["facts"]["whole_device"] is True
    assert doc["result"]["partition_start_bytes"] == 0
    assert doc["facts"]["logical_block_bytes"] == 512
    assert sha256_of(device, 32 * 2**20) != before
