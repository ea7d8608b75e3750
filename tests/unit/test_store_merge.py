"""Run UUIDs (schema 7) and copying whole runs between stores (store/merge.py): what `ssdlab
fleet collect` and a node's export do. Every test works on copies of the store an older
ssdlab wrote (tests/data/store/main-98b38bc.sqlite), never on the file itself."""

import json
import shutil
import socket
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ssdlab.errors import StoreError
from ssdlab.store import merge
from ssdlab.store.db import open_store
from ssdlab.store.findings import add_finding, load_findings
from ssdlab.store.merge import (
    copy_runs,
    export_runs,
    finished_run_uuids,
    remap_finding_body,
    remap_id,
    remap_id_list,
    run_fingerprint,
)
from ssdlab.store.run_rows import running_runs_on
from ssdlab.store.test_files import leftover_test_files
from tests.abuse.probes import ssdlab_in_process

OLD_STORE = Path(__file__).resolve().parents[1] / "data" / "store" / "main-98b38bc.sqlite"
SMART = OLD_STORE.parents[1] / "smart" / "ata-crucial-mx500-devstat-wrap.json"
RUNS = 14  # the runs the old store holds
CHILD_TABLES = ("captures", "step_results", "test_files", "health_samples", "findings")
# what differs between a run and its collected copy in `show --json`: the copy's id in the
# central store, and where it was collected from (host, node hostname, time of the collect)
ORIGIN_KEYS = ("id", "host", "node_host", "collected_at_s")


def _copy_of_old_store(folder: Path, name: str) -> Path:
    path = folder / name
    shutil.copyfile(OLD_STORE, path)
    return path


@pytest.fixture
def node_path(tmp_path: Path) -> Path:
    """A copy of the old store, migrated: a lab node's store."""
    path = _copy_of_old_store(tmp_path, "node.sqlite")
    open_store(path).close()
    return path


@pytest.fixture
def node(node_path: Path) -> Iterator[sqlite3.Connection]:
    conn = open_store(node_path)
    yield conn
    conn.close()


@pytest.fixture
def central_path(tmp_path: Path) -> Path:
    """Another copy of the old store (its runs get UUIDs of their own when it is migrated):
    a central store whose ids are taken, so every copied row gets an id the node's did not
    have."""
    return _copy_of_old_store(tmp_path, "central.sqlite")


@pytest.fixture
def central(central_path: Path) -> Iterator[sqlite3.Connection]:
    conn = open_store(central_path)
    yield conn
    conn.close()


def _count(conn: sqlite3.Connection, table: str) -> int:
    return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def _uuids(conn: sqlite3.Connection) -> list[str]:
    return [str(row[0]) for row in conn.execute("SELECT uuid FROM runs ORDER BY id")]


def _run_id(conn: sqlite3.Connection, run_uuid: str) -> int:
    return int(conn.execute("SELECT id FROM runs WHERE uuid = ?", (run_uuid,)).fetchone()[0])


def _show_json(db: Path, run_id: int) -> dict[str, object]:
    code, out, err = ssdlab_in_process("show", str(run_id), "--json", "--db", str(db))
    assert code == 0, err
    document = json.loads(out)
    assert isinstance(document, dict)
    return document


def _without_origin(document: dict[str, object]) -> dict[str, object]:
    run = document["run"]
    assert isinstance(run, dict)
    return {**document, "run": {k: v for k, v in run.items() if k not in ORIGIN_KEYS}}


def test_the_migration_gives_every_old_run_a_distinct_version_4_uuid(
    node: sqlite3.Connection,
) -> None:
    found = _uuids(node)
    assert len(set(found)) == RUNS
    parsed = [uuid.UUID(text) for text in found]
    assert {value.version for value in parsed} == {4}
    assert {value.variant for value in parsed} == {uuid.RFC_4122}
    assert [str(value) for value in parsed] == found


def test_two_migrated_copies_of_one_store_have_different_uuids(
    node: sqlite3.Connection, central: sqlite3.Connection
) -> None:
    assert not set(_uuids(node)) & set(_uuids(central))


def test_a_run_made_today_gets_a_uuid(tmp_path: Path) -> None:
    db = tmp_path / "new.sqlite"
    code, _out, err = ssdlab_in_process("health", "--import", str(SMART), "--db", str(db))
    assert code == 0, err
    conn = open_store(db)
    (made,) = _uuids(conn)
    conn.close()
    assert uuid.UUID(made).version == 4


