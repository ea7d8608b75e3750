"""`ssdlab node export` and `ssdlab node status`: a node's store as `ssdlab fleet collect` and
`ssdlab fleet status` ask for it over SSH. The store is only read: a run may be writing it."""

import argparse
import json
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console

from ssdlab.analysis.profiles.endurance import status_of
from ssdlab.app.runs import profile_results
from ssdlab.cli.store_open import db_path, open_db
from ssdlab.errors import UsageError
from ssdlab.model.run import RunRecord
from ssdlab.store.db import open_store
from ssdlab.store.merge import export_runs
from ssdlab.store.run_rows import list_runs
from ssdlab.system import detached

RECENT_RUNS = 20


def jobs_dir_of(args: argparse.Namespace) -> Path:
    """Where a node keeps its fleet jobs: --jobs-dir, else fleet-jobs beside the store."""
    if args.jobs_dir:
        return Path(args.jobs_dir).expanduser().absolute()
    return db_path(args).parent / "fleet-jobs"


def _finished_uuids(text: str) -> list[str]:
    """The JSON list of run UUIDs the central store holds finished (read from stdin)."""
    try:
        found = json.loads(text) if text.strip() else []
    except json.JSONDecodeError as error:
        raise UsageError(f"node export reads a JSON list of run UUIDs on stdin: {error}") from error
    if not isinstance(found, list) or not all(isinstance(item, str) for item in found):
        raise UsageError("node export reads a JSON list of run UUIDs on stdin")
    return found


def cmd_node_export(args: argparse.Namespace, _out: Console) -> int:
    """Write the store's runs but the finished ones named on stdin, as one store file, to
    stdout (binary)."""
    finished = _finished_uuids(sys.stdin.read())
    source = db_path(args)
    with tempfile.TemporaryDirectory(prefix="ssdlab-export-") as scratch:
        exported = Path(scratch) / "runs.db"
        if source.exists():
            export_runs(source, exported, finished_uuids=finished)
        else:  # a node that never ran anything: an empty store
            open_store(exported).close()
        with exported.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                sys.stdout.buffer.write(chunk)
    sys.stdout.buffer.flush()
    return 0


def _endurance(conn: sqlite3.Connection, run: RunRecord) -> dict[str, Any] | None:
    """Where an endurance run stands: iterations, bytes written, WAF, days to end of life."""
    if run.profile != "endurance":
        return None
    status = status_of(profile_results(conn, run.run_id))
    series = status.series
    overall = series.overall if series is not None else None
    recent = series.recent if series is not None else None
    projection = series.projection if series is not None else None
    return {
        "iterations": len(status.iterations),
        "written_bytes": status.written_bytes,
        "waf_recent": recent.waf.waf if recent is not None else None,
        "waf_to_date": overall.waf.waf if overall is not None else None,
        "wear_used_pct": projection.wear_now_pct if projection is not None else None,
        "days_to_eol": projection.days_to_eol if projection is not None else None,
        "stop": status.stop.reason if status.stop.stop else None,
    }


def _run_entry(conn: sqlite3.Connection, run: RunRecord) -> dict[str, Any]:
    return {
        "id": run.run_id,
        "uuid": run.uuid,
        "kind": run.kind,
        "profile": run.profile,
        "status": run.status.value,
        "target": run.target_path,
        "started_at_s": run.started_at_s,
        "ended_at_s": run.ended_at_s,
        "endurance": _endurance(conn, run),
    }


def cmd_node_status(args: argparse.Namespace, _out: Console) -> int:
    """The node's running and recent runs and its fleet jobs, as one JSON document."""
    jobs_dir = jobs_dir_of(args)
    runs: list[dict[str, Any]] = []
    if db_path(args).exists():
        conn = open_db(args)
        recent = list_runs(conn, limit=RECENT_RUNS)
        runs = [_run_entry(conn, run) for run in recent]
    document = {
        "format": "ssdlab-node-status",
        "format_version": 1,
        "runs": runs,
        "jobs": detached.list_jobs(jobs_dir) if jobs_dir.is_dir() else [],
    }
    sys.stdout.write(json.dumps(document) + "\n")
    return 0
