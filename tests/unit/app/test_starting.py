"""The use cases that start, plan and resume runs (app/), called with typed requests as the
command line calls them: the baseline options, the plan of a run on a file, the commands a
stopped run's messages name, and a store write error that names its resume."""

import sqlite3
from pathlib import Path

import pytest

from ssdlab.analysis.baseline import BaselineAction
from ssdlab.app.baseline import BaselineRequest, baseline_request
from ssdlab.app.plan_jobs import PlanRequest, planned_jobs
from ssdlab.app.run_outcome import command_context, run_hints
from ssdlab.app.run_target import TargetRequest
from ssdlab.errors import UsageError
from ssdlab.model.next_command import CommandContext
from ssdlab.model.target import Target, TargetKind
from ssdlab.store.db import default_db_path
from ssdlab.store.transaction import StoreWriteError

DEVICE = Target(TargetKind.DEVICE, "/dev/sdb", 2**30, "/dev/sdb")
MADE_FILE = Target(TargetKind.FILE, "/srv/t/ssdlab-1.tmp", 2**30, "/srv/t", created_file=True)


def no_store() -> sqlite3.Connection:
    raise AssertionError("the store is opened only when an option reads a stored run")


def test_baseline_options_need_a_name() -> None:
    assert baseline_request(None, reset=False, add=False, fail_on_regression=False) is None
    assert baseline_request(" nightly ", reset=True, add=False, fail_on_regression=True) == (
        BaselineRequest("nightly", BaselineAction.RESET, fail_on_regression=True)
    )
    with pytest.raises(UsageError, match="--baseline-add needs --baseline NAME"):
        baseline_request(None, reset=False, add=True, fail_on_regression=False)
    with pytest.raises(UsageError, match="--baseline needs a name"):
        baseline_request("  ", reset=False, add=False, fail_on_regression=False)


def test_a_plan_on_a_file_names_its_jobs_and_writes_nothing(tmp_path: Path) -> None:
    request = PlanRequest("fill", TargetRequest(str(tmp_path), size_bytes=16 * 2**20))
    planned = planned_jobs(request, no_store)
    assert planned.jobs
    assert planned.created_file
    assert not planned.destructive
    assert planned.parse_failures is None  # not asked
    assert list(tmp_path.iterdir()) == []


def test_a_plan_refuses_destroy_data_for_a_file(tmp_path: Path) -> None:
    request = PlanRequest("sweep", TargetRequest(str(tmp_path), destroy_data="/dev/sdb"))
    with pytest.raises(UsageError, match="file targets never need it"):
        planned_jobs(request, no_store)


def test_hints_carry_the_store_unless_it_is_the_default() -> None:
    assert command_context(default_db_path()) == CommandContext()
    elsewhere = Path("/srv/lab runs/ssdlab.db")
    assert command_context(elsewhere) == CommandContext(elsewhere)


def test_a_device_run_resumes_with_its_device_named_again() -> None:
    hints = run_hints(Path("/srv/db"), DEVICE, destructive=True, keeps_file=False)
    assert hints.resume(7) == "'ssdlab resume 7 --destroy-data /dev/sdb --db /srv/db'"
    assert hints.second_signal(7) == (
        "'ssdlab resume 7 --destroy-data /dev/sdb --db /srv/db' continues the run"
    )
    reading = run_hints(default_db_path(), DEVICE, destructive=False, keeps_file=False)
    assert reading.resume(7) == "'ssdlab resume 7'"


def test_a_test_file_not_kept_is_cleaned_up_not_resumed() -> None:
    hints = run_hints(Path("/srv/db"), MADE_FILE, destructive=False, keeps_file=False)
    assert hints.resume(3) is None
    assert hints.second_signal(3) == (
        "'ssdlab doctor --cleanup --db /srv/db' removes any test file left behind"
    )
    kept = run_hints(Path("/srv/db"), MADE_FILE, destructive=False, keeps_file=True)
    assert kept.resume(3) == "'ssdlab resume 3 --db /srv/db'"
    assert kept.second_signal(None).startswith("'ssdlab doctor --cleanup")  # no run row yet


def test_a_store_write_error_names_the_resume_when_it_is_known() -> None:
    cause = sqlite3.OperationalError("database or disk is full")
    error = StoreWriteError(cause)
    error.__cause__ = cause
    assert str(error).endswith("continue with 'ssdlab resume RUN'")
    named = error.continued_by("'ssdlab resume 4 --db /srv/db'")
    assert str(named) == (
        "cannot write to the run store: database or disk is full; what was stored before is "
        "intact — free space where the store is (or choose another with --db PATH) and "
        "continue with 'ssdlab resume 4 --db /srv/db'"
    )
    assert named.__cause__ is cause
