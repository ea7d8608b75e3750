"""Opening the store from the command line: --db, dead-run recovery (cli/store_open.py), run
ids, and reading a run back for the commands that show it."""

import sqlite3

from ssdlab.app.ratings import known_spec_sheets as known_spec_sheets
from ssdlab.cli.store_open import db_path as db_path
from ssdlab.cli.store_open import open_db as open_db
from ssdlab.errors import UsageError
from ssdlab.model.health import HealthSample
from ssdlab.model.profile import ProfileResults
from ssdlab.model.run import RunRecord
from ssdlab.runner.profile import stored_facts
from ssdlab.store.findings import load_findings
from ssdlab.store.health import load_health_samples
from ssdlab.store.profile_runs import load_fio_outputs, profile_plan_of
from ssdlab.store.runs import (
    capture_times,
    latest_run_id,
    load_run,
    load_step_results,
)


def run_id_arg(conn: sqlite3.Connection, text: str) -> int:
    if text in ("last", "latest"):
        found = latest_run_id(conn)
        if found is None:
            raise UsageError("the store has no runs yet; start one with 'ssdlab quick'")
        return found
    try:
        run_id = int(text)
        if abs(run_id) >= 2**63:  # beyond SQLite's integers: no such run can exist
            raise ValueError(text)
        return run_id
    except ValueError:
        raise UsageError(
            f"{text!r} is not a run id; use a number from 'ssdlab runs' or 'last'"
        ) from None


def run_health(conn: sqlite3.Connection, run_id: int) -> list[tuple[str, HealthSample]]:
    """The health samples taken around a run, as (phase, sample)."""
    return [(s.phase, s.sample) for s in load_health_samples(conn, run_id=run_id)]


def stored_run(conn: sqlite3.Connection, run_id: int) -> RunRecord:
    """The stored run `run_id`; a usage error naming it when the store has no such run."""
    run = load_run(conn, run_id)
    if run is None:
        raise UsageError(f"there is no run {run_id} in the store; 'ssdlab runs' lists them")
    return run


def load_profile_results(conn: sqlite3.Connection, run_id: int) -> ProfileResults:
    """Everything a profile report is built from, read back from the store."""
    run = stored_run(conn, run_id)
    findings = {f.name: f.body for f in load_findings(conn, run_id)}
    return ProfileResults(
        run=run,
        plan=profile_plan_of(run),
        steps=tuple(load_step_results(conn, run_id)),
        facts=stored_facts(conn, run_id),
        outputs=load_fio_outputs(conn, run_id),
        health=tuple(run_health(conn, run_id)),
        findings=findings,
        capture_times=capture_times(conn, run_id),
    )
