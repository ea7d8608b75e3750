"""`ssdlab quick` end to end on small files with the real fio."""

import json
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import needs_fio
from tests.e2e.conftest import FAST, run_ssdlab

pytestmark = needs_fio


def quick_json(target: Path, db: Path, *extra: str) -> dict[str, object]:
    result = run_ssdlab("quick", str(target), *FAST, "--db", str(db), "--json", *extra)
    assert result.code == 0, result.stderr
    document: dict[str, object] = json.loads(result.stdout)
    return document


def test_quick_on_a_directory_runs_stores_and_cleans_up(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    db = tmp_path / "runs.db"
    doc = quick_json(target, db, "--mode", "read,write,mix")
    assert doc["format"] == "ssdlab-run"
    assert doc["format_version"] == 1
    run = doc["run"]
    assert isinstance(run, dict)
    assert run["status"] == "complete"
    tests = doc["tests"]
    assert isinstance(tests, list)
    # preset real: SEQ1M Q1T1 and RND4K Q1T1, in read, write and mix
    assert [(t["label"], t["direction"]) for t in tests] == [
        ("SEQ1M Q1T1", "read"),
        ("RND4K Q1T1", "read"),
        ("SEQ1M Q1T1", "write"),
        ("RND4K Q1T1", "write"),
        ("SEQ1M Q1T1", "mix"),
        ("RND4K Q1T1", "mix"),
    ]
    passes = doc["passes"]
    assert isinstance(passes, list)
    assert len(passes) == 12  # one warm-up and one measured pass per test
    assert sum(p["warmup"] for p in passes) == 6
    for p in passes:
        assert p["bw_bytes_per_s"] > 0
        assert p["iops"] > 0
        assert p["lat_mean_ns"] > 0
        # MB/s from bytes: io_bytes / runtime, fio's own numbers, converted once
        for side in ("read", "write"):
            metrics = p[side]
            if metrics:
                expected = metrics["io_bytes"] / metrics["runtime_s"]
                assert metrics["bw_bytes_per_s"] == pytest.approx(expected, rel=0.02)
    for t in tests:
        assert t["passes"] == 1
        assert t["stdev_bw_bytes_per_s"] is None  # one pass has no spread: unknown, not 0
    mix = next(p for p in passes if p["direction"] == "mix" and not p["warmup"])
    assert mix["bw_bytes_per_s"] == pytest.approx(
        mix["read"]["bw_bytes_per_s"] + mix["write"]["bw_bytes_per_s"]
    )
    assert list(target.iterdir()) == []  # the test file is gone
    with sqlite3.connect(db) as conn:
        captures = conn.execute("SELECT COUNT(*) FROM captures WHERE tool = 'fio'").fetchone()[0]
        logs = conn.execute("SELECT COUNT(*) FROM capture_files").fetchone()[0]
        series = conn.execute("SELECT COUNT(*) FROM series").fetchone()[0]
        removed = conn.execute("SELECT removed_at_s FROM test_files").fetchone()[0]
    assert captures == 13  # the fill plus 12 passes, stored raw
    assert logs > 0
    assert series > 0
    assert removed is not None


def test_show_runs_and_every_export_format(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    quick_json(tmp_path, db, "--mode", "read")
    runs = run_ssdlab("runs", "--db", str(db), "--json")
    assert runs.code == 0
    listed = json.loads(runs.stdout)["runs"]
    assert [r["status"] for r in listed] == ["complete"]
    run_id = str(listed[0]["id"])
    show = run_ssdlab("show", run_id, "--db", str(db))
    assert show.code == 0
    assert "SEQ1M Q1T1" in show.stdout
    assert "MB/s" in show.stdout
    jobs = run_ssdlab("show", "last", "--db", str(db), "--jobs")
    assert "rw=randread" in jobs.stdout
    assert "time_based" in jobs.stdout
    cdm = run_ssdlab("export", run_id, "--format", "cdm", "--db", str(db))
    assert "[Read]" in cdm.stdout
    assert "SEQ    1MiB (Q=  1, T= 1):" in cdm.stdout
    md = run_ssdlab("export", run_id, "--format", "md", "--db", str(db))
    assert "| SEQ1M Q1T1 |" in md.stdout
    csv = run_ssdlab("export", run_id, "--format", "csv", "--db", str(db))
    assert csv.stdout.splitlines()[0].startswith("run_id,test,label")
    assert len(csv.stdout.splitlines()) == 1 + 4
    out = tmp_path / "r.json"
    written = run_ssdlab("export", "last", "-o", str(out), "--db", str(db))
    assert written.code == 0
    assert json.loads(out.read_text())["run"]["id"] == int(run_id)


def test_keep_leaves_the_test_file_and_it_can_be_reused(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    doc = quick_json(tmp_path, db, "--mode", "read", "--keep")
    run = doc["run"]
    assert isinstance(run, dict)
    kept = Path(str(run["target"]["path"]))  # type: ignore[index]
    assert kept.exists()
    assert kept.stat().st_size == 8 * 2**20
    again = quick_json(kept, db, "--mode", "read,write")
    assert again["run"]["status"] == "complete"  # type: ignore[index]
    assert kept.exists()  # an existing file is never removed by ssdlab


def test_existing_file_that_is_not_a_test_file_is_never_overwritten(tmp_path: Path) -> None:
    precious = tmp_path / "thesis.txt"
    precious.write_bytes(b"do not touch" * 1000)
    result = run_ssdlab("quick", str(precious), *FAST, "--db", str(tmp_path / "db"))
    assert result.code == 1
    assert "does not overwrite" in result.stderr
    assert "Traceback" not in result.stderr
    assert precious.read_bytes() == b"do not touch" * 1000


@pytest.mark.parametrize(
    "name", ["a:b", "new\nline", "dollar$HOME", "semi;colon", 'quo"te', "back\\slash"]
)
def test_paths_fio_would_misread_are_refused(tmp_path: Path, name: str) -> None:
    folder = tmp_path / name
    folder.mkdir()
    result = run_ssdlab("quick", str(folder), *FAST, "--db", str(tmp_path / "db"))
    assert result.code == 1, result.stderr
    assert "fio would read" in result.stderr or "white space" in result.stderr
    assert list(folder.iterdir()) == []


def test_paths_with_spaces_equals_and_dashes_work(tmp_path: Path) -> None:
    folder = tmp_path / "-my disk=fast"
    folder.mkdir()
    doc = quick_json(folder, tmp_path / "db", "--mode", "read")
    assert doc["run"]["status"] == "complete"  # type: ignore[index]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--size", "12XB"], "not a size"),
        (["--count", "0"], "must be 1 or more"),
        (["--mix", "150"], "from 0 to 100"),
        (["--preset", "bogus"], "unknown preset"),
        (["--mode", "sideways"], "--mode"),
        (["--measure", "abc"], "not a number"),
        (["--size", "512KiB"], "at least 1MiB"),
    ],
)
def test_bad_option_values_exit_2_with_usage(tmp_path: Path, args: list[str], message: str) -> None:
    result = run_ssdlab("quick", str(tmp_path), *args, "--db", str(tmp_path / "db"))
    assert result.code == 2
    assert message in result.stderr
    assert "usage:" in result.stderr
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written, not even the store


def test_missing_fio_is_a_clear_error(tmp_path: Path) -> None:
    result = run_ssdlab(
        "quick",
        str(tmp_path),
        *FAST,
        "--db",
        str(tmp_path / "db"),
        env={"SSDLAB_FIO": str(tmp_path / "no-such-fio")},
    )
    assert result.code == 1
    assert "fio was not found" in result.stderr
    assert "apt-get install fio" in result.stderr
    assert not any(p.name.startswith("ssdlab-") for p in tmp_path.iterdir())


def test_too_old_fio_is_a_clear_error(tmp_path: Path) -> None:
    # Replays what fio 2.2.10 (Ubuntu 16.04) prints for --version.
    old = tmp_path / "fio"
    old.write_text("#!/bin/sh\necho fio-2.2.10\n")
    old.chmod(0o755)
    result = run_ssdlab(
        "quick", str(tmp_path), *FAST, "--db", str(tmp_path / "db"), env={"SSDLAB_FIO": str(old)}
    )
    assert result.code == 1
    assert "fio-2.2.10" in result.stderr
    assert "3.16 or newer" in result.stderr


def test_fio_failure_shows_its_stderr(tmp_path: Path) -> None:
    result = run_ssdlab(
        "quick",
        str(tmp_path),
        *FAST,
        "--mode",
        "read",
        "--ioengine",
        "sg",  # an engine fio has (an unknown one is refused before the run) that fails here
        "--db",
        str(tmp_path / "db"),
    )
    assert result.code == 1
    assert "fio exited with status" in result.stderr
    assert "ioengine sg only works on block or character devices" in result.stderr
    runs = json.loads(run_ssdlab("runs", "--json", "--db", str(tmp_path / "db")).stdout)
    assert runs["runs"][0]["status"] == "failed"
    assert not any(p.name.startswith("ssdlab-") for p in tmp_path.iterdir())


def test_a_newer_store_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "db"
    quick_json(tmp_path, db, "--mode", "read")
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA user_version = 99")
    result = run_ssdlab("runs", "--db", str(db))
    assert result.code == 1
    assert "schema version 99" in result.stderr
    assert "upgrade ssdlab" in result.stderr


def test_plan_prints_job_files_that_fio_accepts(tmp_path: Path) -> None:
    result = run_ssdlab("plan", "quick", str(tmp_path), "--preset", "nvme", "--check")
    assert result.code == 0, result.stderr
    assert "fio --parse-only: 73 of 73 OK" in result.stdout  # 1 fill + 4 tests x 3 modes x (5+1)
    assert "[seq128k-q32t1-read]" in result.stdout
    assert list(tmp_path.iterdir()) == []  # plan runs nothing and creates nothing
    as_json = json.loads(run_ssdlab("plan", "quick", str(tmp_path), "--json").stdout)
    assert as_json["format"] == "ssdlab-plan"
    assert len(as_json["jobs"]) == 73
