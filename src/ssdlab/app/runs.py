"""A stored run read back for a command: found by its id (or 'last'), read whole, and given its
document and its headline metrics by the record of its kind (registry.kind_record) — the one
way every command reaches a stored run of any kind."""

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from ssdlab.analysis.compare import MetricSamples
from ssdlab.errors import UsageError
from ssdlab.model.finding_names import BASELINE
from ssdlab.model.profile import ProfileResults
from ssdlab.model.run import RunRecord
from ssdlab.model.spec import SpecSheet
from ssdlab.model.stored_run import StoredRun
from ssdlab.registry import kind_record
from ssdlab.report.document import Document
from ssdlab.store.findings import load_findings
from ssdlab.store.run_rows import latest_run_id, load_run
from ssdlab.store.stored_run import read_run

LATEST = ("last", "latest")


def run_id_of(conn: sqlite3.Connection, text: str) -> int:
    """The run a user named: a run id, or 'last' (the newest run)."""
    if text in LATEST:
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


def _absent(run_id: int) -> UsageError:
    return UsageError(f"there is no run {run_id} in the store; 'ssdlab runs' lists them")


def run_of(conn: sqlite3.Connection, run_id: int) -> RunRecord:
    """The run row of `run_id` alone (no steps, no samples); a usage error naming it when the
    store has no such run."""
    run = load_run(conn, run_id)
    if run is None:
        raise _absent(run_id)
    return run


def stored_run(conn: sqlite3.Connection, run_id: int) -> StoredRun:
    """The whole stored run `run_id`; a usage error naming it when the store has no such run."""
    stored = read_run(conn, run_id)
    if stored is None:
        raise _absent(run_id)
    return stored


def stored_runs(conn: sqlite3.Connection, texts: Sequence[str]) -> list[StoredRun]:
    """The runs a user named (ids or 'last'), each read whole, in the order named."""
    return [stored_run(conn, run_id_of(conn, text)) for text in texts]


def profile_results(conn: sqlite3.Connection, run_id: int) -> ProfileResults:
    """Everything a profile's document and status are built from, read back from the store."""
    return stored_run(conn, run_id).profile_results()


def run_document(stored: StoredRun, specs: Sequence[SpecSheet] = ()) -> Document:
    """The run's whole document, as its kind lays it out (`report`)."""
    return kind_record(stored.run).document(stored, specs)


def shown_document(stored: StoredRun) -> Document:
    """What `show` prints of the run and `export --format json` writes."""
    return kind_record(stored.run).shown(stored)


def run_metrics(stored: StoredRun) -> tuple[MetricSamples, ...]:
    """The run's headline metrics (what `compare`, baselines and `fleet compare` read)."""
    return kind_record(stored.run).metrics(stored)


def run_baseline(conn: sqlite3.Connection, run_id: int) -> Mapping[str, Any] | None:
    """The baseline finding a run was stored with (`--baseline NAME`), or None; read alone,
    without the rest of the run."""
    return next((f.body for f in load_findings(conn, run_id) if f.name == BASELINE), None)
