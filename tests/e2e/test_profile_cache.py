"""`ssdlab run cache` end to end with real fio, and cachefit taking its size from a cache run."""

import json
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import needs_fio
from tests.e2e.conftest import LoopLab, needs_loop, run_ssdlab, sha256_of

pytestmark = [needs_fio]
FAST = ["--log-interval", "0.05"]


def cliff_finding(db: Path) -> dict[str, object]:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT body_json FROM findings WHERE name = 'cache-cliff'").fetchone()
    return dict(json.loads(row[0]))


def test_cache_on_a_file_finds_no_false_cliff(tmp_path: Path) -> None:
    db = tmp_path / "db"
    plots = tmp_path / "plots"
    done = run_ssdlab(
        "run", "cache", str(tmp_path), "--size", "512MiB", *FAST, "--recovery-idle", "1",
        "--db", str(db), "--json", "--plots", str(plots),
    )  # fmt: skip
    assert done.code == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["profile"] == "cache" and doc["verdict"]
    cliff = cliff_finding(db)
    # a page-cache-backed file on this machine writes at one level: no cliff may be invented
    assert cliff["cliff_bytes"] is None and cliff["reason"]
    assert (plots / "cache-cliff.svg").read_text().startswith("<?xml")
    assert not list(tmp_path.glob("ssdlab-*.tmp"))
    with sqlite3.connect(db) as conn:
        keys = [r[0] for r in conn.execute("SELECT step_key FROM step_results ORDER BY id")]
    assert keys == ["write", "probe"]

    # cachefit --from-run: this run found no cliff, so it has no size to give
    refused = run_ssdlab("plan", "cachefit", str(tmp_path), "--from-run", "1", "--db", str(db))
    assert refused.code == 2 and "--cache-size" in refused.stderr
    with sqlite3.connect(db) as conn:  # as if the drive had shown a 64 MiB cache
        conn.execute(
            "UPDATE findings SET body_json = ? WHERE name = 'cache-cliff'",
            (json.dumps({**cliff, "cliff_bytes": 64 * 2**20}),),
        )
    planned = run_ssdlab(
        "plan", "cachefit", str(tmp_path), "--from-run", "1", "--db", str(db), "--json"
    )
    assert planned.code == 0, planned.stderr
    texts = [job["text"] for job in json.loads(planned.stdout)["jobs"]]
    assert any(f"size={32 * 2**20}" in text for text in texts)  # inside: half the cache


@needs_loop
@pytest.mark.loop
def test_cache_on_a_loop_device(tmp_path: Path, lab: LoopLab) -> None:
    size = 128 * 2**20
    device = lab.loop(size, pattern=b"cache me").path
    before = sha256_of(device, size)
    refused = run_ssdlab("run", "cache", device, *FAST, "--db", str(tmp_path / "db"))
    assert refused.code == 3 and f"--destroy-data {device}" in refused.stderr
    assert sha256_of(device, size) == before
    done = run_ssdlab(
        "run", "cache", device, "--destroy-data", device, *FAST, "--pattern", "rand",
        "--block-size", "64KiB", "--db", str(tmp_path / "db"),
    )  # fmt: skip
    assert done.code == 0, done.stderr
    assert "Write-cache cliff" in done.stdout
    assert sha256_of(device, size) != before
    assert "cliff_bytes" in cliff_finding(tmp_path / "db")
