"""`ssdlab export RUN --format csv` for every kind of run, and `compare --format csv`, read
back with the csv module and checked against the store and `show --json`.

The old store (tests/data/store/main-98b38bc.sqlite, copied first) holds quick, fill, align,
cache, sim, endurance, import and health runs; one tiny real sweep covers the sweep grid."""

import csv
import io
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.abuse.probes import ssdlab_in_process
from tests.conftest import HANG_S, needs_fio
from tests.e2e.conftest import ROOT, LoopLab, needs_loop, run_ssdlab

STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    copy = tmp_path / "store.sqlite"
    shutil.copyfile(STORE, copy)
    return copy


def rows_of(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def export(db: Path, *args: str) -> list[dict[str, str]]:
    code, out, err = ssdlab_in_process("export", *args, "--format", "csv", "--db", str(db))
    assert code == 0, err
    return rows_of(out)


def scalar(db: Path, sql: str, *params: object) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute(sql, params).fetchone()[0])


def test_every_run_of_the_old_store_exports_its_main_table(old_store: Path) -> None:
    for run_id in range(1, 15):
        code, out, err = ssdlab_in_process(
            "export", str(run_id), "--format", "csv", "--db", str(old_store)
        )
        assert code == 0, (run_id, err)
        assert "usage:" not in err
        assert rows_of(out), run_id


def test_profile_runs_give_one_row_per_stored_step(old_store: Path) -> None:
    for run_id in (4, 5, 7, 8, 14):  # fill, align, cache (interrupted), endurance iterations
        rows = export(old_store, str(run_id))
        stored = scalar(old_store, "SELECT count(*) FROM step_results WHERE run_id = ?", run_id)
        assert len(rows) == stored
        assert {r["run_id"] for r in rows} == {str(run_id)}
    with sqlite3.connect(old_store) as conn:
        stored_rows = conn.execute(
            "SELECT round_index, bw_bytes_per_s, iops FROM step_results WHERE run_id = 14"
            " ORDER BY id"
        ).fetchall()
    rows = export(old_store, "14")
    assert [int(r["round_index"]) for r in rows] == [s[0] for s in stored_rows]
    assert [float(r["bw_bytes_per_s"]) for r in rows] == pytest.approx([s[1] for s in stored_rows])
    assert [float(r["iops"]) for r in rows] == pytest.approx([s[2] for s in stored_rows])
    assert {r["queue_depth"] for r in rows} == {"4"}  # from the stored plan


def test_series_and_health_tables(old_store: Path) -> None:
    # the simulated drive's main table: one row per stored log interval
    series = export(old_store, "11")
    points = scalar(
        old_store,
        "SELECT count(*) FROM series JOIN step_results s ON s.id = step_result_id"
        " WHERE s.run_id = 11",
    )
    assert len(series) == points
    assert [float(r["elapsed_s"]) for r in series] == sorted(float(r["elapsed_s"]) for r in series)
    written = [int(r["written_bytes"]) for r in series]
    assert written == sorted(written)
    # its health samples (the simulated counters) and the endurance run's
    for run_id in ("11", "14"):
        health = export(old_store, run_id, "--table", "health")
        stored = scalar(old_store, "SELECT count(*) FROM health_samples WHERE run_id = ?", run_id)
        assert len(health) == stored
    # a health import's main table is its samples
    health = export(old_store, "13")
    with sqlite3.connect(old_store) as conn:
        samples = [
            json.loads(r[0])
            for r in conn.execute(
                "SELECT sample_json FROM health_samples WHERE run_id = 13 ORDER BY taken_at_s, id"
            )
        ]
    assert len(health) == len(samples)
    assert [float(r["host_written_bytes"]) for r in health] == [
        s["host_written_bytes"]["value"] for s in samples
    ]
    assert health[0]["waf"] == ""  # nothing before the first sample
    assert float(health[1]["waf"]) > 1


def test_a_quick_run_keeps_its_passes_table_and_has_the_others(old_store: Path) -> None:
    passes = export(old_store, "1")
    assert len(passes) == scalar(old_store, "SELECT count(*) FROM step_results WHERE run_id = 1")
    steps = export(old_store, "1", "--table", "steps")
    assert {
        (r["queue_depth"], r["threads"]) for r in steps if r["step_key"] == "seq1m-q8t1-read"
    } == {("8", "1")}


