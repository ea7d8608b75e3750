"""`ssdlab fleet merge FILE --host NAME`: one node's export, brought to the seat by other means
(the Ansible collection's collect.yml fetches it), copied in as `fleet collect` copies it: each
run once, matched by UUID and host, the file given left as it was, and a run that is not the
host's to give refused."""

import json
import sqlite3
from pathlib import Path

import pytest

from ssdlab.errors import UsageError
from ssdlab.fleet.collect import MergeRequest, merge_export
from tests.e2e.conftest import run_ssdlab
from tests.unit.test_collect_safety import RUNS, _export, _store


def _uuids(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    found = [str(row[0]) for row in conn.execute("SELECT uuid FROM runs ORDER BY id")]
    conn.close()
    return found


def test_a_node_export_is_merged_once_and_the_file_is_left_as_it_was(tmp_path: Path) -> None:
    export = _export(tmp_path, "node1")
    before = export.read_bytes()
    seat = tmp_path / "seat.sqlite"
    first = merge_export(MergeRequest(export, "node1", seat))
    assert (len(first.added), first.refused, first.problem) == (RUNS, (), None)
    again = merge_export(MergeRequest(export, "node1", seat))
    assert (again.added, again.updated, again.refused) == ((), (), ())
    assert export.read_bytes() == before
    assert len(_uuids(seat)) == RUNS


def test_the_runs_of_one_host_are_refused_as_another_hosts(tmp_path: Path) -> None:
    export = _export(tmp_path, "node1")
    seat = tmp_path / "seat.sqlite"
    merge_export(MergeRequest(export, "node1", seat))
    other = merge_export(MergeRequest(export, "node2", seat))
    assert other.added == ()
    assert len(other.refused) == RUNS
    assert "collected from 'node1'" in other.refused[0]
    conn = sqlite3.connect(seat)
    hosts = {row[0] for row in conn.execute("SELECT host FROM runs")}
    conn.close()
    assert hosts == {"node1"}


def test_the_seat_store_a_missing_file_and_a_blank_host_are_refused(tmp_path: Path) -> None:
    seat = _store(tmp_path, "seat.sqlite")
    with pytest.raises(UsageError, match="this machine's store itself"):
        merge_export(MergeRequest(seat, "node1", seat))
    with pytest.raises(UsageError, match="is not a file"):
        merge_export(MergeRequest(tmp_path / "nothing.db", "node1", seat))
    with pytest.raises(UsageError, match="not an inventory name"):
        merge_export(MergeRequest(_export(tmp_path, "node1"), " ", seat))


def test_a_file_that_is_no_store_is_a_problem_of_the_host(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a store" * 100)
    merged = merge_export(MergeRequest(junk, "node1", tmp_path / "seat.sqlite"))
    assert merged.problem is not None
    assert "could not be read here" in merged.problem


def test_the_command_prints_collects_document_and_exits_1_on_a_refusal(tmp_path: Path) -> None:
    export = _export(tmp_path, "node1")
    seat = str(tmp_path / "seat.sqlite")
    done = run_ssdlab("fleet", "merge", str(export), "--host", "node1", "--db", seat, "--json")
    assert done.code == 0, done.stderr
    (host,) = json.loads(done.stdout)["hosts"]
    assert (host["host"], len(host["added"])) == ("node1", RUNS)
    refused = run_ssdlab("fleet", "merge", str(export), "--host", "node2", "--db", seat)
    assert refused.code == 1
    assert "refused" in refused.stdout
