"""The node side of a fleet on the application floor (app/node_*.py), called as `ssdlab node`
calls it: typed requests in, the JSON documents the central machine reads out."""

import io
import json
import shutil
import sqlite3
from pathlib import Path
from typing import NoReturn

import pytest

from ssdlab.app.node_check import NodeCheckRequest, check_node_target
from ssdlab.app.node_facts import NodeFactsRequest, node_facts
from ssdlab.app.node_jobs import (
    StartRequest,
    batch_argvs,
    follow_point,
    jobs_folder,
    start_node_jobs,
)
from ssdlab.app.node_store import (
    NodeExportRequest,
    NodeStatusRequest,
    export_node_runs,
    export_node_runs_to,
    finished_uuids,
    node_status,
)
from ssdlab.app.run_store import open_run_store
from ssdlab.errors import UsageError
from ssdlab.runner.session import Edges, RunSession
from tests.conftest import ROOT, needs_fio

OLD_STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"


def _never(*_args: object) -> NoReturn:
    raise AssertionError("a check shows no progress and never ends the process")


def _session(tmp_path: Path) -> RunSession:
    db = tmp_path / "node.db"
    return RunSession(db, lambda: open_run_store(db), Edges(progress=_never, hard_exit=_never))


def test_jobs_are_kept_beside_the_store_unless_a_folder_is_given(tmp_path: Path) -> None:
    assert jobs_folder(None, tmp_path / "s.db") == tmp_path / "fleet-jobs"
    assert jobs_folder(str(tmp_path / "j"), tmp_path / "s.db") == tmp_path / "j"


def test_a_job_needs_a_command_line(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="give the ssdlab command line after --"):
        start_node_jobs(StartRequest(tmp_path, ((),)))
    with pytest.raises(UsageError, match="give the ssdlab command line after --"):
        start_node_jobs(StartRequest(tmp_path, (("quick", "/mnt/a"), ())))
    assert not (tmp_path / "fleet-jobs").exists()


def test_a_batch_is_a_json_list_of_command_lines() -> None:
    given = '[["quick", "/mnt/a", "--json"], ["run", "cache", "/mnt/b"]]'
    assert batch_argvs(given) == (("quick", "/mnt/a", "--json"), ("run", "cache", "/mnt/b"))
    for bad in ("", "{}", '["quick"]', '[["quick", 1]]', "[[", '{"argv": []}'):
        with pytest.raises(UsageError, match="node start --batch reads a JSON list"):
            batch_argvs(bad)


def test_follow_takes_a_job_and_where_its_outputs_go_on() -> None:
    assert follow_point("20261126T120000.123Z-1a2b3c4d") == ("20261126T120000.123Z-1a2b3c4d", 0, 0)
    assert follow_point("j:4096:12") == ("j", 4096, 12)
    for bad in ("j:1", "j:1:2:3", "j:-1:0", "j:x:0"):
        with pytest.raises(UsageError, match="give JOB or JOB:STDOUT:STDERR"):
            follow_point(bad)


def test_facts_name_the_store_and_read_the_clock_last(tmp_path: Path) -> None:
    facts = node_facts(NodeFactsRequest(tmp_path / "s.db", directories=(str(tmp_path),)))
    assert facts["format"] == "ssdlab-node-facts"
    assert facts["db"] == str(tmp_path / "s.db")
    tools = facts["tools"]
    assert isinstance(tools, dict)
    assert set(tools) == {"fio", "smartctl", "nvme"}
    assert list(facts)[-1] == "time_s"


def test_finished_runs_are_read_as_a_json_list_of_uuids() -> None:
    assert finished_uuids('["a", "b"]') == ("a", "b")
    assert finished_uuids("  \n") == ()


@pytest.mark.parametrize("text", ["{", '{"a": 1}', "[1]"])
def test_anything_but_a_list_of_uuids_is_refused(text: str) -> None:
    with pytest.raises(UsageError, match="JSON list of run UUIDs on stdin"):
        finished_uuids(text)