def test_collecting_twice_stores_every_run_once(
    node: sqlite3.Connection, central: sqlite3.Connection
) -> None:
    first = copy_runs(node, central, host="lab-1", collected_at_s=1000.0)
    counts = {table: _count(central, table) for table in ("runs", *CHILD_TABLES)}
    second = copy_runs(node, central, host="lab-1", collected_at_s=2000.0)
    assert first.added == tuple(_uuids(node))
    assert second.skipped == tuple(_uuids(node))
    assert second.added == ()
    assert counts["runs"] == 2 * RUNS
    assert {table: _count(central, table) for table in counts} == counts


def test_a_collected_run_shows_as_on_its_node_but_for_id_and_origin(
    node: sqlite3.Connection, central: sqlite3.Connection, node_path: Path, central_path: Path
) -> None:
    copy_runs(node, central, host="lab-1", collected_at_s=1000.0)
    pairs = [
        (run_id, _run_id(central, run_uuid)) for run_id, run_uuid in enumerate(_uuids(node), 1)
    ]
    for node_id, central_id in pairs:
        assert central_id == node_id + RUNS
        on_node = _show_json(node_path, node_id)
        collected = _show_json(central_path, central_id)
        assert _without_origin(collected) == _without_origin(on_node), node_id


def test_a_collected_run_records_host_node_and_time(
    node: sqlite3.Connection, central: sqlite3.Connection, central_path: Path
) -> None:
    copy_runs(node, central, host="lab-1", collected_at_s=1000.0)
    run = _show_json(central_path, RUNS + 1)["run"]
    assert isinstance(run, dict)
    assert (run["host"], run["node_host"], run["collected_at_s"]) == ("lab-1", "vm", 1000.0)
    assert run["uuid"] == _uuids(node)[0]


def test_a_run_made_in_the_store_has_no_collect(node_path: Path) -> None:
    run = _show_json(node_path, 1)["run"]
    assert isinstance(run, dict)
    assert (run["host"], run["node_host"], run["collected_at_s"]) == ("vm", None, None)


def test_devices_are_found_again_not_added(
    node: sqlite3.Connection, central: sqlite3.Connection
) -> None:
    copy_runs(node, central, host="lab-1", collected_at_s=1000.0)
    assert _count(central, "devices") == 1
    device_ids = {row[0] for row in central.execute("SELECT DISTINCT device_id FROM runs")}
    assert device_ids <= {None, 1}


def test_health_samples_point_at_the_captures_of_their_copied_run(
    node: sqlite3.Connection, central: sqlite3.Connection
) -> None:
    copy_runs(node, central, host="lab-1", collected_at_s=1000.0)
    query = (
        "SELECT h.run_id, h.capture_ids_json, h.sample_json FROM health_samples h"
        " JOIN runs r ON r.id = h.run_id WHERE r.uuid = ? ORDER BY h.id"
    )
    checked = 0
    for run_uuid in _uuids(node):
        original = node.execute(query, (run_uuid,)).fetchall()
        copied = central.execute(query, (run_uuid,)).fetchall()
        assert [row[2] for row in copied] == [row[2] for row in original]
        for before, after in zip(original, copied, strict=True):
            old_ids, new_ids = json.loads(before[1]), json.loads(after[1])
            assert len(new_ids) == len(old_ids)
            for old_id, new_id in zip(old_ids, new_ids, strict=True):
                old = node.execute("SELECT stdout FROM captures WHERE id = ?", (old_id,))
                new = central.execute(
                    "SELECT stdout FROM captures WHERE id = ? AND run_id = ?", (new_id, after[0])
                )
                assert new.fetchone()[0] == old.fetchone()[0]
                checked += 1
    assert checked > 0


def test_every_copied_run_holds_what_the_node_holds(
    node: sqlite3.Connection, central: sqlite3.Connection
) -> None:
    copy_runs(node, central, host="lab-1", collected_at_s=1000.0)
    for node_id, run_uuid in enumerate(_uuids(node), 1):
        assert run_fingerprint(central, _run_id(central, run_uuid)) == run_fingerprint(
            node, node_id
        )


