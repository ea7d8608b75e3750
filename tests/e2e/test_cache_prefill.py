"""`ssdlab run cache --prefill P` end to end on a loop device with real fio: the discard and
the prefill are steps of their own, stored with fio's output; the fill level is stored with
the run; `ssdlab model fit` reads it and asks for the second fill level the cache's kind
needs. The writes are capped with `--rate`, so nothing asserted depends on the machine's
speed (the kind itself is tested on simulated drives: tests/unit/analysis/test_cache_kind.py).
"""

import json
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import needs_fio
from tests.e2e.conftest import LoopLab, needs_loop, run_ssdlab, sha256_of

pytestmark = [needs_fio]
SIZE = 64 * 2**20
CAPPED = ["--rate", "64MiB", "--block-size", "256KiB", "--log-interval", "0.1"]


@needs_loop
@pytest.mark.loop
def test_prefill_is_a_stored_step_and_the_fit_reads_its_level(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(SIZE, pattern=b"prefill me").path
    db = str(tmp_path / "db")
    before = sha256_of(device, SIZE)
    refused = run_ssdlab("run", "cache", device, "--prefill", "50%", *CAPPED, "--db", db)
    assert refused.code == 3
    assert sha256_of(device, SIZE) == before
    done = run_ssdlab(
        "run", "cache", device, "--destroy-data", device, "--prefill", "50%", *CAPPED,
        "--db", db, "--json",
    )  # fmt: skip
    assert done.code == 0, done.stderr
    with sqlite3.connect(db) as conn:
        (run_id,) = conn.execute("SELECT id FROM runs WHERE profile = 'cache'").fetchone()
        settings = json.loads(
            conn.execute("SELECT settings_json FROM runs WHERE id = ?", (run_id,)).fetchone()[0]
        )
        jobs = conn.execute(
            "SELECT input_text, exit_code FROM captures WHERE run_id = ? AND tool = 'fio' "
            "ORDER BY id",
            (run_id,),
        ).fetchall()
        steps = dict(
            conn.execute(
                "SELECT step_key, write_json FROM step_results WHERE run_id = ?", (run_id,)
            ).fetchall()
        )
    assert settings["prefill"] == 50
    # three fio passes, each kept with its job file: the discard, the prefill, the write
    assert [code for _, code in jobs] == [0, 0, 0]
    assert "rw=trim" in jobs[0][0]
    assert "prefill: write 50 % of the region" in jobs[1][0]
    assert f"size={SIZE // 2}" in jobs[1][0]
    assert json.loads(steps["prefill"])["io_bytes"] == SIZE // 2  # fio wrote half the drive
    assert json.loads(steps["write"])["io_bytes"] == SIZE  # the measured write: all of it
    fitted = run_ssdlab("model", "fit", str(run_id), "--db", db, "--json")
    assert fitted.code == 0, fitted.stderr
    body = json.loads(fitted.stdout)
    assert body["inputs"][0]["gave"] == "cache cliff at 50% full (--prefill)"
    kind = next(p for p in body["parameters"] if p["name"] == "cache kind")
    assert kind["value"] is None
    assert kind["needs"] == (
        f"ssdlab run cache {device} --destroy-data --prefill 0% --prefill-idle 300"
    )
    assert "at 50% full" in kind["note"]
