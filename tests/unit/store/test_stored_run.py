"""A stored run read whole in one call: the row, steps, findings, health samples and capture
times at once; the plan, fio's outputs and the job files only when first asked for, once."""

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from ssdlab.errors import StoreError
from ssdlab.model.finding_names import TARGET_FACTS
from ssdlab.model.target import TargetKind
from ssdlab.store.captures import load_fio_outputs
from ssdlab.store.db import open_store
from ssdlab.store.findings import load_findings
from ssdlab.store.profile_runs import measured_target
from ssdlab.store.stored_run import read_run
from tests.conftest import ROOT

OLD_STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    copy = tmp_path / "store.sqlite"
    shutil.copyfile(OLD_STORE, copy)
    opened = open_store(copy)
    try:
        yield opened
    finally:
        opened.close()


def _traced(conn: sqlite3.Connection) -> list[str]:
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    return statements


def test_a_run_is_read_whole_without_its_heavy_parts(conn: sqlite3.Connection) -> None:
    statements = _traced(conn)
    stored = read_run(conn, 4)  # a fill profile run
    assert stored is not None
    assert stored.run.profile == "fill"
    # levels 0 and 50: the measurement at 0 %, the fill to 50 %, the measurement there
    assert [s.step_key for s in stored.steps] == ["randwrite-0", "fill-50", "randwrite-50"]
    assert set(stored.findings) == {f.name for f in load_findings(conn, 4)}
    assert stored.facts == stored.findings[TARGET_FACTS]
    assert set(stored.capture_times) >= {s.capture_id for s in stored.steps}
    read = " ".join(statements)
    assert "stdout" not in read  # no fio output read yet
    assert "input_text" not in read  # no job file read yet


def test_the_heavy_parts_are_read_once_when_asked(conn: sqlite3.Connection) -> None:
    stored = read_run(conn, 4)
    assert stored is not None
    statements = _traced(conn)
    outputs = stored.evidence.fio_outputs()
    assert outputs == load_fio_outputs(conn, 4)
    assert all(text.lstrip().startswith("{") for text in outputs.values())
    statements.clear()
    assert stored.evidence.fio_outputs() is outputs
    assert [job.capture_id for job in stored.evidence.job_inputs()] == sorted(outputs)
    assert stored.evidence.job_inputs() is stored.evidence.job_inputs()
    assert len([s for s in statements if "input_text" in s]) == 1
    assert stored.evidence.plan().profile == "fill"
    results = stored.profile_results()
    assert results.plan is stored.evidence.plan()
    assert results.outputs is outputs
    assert results.steps == stored.steps


def test_runs_of_every_kind_are_read_with_their_samples(conn: sqlite3.Connection) -> None:
    sim, health_log, quick = read_run(conn, 11), read_run(conn, 13), read_run(conn, 1)
    assert sim is not None
    assert len(sim.health) == 102  # the simulated drive's samples, oldest first
    assert health_log is not None
    assert [phase for phase, _ in health_log.health] == ["import"] * 6
    assert health_log.steps == ()
    assert quick is not None
    assert any(step.series for step in quick.steps)  # steps come with their series
    assert quick.baseline is None
    assert quick.facts == {}


def test_a_run_that_executed_no_plan_has_none_to_decode(conn: sqlite3.Connection) -> None:
    imported = read_run(conn, 9)  # a CrystalDiskMark import
    assert imported is not None
    with pytest.raises(StoreError, match="run 9's stored plan cannot be read"):
        imported.evidence.plan()


def test_a_run_the_store_does_not_hold_is_none(conn: sqlite3.Connection) -> None:
    assert read_run(conn, 99) is None
    assert read_run(conn, 2**63) is None


@pytest.mark.parametrize("run_id", [1, 3, 4, 5, 7, 8, 14])
def test_a_measured_runs_target_decodes_into_the_target_it_ran_on(
    conn: sqlite3.Connection, run_id: int
) -> None:
    stored = read_run(conn, run_id)
    assert stored is not None
    target = measured_target(stored.run)
    assert target.kind is TargetKind.FILE
    assert target.path == stored.run.target_path
    assert target.size_bytes == stored.run.target["size_bytes"]
    assert target.device is not None
    assert target.device.name == stored.run.target["device"]["name"]
    assert target.created_file


def test_only_a_measured_run_has_a_target_to_decode(conn: sqlite3.Connection) -> None:
    imported = read_run(conn, 9)
    assert imported is not None
    with pytest.raises(StoreError, match="run 9's stored target is not a file or device it"):
        measured_target(imported.run)