def test_a_node_without_a_store_exports_an_empty_one(tmp_path: Path) -> None:
    sink = io.BytesIO()
    export_node_runs(NodeExportRequest(tmp_path / "none.db"), sink)
    exported = tmp_path / "exported.db"
    exported.write_bytes(sink.getvalue())
    with sqlite3.connect(exported) as conn:
        assert conn.execute("SELECT COUNT(*) FROM runs").fetchone() == (0,)


def test_export_leaves_out_the_finished_runs_named(tmp_path: Path) -> None:
    store = tmp_path / "node.db"
    shutil.copyfile(OLD_STORE, store)
    conn = open_run_store(store)  # brought to today's schema: runs carry UUIDs
    try:
        uuids = [row[0] for row in conn.execute("SELECT uuid FROM runs ORDER BY id")]
    finally:
        conn.close()
    sink = io.BytesIO()
    export_node_runs(NodeExportRequest(store, tuple(uuids[1:])), sink)
    exported = tmp_path / "exported.db"
    exported.write_bytes(sink.getvalue())
    with sqlite3.connect(exported) as conn:
        assert [row[0] for row in conn.execute("SELECT uuid FROM runs")] == uuids[:1]


def test_export_to_a_file_replaces_it_whole_for_its_owner_only(tmp_path: Path) -> None:
    store = tmp_path / "node.db"
    shutil.copyfile(OLD_STORE, store)
    conn = open_run_store(store)
    try:
        uuids = [row[0] for row in conn.execute("SELECT uuid FROM runs ORDER BY id")]
    finally:
        conn.close()
    folder = tmp_path / "out"
    folder.mkdir()
    dest = folder / "export.db"
    dest.write_bytes(b"an older export")
    export_node_runs_to(NodeExportRequest(store, tuple(uuids[1:])), dest)
    with sqlite3.connect(dest) as conn:
        assert [row[0] for row in conn.execute("SELECT uuid FROM runs")] == uuids[:1]
    assert dest.stat().st_mode & 0o777 == 0o600
    assert sorted(path.name for path in folder.iterdir()) == ["export.db"]


def test_export_to_a_missing_folder_or_a_folder_says_so(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="does not exist"):
        export_node_runs_to(NodeExportRequest(tmp_path / "n.db"), tmp_path / "no" / "x.db")
    with pytest.raises(UsageError, match="is a folder"):
        export_node_runs_to(NodeExportRequest(tmp_path / "n.db"), tmp_path)


def test_status_without_a_store_or_jobs_is_empty(tmp_path: Path) -> None:
    status = node_status(None, NodeStatusRequest(tmp_path / "fleet-jobs"))
    assert status == {"format": "ssdlab-node-status", "format_version": 1, "runs": [], "jobs": []}


def test_status_lists_the_recent_runs(tmp_path: Path) -> None:
    store = tmp_path / "node.db"
    shutil.copyfile(OLD_STORE, store)
    conn = open_run_store(store)
    try:
        status = node_status(conn, NodeStatusRequest(tmp_path / "fleet-jobs"))
    finally:
        conn.close()
    runs = status["runs"]
    assert 0 < len(runs) <= 20
    assert set(runs[0]) >= {"id", "uuid", "kind", "profile", "status", "target", "endurance"}
    assert json.loads(json.dumps(status)) == status


def test_a_bad_mode_is_a_usage_error_not_a_refusal(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--mode"):
        check_node_target(_session(tmp_path), NodeCheckRequest(str(tmp_path), mode="sideways"))


def test_destroy_data_for_a_folder_is_refused_with_the_reason(tmp_path: Path) -> None:
    request = NodeCheckRequest(str(tmp_path), destroy_data=str(tmp_path))
    answer = check_node_target(_session(tmp_path), request)
    assert answer["ok"] is False
    assert "--destroy-data names a block device" in str(answer["reason"])


@needs_fio
def test_a_folder_to_read_passes_the_checks(tmp_path: Path) -> None:
    answer = check_node_target(_session(tmp_path), NodeCheckRequest(str(tmp_path), mode="read"))
    assert answer == {"ok": True}
