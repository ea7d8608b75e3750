"""`ssdlab node export` and `ssdlab node status`: a node's store as `ssdlab fleet collect` and
`ssdlab fleet status` ask for it over SSH. The store is only read: a run may be writing it."""

import json
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from ssdlab.analysis.profiles.endurance import status_of
from ssdlab.app.runs import profile_results
from ssdlab.errors import UsageError
from ssdlab.model.run import RunRecord
from ssdlab.store.db import open_store
from ssdlab.store.merge import export_runs
from ssdlab.store.run_rows import list_runs
from ssdlab.system import detached

RECENT_RUNS = 20
STATUS_FORMAT = "ssdlab-node-status"
CHUNK_BYTES = 1 << 20


def finished_uuids(text: str) -> tuple[str, ...]:
    """The JSON list of run UUIDs the central store holds finished (read from stdin)."""
    try:
        found = json.loads(text) if text.strip() else []
    except json.JSONDecodeError as error:
        raise UsageError(f"node export reads a JSON list of run UUIDs on stdin: {error}") from error
    if not isinstance(found, list) or not all(isinstance(item, str) for item in found):
        raise UsageError("node export reads a JSON list of run UUIDs on stdin")
    return tuple(found)


@dataclass(frozen=True, slots=True)
class NodeExportRequest:
    db: Path  # the node's store
    finished_uuids: tuple[str, ...] = ()  # runs the central store holds finished: left out


def export_node_runs(request: NodeExportRequest, sink: BinaryIO) -> None:
    """Write the store's runs but the finished ones named, as one store file, to `sink`; an
    empty store for a node that never ran anything."""
    with tempfile.TemporaryDirectory(prefix="ssdlab-export-") as scratch:
        exported = Path(scratch) / "runs.db"
        _export_into(request, exported)
        with exported.open("rb") as handle:
            while chunk := handle.read(CHUNK_BYTES):
                sink.write(chunk)


def export_node_runs_to(request: NodeExportRequest, dest: Path) -> None:
    """Write the same store file at `dest` (`node export --to`), for a program on the node
    that keeps it there (the collection's export module): written beside it and renamed
    over it once whole, readable by its owner only; nothing passes through memory."""
    folder = dest.parent
    if not folder.is_dir():
        raise UsageError(f"node export --to: the folder {folder} does not exist")
    if dest.is_dir():
        raise UsageError(f"node export --to: {dest} is a folder; give a file's path")
    handle, name = tempfile.mkstemp(prefix=".ssdlab-export-", suffix=".db", dir=folder)
    os.close(handle)
    scratch = Path(name)
    try:
        _export_into(request, scratch)
        scratch.chmod(0o600)
        scratch.replace(dest)
    finally:
        scratch.unlink(missing_ok=True)


def _export_into(request: NodeExportRequest, out: Path) -> None:
    """The export at `out` (a new or empty file); an empty store for a node that never ran."""
    if request.db.exists():
        export_runs(request.db, out, finished_uuids=list(request.finished_uuids))
    else:
        open_store(out).close()


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


@dataclass(frozen=True, slots=True)
class NodeStatusRequest:
    jobs_dir: Path


def node_status(conn: sqlite3.Connection | None, request: NodeStatusRequest) -> dict[str, Any]:
    """The node's running and recent runs (none without a store: `conn` None) and its fleet
    jobs, as one document."""
    runs = []
    if conn is not None:
        runs = [_run_entry(conn, run) for run in list_runs(conn, limit=RECENT_RUNS)]
    jobs = detached.list_jobs(request.jobs_dir) if request.jobs_dir.is_dir() else []
    return {"format": STATUS_FORMAT, "format_version": 1, "runs": runs, "jobs": jobs}
