"""store/latest.py and schema 9: what `ssdlab metrics` reads of the store is what the store
holds (the figures schema 9 copies out of each sample's JSON, the samples and passes read
without the codec's general decoder), and every statement of a scrape finds its rows on an
index: no full scan of the health samples, the step results or the runs."""

import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from ssdlab.analysis.passes import p99_ns
from ssdlab.app.metrics import MetricsRequest, drive_states, store_metrics
from ssdlab.errors import StoreError
from ssdlab.model.step import StepResult
from ssdlab.store import latest
from ssdlab.store.db import open_store
from ssdlab.store.health import load_health_sample, load_health_samples
from ssdlab.store.steps import load_step_results
from tests.unit.app.metrics_stores import OLD_STORE, varied_store

FIGURES = ("firmware", "wear_used_resolution", "erase_count_avg", "erase_count_resolution")


def _resolution(value: object) -> float | None:
    provenance = getattr(value, "provenance", None)
    return None if provenance is None else provenance.resolution


def _expected_figures(conn: sqlite3.Connection) -> dict[int, tuple[object, ...]]:
    """Each sample's schema 9 figures, from the sample decoded by the codec."""
    found = {}
    for key in [str(r[0]) for r in conn.execute("SELECT DISTINCT device_key FROM health_samples")]:
        for stored in load_health_samples(conn, key=key):
            sample = stored.sample
            found[stored.sample_id] = (
                sample.identity.firmware,
                _resolution(sample.wear_used_pct),
                sample.erase_count_avg.value,
                _resolution(sample.erase_count_avg),
            )
    return found


def _stored_figures(conn: sqlite3.Connection) -> dict[int, tuple[object, ...]]:
    rows = conn.execute(f"SELECT id, {', '.join(FIGURES)} FROM health_samples")
    return {int(row[0]): tuple(row)[1:] for row in rows}


