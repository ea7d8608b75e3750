"""`ssdlab run cachefit` end to end with real fio: on a file, and on a loop device."""

import json
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import needs_fio
from tests.e2e.conftest import LoopLab, needs_loop, run_ssdlab, sha256_of

pytestmark = [needs_fio]
# 8 MiB cache: inside 4 MiB, beyond 24 MiB; the `real` preset's two tests; tiny runtimes.
FAST = [
    "--cache-size", "8MiB", "--preset", "real", "--runtime", "0.2",
    "--interval", "0", "--recover", "0",
]  # fmt: skip
COMBINATIONS = {
    (mode, region) for mode in ("direct", "buffered") for region in ("inside", "beyond")
}


def test_cachefit_on_a_file(tmp_path: Path) -> None:
    db = tmp_path / "db"
    plots = tmp_path / "plots"
    result = run_ssdlab(
        "run", "cachefit", str(tmp_path), "--size", "32MiB", *FAST,
        "--db", str(db), "--json", "--plots", str(plots),
    )  # fmt: skip
    assert result.code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["format"] == "ssdlab-profile-run"
    assert doc["profile"] == "cachefit"
    data = doc["result"]
    assert (data["cache_bytes"], data["inside_bytes"], data["beyond_bytes"]) == (
        8 * 2**20,
        4 * 2**20,
        24 * 2**20,
    )
    rows = {(r["test"], r["direction"]): r for r in data["rows"]}
    assert set(rows) == {
        (test, direction)
        for test in ("SEQ1M Q1T1", "RND4K Q1T1")
        for direction in ("read", "write")
    }
    for row in rows.values():
        cells = {(c["io_mode"], c["region"]): c for c in row["cells"]}
        assert set(cells) == COMBINATIONS
        for cell in cells.values():
            assert cell["iops"] > 0
            assert cell["bytes_moved"] > 0
            assert cell["mb_per_s"] == pytest.approx(cell["bw_bytes_per_s"] / 1e6)
            assert cell["passes"] == 3  # --repeat 3, the default
            assert cell["iops_interval"]["basis"] == "repeats"
        assert {j["state"] for j in row["judged"]} <= {"yes", "no", "inconclusive"}
        figure = "mb_per_s" if row["pattern"] == "seq" else "iops"
        direct, buffered = (
            cells[("direct", "inside")][figure],
            cells[("buffered", "inside")][figure],
        )
        assert row["buffered_over_direct_inside"] == pytest.approx(buffered / direct)
        inside, beyond = direct, cells[("direct", "beyond")][figure]
        assert row["inside_over_beyond_direct"] == pytest.approx(inside / beyond)
    assert len(doc["verdict"]) >= 2
    for chart in ("cachefit-seq", "cachefit-rnd"):
        assert (plots / f"{chart}.svg").read_text().startswith("<?xml")
        assert (plots / f"{chart}.png").stat().st_size > 1000
    assert not list(tmp_path.glob("ssdlab-*.tmp")), "the test file is removed"
    with sqlite3.connect(db) as conn:
        names = {r[0] for r in conn.execute("SELECT name FROM findings")}
        assert {"cachefit-table", "target-facts"} <= names
        body = json.loads(
            conn.execute("SELECT body_json FROM findings WHERE name = 'cachefit-table'").fetchone()[
                0
            ]
        )
        assert body["effect_ratio"] == 1.5
        assert len(body["rows"]) == 4
        measured = conn.execute("SELECT COUNT(*) FROM step_results WHERE discarded = 0").fetchone()
        # 2 tests × read, write × direct, buffered × inside, beyond, in 3 rounds
        assert measured[0] == 48
        jobs = [
            r[0] or "" for r in conn.execute("SELECT input_text FROM captures WHERE tool = 'fio'")
        ]
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert len(jobs) == 49  # the fill and 16 tests three times, every one stored as run
    assert sum("invalidate=1" in job and "direct=0" in job for job in jobs) == 24
    shown = run_ssdlab("show", "last", "--db", str(db), env={"COLUMNS": "200"})
    assert shown.code == 0, shown.stderr
    assert "direct inside (4 MiB)" in shown.stdout
    assert "buffered beyond (24 MiB)" in shown.stdout
    assert "SEQ1M Q1T1 write" in shown.stdout
    assert "invalidate=1" in shown.stdout


def test_cachefit_leaves_out_what_does_not_fit_and_needs_a_cache_size(tmp_path: Path) -> None:
    missing = run_ssdlab("plan", "cachefit", str(tmp_path), "--preset", "real")
    assert missing.code == 2
    assert "--cache-size" in missing.stderr
    assert "--from-run" in missing.stderr
    planned = run_ssdlab(
        "plan", "cachefit", str(tmp_path), "--size", "16MiB", *FAST, "--check", "--json"
    )
    assert planned.code == 0, planned.stderr
    plan = json.loads(planned.stdout)
    assert plan["parse_only_failures"] == []
    assert plan["destructive"] is False
    assert any("beyond-cache tests left out" in note for note in plan["notes"])
    names = [job["name"] for job in plan["jobs"]]
    assert len(names) == 1 + 8
    assert not any("beyond" in name for name in names)
    assert not list(tmp_path.glob("ssdlab-*.tmp")), "planning creates no file"


@needs_loop
@pytest.mark.loop
def test_cachefit_on_a_loop_device_needs_destroy_data(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(32 * 2**20, pattern=b"cachefit").path
    before = sha256_of(device, 32 * 2**20)
    refused = run_ssdlab("run", "cachefit", device, *FAST, "--db", str(tmp_path / "db"))
    assert refused.code == 3, refused.stderr
    assert f"--destroy-data {device}" in refused.stderr
    assert sha256_of(device, 32 * 2**20) == before
    # one round: the rounds and their intervals are test_cachefit_on_a_file's (3, the default);
    # here the device's own behaviour, the gate, the region sizes and the data overwritten
    done = run_ssdlab(
        "run", "cachefit", device, "--destroy-data", device, *FAST, "--repeat", "1",
        "--db", str(tmp_path / "db"), "--json", "--plots", str(tmp_path / "plots"),
    )  # fmt: skip
    assert done.code == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["run"]["target"]["kind"] == "device"
    data = doc["result"]
    assert data["beyond_bytes"] == 24 * 2**20
    for row in data["rows"]:
        assert {(c["io_mode"], c["region"]) for c in row["cells"]} == COMBINATIONS
    assert sha256_of(device, 32 * 2**20) != before
    assert (tmp_path / "plots" / "cachefit-seq.svg").exists()