def test_a_missing_table_is_one_line_naming_what_there_is(old_store: Path, tmp_path: Path) -> None:
    code, out, err = ssdlab_in_process(
        "export", "4", "--format", "csv", "--table", "windows", "--db", str(old_store)
    )
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1
    assert "usage:" not in err
    assert "run 4 (fill) has no windows table; its CSV tables: steps" in err
    written = tmp_path / "fill.csv"
    code, out, err = ssdlab_in_process(
        "export", "4", "--format", "csv", "-o", str(written), "--db", str(old_store)
    )
    assert code == 0, err
    assert len(rows_of(written.read_text())) == 3


def test_compare_as_csv(old_store: Path) -> None:
    code, out, err = ssdlab_in_process("compare", "1", "2", "9", "--json", "--db", str(old_store))
    assert code == 0, err
    document = json.loads(out)
    code, out, err = ssdlab_in_process(
        "compare", "1", "2", "9", "--format", "csv", "--db", str(old_store)
    )
    assert code == 0, err
    rows = rows_of(out)
    changes = [(c["run"], ch) for c in document["comparisons"] for ch in c["changes"]]
    assert len(rows) == len(changes)
    for row, (run, change) in zip(rows, changes, strict=True):
        assert (row["run_id"], row["metric"]) == (str(run), change["metric"])
        if change["ratio"] is None:
            assert row["ratio"] == ""
        else:
            assert float(row["ratio"]) == pytest.approx(change["ratio"])


@needs_fio
def test_a_sweep_exports_one_row_per_grid_point(tmp_path: Path) -> None:
    db = tmp_path / "db"
    done = run_ssdlab(
        "run", "sweep", str(tmp_path), "--size", "8MiB", "--threads", "1", "--iodepths", "1,2",
        "--runtime", "0.2", "--ramp", "0", "--repeat", "1", "--db", str(db), "--json",
    )  # fmt: skip
    assert done.code == 0, done.stderr
    cells = json.loads(done.stdout)["result"]["sweep-cells"]["cells"]
    every = export(db, "last")
    assert len(every) == scalar(db, "SELECT count(*) FROM step_results")
    rows = [r for r in every if r["discarded"] == "0"]  # the file's preparation is kept, flagged
    assert len(rows) == len(cells)
    got = sorted((int(r["threads"]), int(r["queue_depth"]), float(r["iops"])) for r in rows)
    want = sorted((c["threads"], c["iodepth"], c["iops"]) for c in cells)
    assert [g[:2] for g in got] == [w[:2] for w in want]
    assert [g[2] for g in got] == pytest.approx([w[2] for w in want])


@needs_fio
@needs_loop
@pytest.mark.loop
def test_a_pts_run_exports_its_rounds_and_steady_state_windows(
    tmp_path: Path, lab: LoopLab
) -> None:
    device = lab.loop(64 * 2**20).path
    db = tmp_path / "db"
    done = run_ssdlab(
        "run", "pts-tp", device, "--round-seconds", "0.2", "--block-sizes", "128KiB",
        "--wipc-multiple", "0.25", "--max-rounds", "5", "--destroy-data", device,
        "--db", str(db), timeout=HANG_S,
    )  # fmt: skip
    assert done.code == 0, done.stderr
    rounds = export(db, "last")  # one row per round of every test point
    with sqlite3.connect(db) as conn:
        stored = conn.execute(
            "SELECT step_key, round_index, iops FROM step_results ORDER BY id"
        ).fetchall()
        bodies = [
            json.loads(b)
            for (b,) in conn.execute(
                "SELECT body_json FROM findings WHERE name LIKE 'pts-steady-state%' ORDER BY name"
            )
        ]
    assert [(r["step_key"], int(r["round_index"])) for r in rounds] == [s[:2] for s in stored]
    assert [float(r["iops"]) for r in rounds] == pytest.approx([s[2] for s in stored])
    windows = export(db, "last", "--table", "windows")
    checks = [check for body in bodies for check in body["checks"]]
    assert checks
    assert len(windows) == len(checks)
    for row, check in zip(windows, checks, strict=True):
        assert row["variable"] == check["variable"]
        assert float(row["average"]) == pytest.approx(check["average"])
        assert (int(row["first_round"]), int(row["last_round"])) == tuple(check["rounds"])
