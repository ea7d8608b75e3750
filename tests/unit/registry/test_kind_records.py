"""Every kind of run the store keeps is read back through one registry record: each profile's
runs through the profile's, and the runs no profile makes (imports, health samples,
simulations, fleet loads) through records of their own."""

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ssdlab.errors import SsdlabError
from ssdlab.model.run import RunKind, RunRecord, RunStatus
from ssdlab.model.target import TargetKind
from ssdlab.registry import kind_record, kind_records, run_profiles
from ssdlab.store.db import open_store
from ssdlab.store.run_rows import list_runs
from tests.conftest import ROOT

OLD_STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"


def a_run(kind: RunKind, profile: str) -> RunRecord:
    return RunRecord(
        run_id=7, kind=kind, profile=profile, profile_version=1, preset=None,
        status=RunStatus.COMPLETE, status_reason=None, target_kind=TargetKind.FILE,
        target_path="/tmp/x", target={}, settings={}, plan={}, environment={},
        started_at_s=0.0, ended_at_s=1.0, host="h", pid=1, boot_id=None,
    )  # fmt: skip


def test_every_kind_of_run_has_a_record() -> None:
    taken = {record.kind for record in kind_records()}
    assert taken == set(RunKind)


@pytest.mark.parametrize("name", sorted(run_profiles()))
def test_the_runs_of_every_profile_are_read_by_its_record(name: str) -> None:
    record = kind_record(a_run(RunKind.PROFILE, name))
    assert record.name == name
    assert record.plan_shapes  # its steps are shaped by the plan it stored
    assert not record.passes
    assert not record.card


def test_a_run_no_record_takes_is_refused_in_one_line() -> None:
    with pytest.raises(SsdlabError, match="run 7 is a erase run, which this ssdlab cannot"):
        kind_record(a_run(RunKind.PROFILE, "erase"))
    with pytest.raises(SsdlabError, match=r"run 7 is a import \(teleport\) run"):
        kind_record(a_run(RunKind.IMPORT, "teleport"))


def test_a_sim_run_is_one_drive_unless_it_swept() -> None:
    assert kind_record(a_run(RunKind.SIM, "cache")).name == "sim"
    assert kind_record(a_run(RunKind.SIM, "sim-sweep")).name == "sim sweep"
    assert kind_record(a_run(RunKind.SIM, "cache")).main_table == "series"


@pytest.fixture(scope="module")
def old_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[int, RunRecord]]:
    copy = tmp_path_factory.mktemp("old-store") / "store.sqlite"
    shutil.copyfile(OLD_STORE, copy)
    conn = open_store(Path(copy))
    try:
        yield {run.run_id: run for run in list_runs(conn)}
    finally:
        conn.close()


# run of the old store -> (record, main CSV table, runs of passes, card, compared as)
EXPECTED = {
    1: ("quick", "passes", True, True, "quick"),
    3: ("quick", "passes", True, True, "quick"),
    4: ("fill", "steps", False, False, "fill"),
    5: ("align", "steps", False, False, "align"),
    7: ("cache", "steps", False, False, "cache"),
    9: ("import", "passes", True, True, "quick"),  # CrystalDiskMark
    10: ("import", "passes", True, True, "quick"),  # KDiskMark
    11: ("sim", "series", False, False, "cache"),  # a simulated drive compares with cache runs
    12: ("import", "health", False, False, "import"),  # a saved smartctl JSON
    13: ("import", "health", False, False, "import"),  # a log of smartctl text
    14: ("endurance", "steps", False, False, "endurance"),
}


@pytest.mark.parametrize("run_id", sorted(EXPECTED))
def test_every_run_of_the_old_store_has_its_record(
    old_runs: dict[int, RunRecord], run_id: int
) -> None:
    run = old_runs[run_id]
    record = kind_record(run)
    found = (record.name, record.main_table, record.passes, record.card, record.family_of(run))
    assert found == EXPECTED[run_id]


def test_a_kind_stored_by_a_newer_ssdlab_is_not_guessed(old_runs: dict[int, RunRecord]) -> None:
    run = dataclasses.replace(old_runs[9], profile="aja")  # an import of a tool not known here
    with pytest.raises(SsdlabError, match="which this ssdlab cannot show"):
        kind_record(run)
