"""`ssdlab run cache` end to end with real fio, and cachefit taking its size from a cache run.

Every write is capped with `--rate`, so it lasts a known number of log intervals on any disk
faster than the cap: what is asserted never depends on the machine's speed.
"""

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from ssdlab.system.filetarget import probe_direct_io
from tests.conftest import needs_fio
from tests.e2e.conftest import LoopLab, Result, needs_loop, run_ssdlab, sha256_of

pytestmark = [needs_fio]
FAST = ["--log-interval", "0.05"]
# 64 MiB at most 32 MiB/s in 64 KiB blocks (~50 per interval): ≥ 2 s, about 20 points of 0.1 s
CAPPED = ["--size", "64MiB", "--rate", "32MiB", "--block-size", "64KiB", "--log-interval", "0.1"]
# fio logs a point when it gets to run after an interval; on a loaded machine it runs late and
# one point covers several intervals, so a write leaves fewer points than it lasted intervals.
# A write that left fewer than the cliff search needs is made again at half the rate (twice as
# long): the test waits for a write long enough to search, and asserts the search, never how
# often fio got to run.
RATES = ("32MiB", "16MiB", "8MiB", "4MiB")


def capped_long_enough(*args: str, db_of: Callable[[str], Path]) -> tuple[Result, Path]:
    """`ssdlab run cache ARGS --rate R --db db_of(R)` at each of RATES until the write left
    enough log points for the cliff search; its result and store."""
    for rate in RATES:
        db = db_of(rate)
        done = run_ssdlab(*args, "--rate", rate, "--db", str(db))
        assert done.code == 0, done.stderr
        if cliff_finding(db)["short"] is None:
            break
    return done, db


def buffered_if_needed(folder: Path) -> list[str]:
    """`--buffered` where the file system refuses O_DIRECT (tmpfs), else nothing."""
    return [] if probe_direct_io(folder) is None else ["--buffered"]


def cliff_finding(db: Path) -> dict[str, object]:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT body_json FROM findings WHERE name = 'cache-cliff'").fetchone()
    return dict(json.loads(row[0]))


def test_cache_on_a_file_finds_no_false_cliff(tmp_path: Path) -> None:
    plots = tmp_path / "plots"
    done, db = capped_long_enough(
        "run", "cache", str(tmp_path), *CAPPED[:2], *CAPPED[4:], "--recovery-idle", "1",
        "--json", "--plots", str(plots), *buffered_if_needed(tmp_path),
        db_of=lambda rate: tmp_path / f"db-{rate}",
    )  # fmt: skip
    doc = json.loads(done.stdout)
    assert doc["profile"] == "cache"
    assert doc["verdict"]
    cliff = cliff_finding(db)
    # a capped write to a file runs at one level: no cliff may be invented, and the write was
    # long enough to search (a no-cliff verdict, not a too-short one)
    assert cliff["cliff_bytes"] is None
    assert cliff["reason"]
    assert cliff["short"] is None
    assert len(cliff["series"]) >= 10  # what the search needs
    # the bytes axis is counted from fio's histogram log, exactly: it ends at the 64 MiB written
    assert cliff["series"][-1][0] == pytest.approx(64 * 2**20, rel=1e-9)
    # ... and the largest drop its log holds is short of 30 %: beyond doubt ("no") on a steady
    # machine, while a loaded one may scatter the seconds so much that it cannot say
    # ("inconclusive"); never "yes"
    assert cliff["state"] in ("no", "inconclusive")
    high = cliff["uncertainty"]["drop_pct_interval"]["high"]
    assert (high < 30) == (cliff["state"] == "no"), high
    assert doc["verdict"][0].startswith(f"Write-cache cliff: {cliff['state']} — no cliff in")
    assert (plots / "cache-cliff.svg").read_text().startswith("<?xml")
    assert not list(tmp_path.glob("ssdlab-*.tmp"))
    with sqlite3.connect(db) as conn:
        keys = [r[0] for r in conn.execute("SELECT step_key FROM step_results ORDER BY id")]
    assert keys == ["write", "probe"]

    # cachefit --from-run: this run found no cliff, so it has no size to give
    refused = run_ssdlab("plan", "cachefit", str(tmp_path), "--from-run", "1", "--db", str(db))
    assert refused.code == 2
    assert "--cache-size" in refused.stderr
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


def test_repeated_writes_are_each_stored_and_judged_together(tmp_path: Path) -> None:
    db = tmp_path / "db"
    done = run_ssdlab(
        "run", "cache", str(tmp_path), *CAPPED, "--repeat", "2", "--db", str(db), "--json",
        *buffered_if_needed(tmp_path),
    )  # fmt: skip
    assert done.code == 0, done.stderr
    with sqlite3.connect(db) as conn:
        rounds = conn.execute(
            "SELECT step_key, round_index FROM step_results ORDER BY id"
        ).fetchall()
    assert rounds == [("write", 1), ("write", 2)]
    uncertainty = cliff_finding(db)["uncertainty"]
    assert (uncertainty["writes"], uncertainty["basis"]) == (2, "repeats")
    assert [w["cliff_bytes"] for w in uncertainty["per_write"]] == [None, None]


@needs_loop
@pytest.mark.loop
def test_cache_on_a_loop_device(tmp_path: Path, lab: LoopLab) -> None:
    size = 128 * 2**20
    device = lab.loop(size, pattern=b"cache me").path
    before = sha256_of(device, size)
    refused = run_ssdlab("run", "cache", device, *FAST, "--db", str(tmp_path / "db"))
    assert refused.code == 3
    assert f"--destroy-data {device}" in refused.stderr
    assert sha256_of(device, size) == before
    done, db = capped_long_enough(
        "run", "cache", device, "--destroy-data", device, *CAPPED[4:], "--pattern", "rand",
        db_of=lambda rate: tmp_path / f"db-{rate}",
    )  # fmt: skip
    assert "Write-cache cliff" in done.stdout
    assert sha256_of(device, size) != before
    cliff = cliff_finding(db)
    assert cliff["short"] is None
    assert len(cliff["series"]) >= 10  # what the search needs


def test_a_write_too_short_for_a_cliff_says_so(tmp_path: Path) -> None:
    """3 MiB at most 4 MiB/s logged every 0.25 s: 2 or 3 points on any disk faster than
    1.2 MiB/s; the terminal, the stored finding and the report say why there is no verdict."""
    db = tmp_path / "db"
    done = run_ssdlab(
        "run", "cache", str(tmp_path), "--size", "3MiB", "--rate", "4MiB", "--block-size",
        "64KiB", "--log-interval", "0.25", "--db", str(db), *buffered_if_needed(tmp_path),
    )  # fmt: skip
    assert done.code == 0, done.stderr
    terminal = " ".join(done.stdout.split())  # rich wraps lines
    assert "fewer than the 10 the cliff detection needs" in terminal
    assert "write more (--size)" in terminal
    assert "no cliff in" not in terminal
    cliff = cliff_finding(db)
    assert cliff["cliff_bytes"] is None
    assert cliff["short"]["points_needed"] == 10
    assert cliff["short"]["points"] < 10
    assert cliff["short"]["write_s"] >= 0.5
    assert str(cliff["reason"]).startswith("the write took ")
    out = tmp_path / "report.md"
    assert run_ssdlab("report", "1", "-o", str(out), "--db", str(db)).code == 0
    text = out.read_text()
    assert "## Write-cache cliff" in text
    assert "fewer than the 10 the cliff detection" in text
