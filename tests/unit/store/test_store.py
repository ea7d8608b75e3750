"""The SQLite store: migrations, refusal of newer schemas, round trips, dead-run recovery."""

import sqlite3
from pathlib import Path

import pytest

from ssdlab.errors import SchemaTooNew, StoreError
from ssdlab.model.health import DriveIdentity, HealthSample, HealthValue, Provenance
from ssdlab.model.result import DirectionMetrics, SeriesPoint
from ssdlab.model.run import Capture, RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import DeviceIdentity
from ssdlab.store.captures import add_capture, load_capture_inputs
from ssdlab.store.db import SCHEMA_VERSION, migrations, open_store
from ssdlab.store.devices import upsert_device
from ssdlab.store.health import (
    add_health_sample,
    device_key,
    load_health_sample,
    load_health_samples,
)
from ssdlab.store.lifecycle import NewRun, create_run, finish_run, mark_dead_runs
from ssdlab.store.run_rows import latest_run_id, load_run
from ssdlab.store.steps import add_step_result, load_step_results
from ssdlab.store.test_files import add_test_file, leftover_test_files, mark_test_file_removed

METRICS = DirectionMetrics(
    io_bytes=4096 * 1000,
    total_ios=1000,
    runtime_s=1.0,
    bw_bytes_per_s=4096000.0,
    iops=1000.0,
    lat_mean_ns=950.5,
    lat_min_ns=100.0,
    lat_max_ns=9000.0,
    lat_stddev_ns=20.0,
    clat_mean_ns=900.0,
    clat_percentiles_ns=((50.0, 800), (99.0, 4000)),
)


def new_run(conn: sqlite3.Connection, pid: int = 1) -> int:
    return create_run(
        conn,
        NewRun(
            kind="quick",
            profile="quick",
            profile_version=1,
            preset="default",
            target_kind="file",
            target_path="/tmp/x",
            target_json="{}",
            device_id=None,
            settings_json='{"count": 1}',
            plan_json="{}",
            environment_json='{"kernel": "6"}',
            started_at_s=1000.0,
            host="h",
            pid=pid,
            boot_id="b",
        ),
    )


FIO_CAPTURE = Capture(
    tool="fio",
    argv=("fio", "--output-format=json+", "job.fio"),
    exit_code=0,
    stdout='{"jobs": []}',
    stderr="",
    started_at_s=1.0,
    ended_at_s=2.0,
    tool_version="fio-3.33",
    input_text="[global]\n",
)


def measured_step(capture_id: int, series: tuple[SeriesPoint, ...] = ()) -> StepResult:
    """Pass 1 of RND4K Q1T1 read, parsed from the capture `capture_id`."""
    return StepResult(
        step_key="rnd4k-q1t1-read",
        step_label="RND4K Q1T1",
        direction="read",
        round_index=1,
        discarded=False,
        bw_bytes_per_s=4096000.0,
        iops=1000.0,
        lat_mean_ns=None,
        read=METRICS,
        write=None,
        capture_id=capture_id,
        series=series,
    )


def test_new_store_is_migrated_wal_and_has_foreign_keys(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "sub" / "db")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert [v for v, _ in migrations()] == list(range(1, SCHEMA_VERSION + 1))


def test_newer_schema_is_refused_with_advice(tmp_path: Path) -> None:
    path = tmp_path / "db"
    open_store(path).close()
    with sqlite3.connect(path) as raw:
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(SchemaTooNew, match="upgrade ssdlab"):
        open_store(path)


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="--db"):
        open_store(path)


def test_round_trip_of_runs_captures_steps_and_series(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "db")
    device_id = upsert_device(conn, DeviceIdentity(name="loop0", path="/dev/loop0"))
    assert upsert_device(conn, DeviceIdentity(name="loop0", path="/dev/loop0")) == device_id
    run_id = new_run(conn)
    capture_id = add_capture(conn, run_id, FIO_CAPTURE, {"p_bw.1.log": "1000, 4, 0, 0, 0\n"})
    step = measured_step(capture_id, (SeriesPoint(1.0, "read", 4096000.0, 1000.0, None),))
    add_step_result(conn, run_id, step)
    finish_run(conn, run_id, RunStatus.COMPLETE, None, 1010.0)
    assert load_step_results(conn, run_id) == [step]
    loaded = load_run(conn, run_id)
    assert isinstance(loaded, RunRecord)
    assert loaded.status is RunStatus.COMPLETE
    assert loaded.settings == {"count": 1}
    assert load_capture_inputs(conn, run_id) == [(capture_id, "fio", "[global]\n")]
    assert latest_run_id(conn) == run_id
    with pytest.raises(StoreError):  # the same pass twice is a bug, not a second row
        add_step_result(conn, run_id, step)
    assert len(load_step_results(conn, run_id)) == 1


def test_dead_runs_become_interrupted_and_their_files_leftovers(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "db")
    alive, dead = new_run(conn, pid=10), new_run(conn, pid=20)
    add_test_file(conn, dead, "/tmp/ssdlab-dead.tmp", 1.0)
    kept = add_test_file(conn, alive, "/tmp/ssdlab-alive.tmp", 1.0)
    assert mark_dead_runs(conn, lambda run: run.pid == 10) == [dead]
    assert load_run(conn, dead).status is RunStatus.INTERRUPTED  # type: ignore[union-attr]
    assert load_run(conn, alive).status is RunStatus.RUNNING  # type: ignore[union-attr]
    assert [f.path for f in leftover_test_files(conn)] == ["/tmp/ssdlab-dead.tmp"]
    mark_test_file_removed(conn, kept, 2.0)
    assert mark_dead_runs(conn, lambda _run: True) == []


def test_read_only_store_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "db"
    conn = open_store(path)
    conn.close()
    uri_conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    with pytest.raises(StoreError, match="cannot write"):
        new_run(uri_conn)


def test_a_version_1_store_is_migrated_keeping_its_runs(tmp_path: Path) -> None:
    path = tmp_path / "db"
    first_sql = migrations()[0][1]
    with sqlite3.connect(path) as raw:
        raw.executescript(first_sql)
        raw.execute("PRAGMA user_version = 1")
    conn = open_store(path)
    run_id = new_run(conn)
    conn.close()
    conn = open_store(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert load_run(conn, run_id) is not None
    assert conn.execute("SELECT COUNT(*) FROM health_samples").fetchone()[0] == 0


def test_health_samples_round_trip_with_provenance(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "db")
    run_id = new_run(conn)
    sample = HealthSample(
        taken_at_s=1000.0,
        identity=DriveIdentity("ATA", "CT1000MX500SSD1", "X1", "M3CR045", 10**12),
        host_written_bytes=HealthValue(
            5e12, Provenance("ata_smart_attributes[246]", 9765625000, "512-byte LBA", 512.0)
        ),
        wear_used_pct=HealthValue(3.0, Provenance("ata_smart_attributes[202]", 3, "%", 1.0)),
        flags=("something odd",),
    )
    sample_id = add_health_sample(conn, run_id, "before", sample, (1, 2))
    (stored,) = load_health_samples(conn, run_id=run_id)
    assert stored.sample == sample
    assert stored.capture_ids == (1, 2)
    assert stored.sample_id == sample_id
    assert stored.phase == "before"
    assert load_health_samples(conn, key=device_key(sample.identity)) == [stored]
    assert load_health_sample(conn, sample_id) == stored
    assert load_health_sample(conn, sample_id + 1) is None