def test_a_finding_recording_a_capture_id_is_remapped(
    node: sqlite3.Connection, central: sqlite3.Connection
) -> None:
    capture_id = int(node.execute("SELECT MAX(id) FROM captures WHERE run_id = 4").fetchone()[0])
    add_finding(node, 4, "step:trim", "facts", {"capture_id": capture_id, "argv": ["x"]}, 1.0)
    copy_runs(node, central, host="lab-1", collected_at_s=1000.0)
    copied_run = _run_id(central, _uuids(node)[3])
    (finding,) = [f for f in load_findings(central, copied_run) if f.name == "step:trim"]
    new_id = finding.body["capture_id"]
    run_of = central.execute("SELECT run_id FROM captures WHERE id = ?", (new_id,)).fetchone()
    assert new_id != capture_id
    assert run_of[0] == copied_run


def _set_running(conn: sqlite3.Connection, run_id: int) -> None:
    conn.execute(
        "UPDATE runs SET status = 'running', ended_at_s = NULL, status_reason = NULL WHERE id = ?",
        (run_id,),
    )


def test_a_run_collected_while_running_is_updated_in_place_once_it_finished(
    node: sqlite3.Connection, central: sqlite3.Connection
) -> None:
    _set_running(node, 14)
    copy_runs(node, central, host="lab-1", collected_at_s=1000.0)
    run_uuid = _uuids(node)[13]
    central_id = _run_id(central, run_uuid)
    samples = _count(central, "health_samples")
    node.execute("UPDATE runs SET status = 'complete', ended_at_s = 5.0 WHERE id = 14")
    add_finding(node, 14, "late", "facts", {"note": "after the first collect"}, 2.0)
    result = copy_runs(node, central, host="lab-1", collected_at_s=2000.0)
    assert result.updated == (run_uuid,)
    assert _run_id(central, run_uuid) == central_id
    status = central.execute("SELECT status, collected_at_s FROM runs WHERE id = ?", (central_id,))
    assert tuple(status.fetchone()) == ("complete", 2000.0)
    assert run_fingerprint(central, central_id) == run_fingerprint(node, 14)
    assert _count(central, "health_samples") == samples
    assert "late" in {f.name for f in load_findings(central, central_id)}


def test_a_running_run_the_node_has_not_changed_is_left_alone(
    node: sqlite3.Connection, central: sqlite3.Connection
) -> None:
    _set_running(node, 14)
    copy_runs(node, central, host="lab-1", collected_at_s=1000.0)
    result = copy_runs(node, central, host="lab-1", collected_at_s=2000.0)
    assert result.updated == ()
    assert _uuids(node)[13] in result.skipped


def test_a_collected_running_run_is_not_taken_for_dead(
    node: sqlite3.Connection, central: sqlite3.Connection, central_path: Path
) -> None:
    # its process runs on the node, even when the node's inventory name is this machine's
    # (whose boot id differs from the node's, so a run made here would count as dead): the
    # central store keeps it running until a collect brings its end
    _set_running(node, 14)
    here = socket.gethostname()
    copy_runs(node, central, host=here, collected_at_s=1000.0)
    code, out, err = ssdlab_in_process("runs", "--json", "--host", here, "--db", str(central_path))
    assert code == 0, err
    statuses = {run["uuid"]: run["status"] for run in json.loads(out)["runs"]}
    assert statuses[_uuids(node)[13]] == "running"


def test_finished_runs_given_are_skipped(
    node: sqlite3.Connection, central: sqlite3.Connection
) -> None:
    given = _uuids(node)[:5]
    result = copy_runs(node, central, host="lab-1", finished_uuids=given, collected_at_s=1.0)
    assert result.skipped == tuple(given)
    assert result.added == tuple(_uuids(node)[5:])


def test_finished_run_uuids_lists_a_hosts_finished_runs(
    node: sqlite3.Connection, central: sqlite3.Connection
) -> None:
    _set_running(node, 14)
    copy_runs(node, central, host="lab-1", collected_at_s=1000.0)
    assert finished_run_uuids(central, "lab-1") == frozenset(_uuids(node)[:13])