def test_the_figures_of_samples_written_before_schema_9_are_filled_in(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    shutil.copyfile(OLD_STORE, path)
    conn = open_store(path)  # migrated from the schema of commit 98b38bc
    expected = _expected_figures(conn)
    assert len(expected) > 100  # a simulation, an endurance run, imports
    assert _stored_figures(conn) == expected


def test_every_sample_written_or_collected_has_its_figures(tmp_path: Path) -> None:
    conn = open_store(varied_store(tmp_path).path)
    expected = _expected_figures(conn)
    assert _stored_figures(conn) == expected
    assert {figures[0] for figures in expected.values()} >= {"M3CR023", "ACME0101", None}


def _pass(step: StepResult | latest.StoredPass) -> tuple[object, ...]:
    """What the metrics read of a pass."""
    sides = [None if m is None else m.clat_percentiles_ns for m in (step.read, step.write)]
    return (step.step_key, step.direction, step.bw_bytes_per_s, step.iops, step.lat_mean_ns, *sides)


def test_samples_and_passes_read_as_the_codec_reads_them(tmp_path: Path) -> None:
    conn = open_store(varied_store(tmp_path).path)
    ids = [int(r[0]) for r in conn.execute("SELECT id FROM health_samples")]
    for sample_id in ids:
        stored = load_health_sample(conn, sample_id)
        assert stored is not None
        assert latest.health_sample(conn, sample_id) == stored.sample
        sample = stored.sample
        assert latest.written_counters(conn, sample_id) == (
            sample.taken_at_s,
            sample.host_written_bytes.value,
            _resolution(sample.host_written_bytes),
            sample.nand_written_bytes.value,
            _resolution(sample.nand_written_bytes),
        )
    runs = [int(r[0]) for r in conn.execute("SELECT DISTINCT run_id FROM step_results")]
    passes = latest.measured_passes(conn, runs)
    for run_id in runs:
        decoded = [s for s in load_step_results(conn, run_id, with_series=False) if not s.discarded]
        read = [_pass(p) for p in passes[run_id]]
        assert read == [_pass(s) for s in decoded], run_id
    assert sum(len(p) for p in passes.values()) >= 100  # every pass of 20 runs


def test_a_sample_that_does_not_fit_is_a_store_error(tmp_path: Path) -> None:
    conn = open_store(varied_store(tmp_path, files=False).path)
    sample_id = int(conn.execute("SELECT MAX(id) FROM health_samples").fetchone()[0])
    conn.execute(
        "UPDATE health_samples SET sample_json = json_set(sample_json, '$.temperature_c.value',"
        " 'hot') WHERE id = ?",
        (sample_id,),
    )
    with pytest.raises(StoreError, match=f"health sample {sample_id}"):
        latest.health_sample(conn, sample_id)
    conn.execute(
        "UPDATE health_samples SET sample_json = json_set(sample_json, '$.colour', 'red')"
        " WHERE id = ?",
        (sample_id - 1,),
    )
    with pytest.raises(StoreError, match="colour"):
        latest.health_sample(conn, sample_id - 1)


def test_drives_and_their_series_in_the_order_the_analysis_reads_them(tmp_path: Path) -> None:
    conn = open_store(varied_store(tmp_path).path)
    keys = latest.drive_keys(conn)
    assert keys == sorted(
        {str(r[0]) for r in conn.execute("SELECT device_key FROM health_samples")}
    )
    for key in keys:
        series = latest.drive_series(conn, key)
        stored = load_health_samples(conn, key=key)
        samples = [s.sample for s in stored]
        assert list(series.sample_ids) == [s.sample_id for s in stored]
        assert list(series.times_s) == [s.taken_at_s for s in samples]
        assert list(series.wear_pct) == [s.wear_used_pct.value for s in samples]
        assert list(series.erase_count) == [s.erase_count_avg.value for s in samples]
        assert list(series.host_written_bytes) == [s.host_written_bytes.value for s in samples]
        assert list(series.wear_resolution) == [_resolution(s.wear_used_pct) for s in samples]
        assert list(series.imported) == [s.phase == "import" for s in stored]
        taken = [s for s in stored if s.phase != "import"]
        assert series.last_taken_run_id() == (taken[-1].run_id if taken else None)


def test_figures_and_percentiles_that_do_not_fit_are_store_errors(tmp_path: Path) -> None:
    conn = open_store(varied_store(tmp_path, files=False).path)
    key = "CT500MX500SSD1|MX-WATCH-1"
    conn.execute(
        "UPDATE health_samples SET wear_used_pct = 'much' WHERE id = (SELECT MAX(id)"
        " FROM health_samples WHERE device_key = ?)",
        (key,),
    )
    with pytest.raises(StoreError, match=f"drive {re.escape(key)} .* not a number"):
        drive_states(conn)
    (run_id, step_id) = conn.execute(
        "SELECT run_id, id FROM step_results WHERE discarded = 0 AND read_json IS NOT NULL"
        " ORDER BY id LIMIT 1"
    ).fetchone()
    conn.execute(
        "UPDATE step_results SET read_json = json_set(read_json, '$.blob_version', 99)"
        " WHERE id = ?",
        (step_id,),
    )
    (first, *_) = latest.measured_passes(conn, [run_id])[run_id]
    assert first.read is not None
    with pytest.raises(StoreError, match=f"step result {step_id}'s read was written by a newer"):
        p99_ns(first)
    conn.execute("UPDATE step_results SET read_json = '{not json' WHERE id = ?", (step_id,))
    with pytest.raises(StoreError, match="step result"):
        latest.measured_passes(conn, [run_id])


ONE_RUN_TABLES = ("health_samples", "step_results", "runs", "findings", "captures", "devices")


def _plan(conn: sqlite3.Connection, statement: str) -> list[str]:
    return [str(row[3]) for row in conn.execute(f"EXPLAIN QUERY PLAN {statement}")]


def _scans(plan: list[str]) -> list[str]:
    tables = "|".join(ONE_RUN_TABLES)
    return [line for line in plan if re.match(rf"SCAN ({tables})\b", line)]


def test_every_statement_of_a_scrape_finds_its_rows_on_an_index(tmp_path: Path) -> None:
    store = varied_store(tmp_path)
    conn = open_store(store.path)
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    store_metrics(conn, MetricsRequest(store.now_s))
    conn.set_trace_callback(None)
    selects = {s for s in statements if s.lstrip().upper().startswith(("SELECT", "WITH"))}
    assert len(selects) > 10
    plans = {s: _plan(conn, s) for s in selects}
    assert {s: _scans(p) for s, p in plans.items() if _scans(p)} == {}
    lines = [line for plan in plans.values() for line in plan]
    for covering in ("health_by_device", "health_by_run", "runs_by_profile"):
        assert any(f"COVERING INDEX {covering}" in line for line in lines), covering
    # a drive's series: its index entries only, in time order, no sort
    series = [p for s, p in plans.items() if "wear_used_resolution" in s and "device_key" in s]
    assert len(series) == len(latest.drive_keys(conn))
    expected = ["SEARCH health_samples USING COVERING INDEX health_by_device (device_key=?)"]
    assert all(plan == expected for plan in series), series


def test_the_scrape_decodes_no_history_it_does_not_print(tmp_path: Path) -> None:
    """Of a drive's samples, the scrape decodes its latest and reads the byte counters of the
    one its recent window starts at; every sample only of drives the figures cannot describe
    (here: the one with a single sample with a time, the one with a `|` in its serial, and
    nvme-cli output without a serial or a time)."""
    store = varied_store(tmp_path)
    conn = open_store(store.path)
    keys = latest.drive_keys(conn)
    series = {key: latest.drive_series(conn, key) for key in keys}
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    store_metrics(conn, MetricsRequest(store.now_s))
    conn.set_trace_callback(None)
    whole = [s for s in statements if s.startswith("SELECT * FROM health_samples")]
    by_drive = sorted(s.split("'")[1] for s in whole if "device_key" in s)
    assert by_drive == ["?|?", "CT500MX500SSD1|MX-HALF-1", "ODD|MODEL|S|1"]
    assert len(whole) - len(by_drive) == 2  # the two endurance runs' own samples
    one = [s for s in statements if s.startswith("SELECT run_id, sample_json FROM health_samples")]
    assert len(one) == len(keys)  # the latest of each drive
    counters = [s for s in statements if "host_written_bytes.provenance" in s]
    windows = [k for k in keys if k not in by_drive and len(series[k]) >= 2]
    assert len(counters) == len(windows) >= 7  # a recent window's start
    # nothing else reads a sample's JSON
    read = [s for s in statements if "sample_json" in s or s.startswith("SELECT * FROM health")]
    assert sorted(read) == sorted(one + whole + counters)