def test_a_failure_part_way_leaves_whole_runs_only(
    node: sqlite3.Connection, central: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    copy_steps = merge._steps

    def failing_third(*args: Any, **kwargs: Any) -> None:
        calls.append(1)
        if len(calls) == 3:  # the third run: its run row and captures are written already
            raise RuntimeError("collect killed")
        copy_steps(*args, **kwargs)

    monkeypatch.setattr(merge, "_steps", failing_third)
    monkeypatch.setattr(merge, "BATCH_RUNS", 2)  # the first two runs: a batch committed
    with pytest.raises(RuntimeError, match="collect killed"):
        copy_runs(node, central, host="lab-1", collected_at_s=1000.0)
    kept = [u for u in _uuids(central) if u in set(_uuids(node))]
    assert kept == _uuids(node)[:2]
    for node_id, run_uuid in enumerate(kept, 1):
        assert run_fingerprint(central, _run_id(central, run_uuid)) == run_fingerprint(
            node, node_id
        )
    for table in CHILD_TABLES:
        orphans = central.execute(
            f"SELECT COUNT(*) FROM {table} WHERE run_id NOT IN (SELECT id FROM runs)"
        )
        assert orphans.fetchone()[0] == 0, table
    monkeypatch.undo()
    assert copy_runs(node, central, host="lab-1", collected_at_s=1.0).added == tuple(
        _uuids(node)[2:]
    )


def test_export_holds_every_run_but_the_finished_ones_given(
    node_path: Path, tmp_path: Path
) -> None:
    source = open_store(node_path)
    every = _uuids(source)
    source.close()
    out = tmp_path / "export.sqlite"
    result = export_runs(node_path, out, finished_uuids=every[:6])
    assert result.added == tuple(every[6:])
    # the file alone is the store (no write-ahead log beside it): it can be streamed as it is
    alone = tmp_path / "received.sqlite"
    shutil.copyfile(out, alone)
    received = open_store(alone)
    assert _uuids(received) == every[6:]
    assert _count(received, "devices") == 1
    received.close()


def test_export_does_not_write_the_source(node_path: Path, tmp_path: Path) -> None:
    before = (node_path.read_bytes(), node_path.stat().st_mtime_ns)
    export_runs(node_path, tmp_path / "export.sqlite", finished_uuids=())
    assert (node_path.read_bytes(), node_path.stat().st_mtime_ns) == before


def test_export_refuses_an_existing_file(node_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "export.sqlite"
    out.write_text("not mine")
    with pytest.raises(StoreError, match="already exists"):
        export_runs(node_path, out, finished_uuids=())


def test_remap_id_refuses_an_id_of_another_run() -> None:
    with pytest.raises(StoreError, match="not a row of the same run"):
        remap_id(7, {1: 10}, "step result 3 of run 1")


def test_remap_id_list_remaps_each_id() -> None:
    assert remap_id_list("[1, 2]", {1: 10, 2: 11}, "a sample") == "[10, 11]"


def test_a_finding_body_without_capture_ids_is_kept_byte_for_byte() -> None:
    text = '{"blob_version": 1, "b": 1.0, "a": [3]}'
    assert remap_finding_body(text, {3: 30}, "a finding") == text


def test_a_finding_body_keeps_no_capture_as_zero() -> None:
    text = '{"last_kept_capture_id": 0, "round": 2}'
    assert remap_finding_body(text, {}, "a finding") == text


def test_a_finding_body_with_a_capture_id_is_remapped() -> None:
    body = json.loads(remap_finding_body('{"capture_id": 3, "x": 1}', {3: 30}, "a finding"))
    assert body == {"capture_id": 30, "x": 1}


def test_a_collected_running_run_holds_no_target_of_this_machine(
    node: sqlite3.Connection, central: sqlite3.Connection
) -> None:
    # the target path names a device or file on the node, not here
    _set_running(node, 14)
    target = str(node.execute("SELECT target_path FROM runs WHERE id = 14").fetchone()[0])
    copy_runs(node, central, host="lab-1", collected_at_s=1000.0)
    assert running_runs_on(central, target) == []


def test_a_collected_runs_test_files_are_not_this_machines(
    node: sqlite3.Connection, central: sqlite3.Connection
) -> None:
    here = {(record.run_id, record.path) for record in leftover_test_files(central)}
    copy_runs(node, central, host="lab-1", collected_at_s=1000.0)
    assert len(leftover_test_files(node)) > 0
    assert {(r.run_id, r.path) for r in leftover_test_files(central)} == here


def test_a_collected_run_is_resumed_on_its_node_not_here(
    node: sqlite3.Connection, tmp_path: Path
) -> None:
    stopped = node.execute(
        "SELECT uuid FROM runs WHERE status = 'interrupted' AND kind IN ('quick', 'profile')"
    ).fetchone()[0]
    central_path = tmp_path / "fresh-central.db"
    central = open_store(central_path)
    copy_runs(node, central, host="lab-1", collected_at_s=1000.0)
    run_id = central.execute("SELECT id FROM runs WHERE uuid = ?", (stopped,)).fetchone()[0]
    central.close()
    code, _, err = ssdlab_in_process("resume", str(run_id), "--db", str(central_path))
    assert code == 2
    assert "collected from host lab-1" in err
