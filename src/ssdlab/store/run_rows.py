"""Run rows read back: each decoded into a RunRecord, or marked unreadable (not UTF-8, not
JSON, a status or kind this ssdlab does not know) without hiding the other runs."""

import dataclasses
import json
import re
import sqlite3
from typing import Any

from ssdlab.errors import StoreError
from ssdlab.model.run import RunKind, RunRecord, RunStatus
from ssdlab.model.target import TargetKind
from ssdlab.store.codec import (
    RUN_ENVIRONMENT,
    RUN_PLAN,
    RUN_SETTINGS,
    RUN_TARGET,
    BlobKind,
    open_blob,
)


@dataclasses.dataclass(frozen=True, slots=True)
class UnreadableRun:
    """A row of `runs` that cannot be read back (not UTF-8, not JSON): changed outside
    ssdlab or damaged. Listed as such; the other runs are not affected."""

    run_id: int
    problem: str  # "column target_path is not UTF-8 text"


def unreadable_run_error(bad: UnreadableRun) -> StoreError:
    return StoreError(
        f"run {bad.run_id} in the run store is unreadable: {bad.problem}; its row was changed "
        "outside ssdlab or damaged. Every other run is intact ('ssdlab runs' lists them); "
        "restore this one from a backup of the store"
    )


def _json_object(row: sqlite3.Row, column: str, kind: BlobKind) -> dict[str, Any]:
    """A JSON object column in today's shape, without its blob version."""
    try:
        value = json.loads(row[column])
    except (TypeError, ValueError) as error:
        raise ValueError(f"column {column} is not valid JSON ({error})") from None
    if not isinstance(value, dict):
        raise ValueError(f"column {column} holds JSON {type(value).__name__}, not an object")
    try:
        return open_blob(value, kind, f"column {column}")
    except StoreError as error:
        raise ValueError(str(error)) from None


def run_kind(row: sqlite3.Row) -> RunKind:
    try:
        return RunKind(row["kind"])
    except ValueError:
        raise ValueError(
            f"column kind holds {row['kind']!r}, a kind of run this ssdlab does not know "
            "(written by a newer ssdlab, or changed outside ssdlab)"
        ) from None


def target_kind(row: sqlite3.Row) -> TargetKind:
    try:
        return TargetKind(row["target_kind"])
    except ValueError:
        raise ValueError(
            f"column target_kind holds {row['target_kind']!r}, a kind of target this ssdlab "
            "does not know (written by a newer ssdlab, or changed outside ssdlab)"
        ) from None


def run_status(row: sqlite3.Row) -> RunStatus:
    try:
        return RunStatus(row["status"])
    except ValueError:
        raise ValueError(f"column status holds {row['status']!r}, not a run status") from None


_DECODE_COLUMN = re.compile(r"Could not decode to UTF-8 column '([^']*)'")


def decode_problem(error: sqlite3.OperationalError) -> str | None:
    """What a text-decoding failure of the driver says, None for any other error."""
    match = _DECODE_COLUMN.search(str(error))
    return None if match is None else f"column {match.group(1)} is not UTF-8 text"


def _decoded(row: sqlite3.Row) -> RunRecord | UnreadableRun:
    try:
        return _run_from_row(row)
    except (TypeError, ValueError) as error:
        return UnreadableRun(int(row["id"]), str(error))


def _read_run(conn: sqlite3.Connection, run_id: int) -> RunRecord | UnreadableRun | None:
    try:
        row = conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()
    except sqlite3.OperationalError as error:
        problem = decode_problem(error)
        if problem is None:
            raise
        return UnreadableRun(run_id, problem)
    return None if row is None else _decoded(row)


def fetch_runs(
    conn: sqlite3.Connection, where: str = "", params: tuple[object, ...] = ()
) -> list[RunRecord | UnreadableRun]:
    """Runs selected by `where` (and ORDER/LIMIT), each read back or marked unreadable: one
    row SQLite cannot decode must not hide the others."""
    try:
        rows = conn.execute(f"SELECT * FROM runs {where}", params).fetchall()
    except sqlite3.OperationalError as error:
        if decode_problem(error) is None:
            raise
        ids = [int(r[0]) for r in conn.execute(f"SELECT id FROM runs {where}", params)]
        found = (_read_run(conn, run_id) for run_id in ids)
        return [run for run in found if run is not None]
    return [_decoded(row) for row in rows]


def readable_runs(runs: list[RunRecord | UnreadableRun]) -> list[RunRecord]:
    return [run for run in runs if isinstance(run, RunRecord)]


def _run_from_row(row: sqlite3.Row) -> RunRecord:
    return RunRecord(
        run_id=int(row["id"]),
        kind=run_kind(row),
        profile=row["profile"],
        profile_version=int(row["profile_version"]),
        preset=row["preset"],
        status=run_status(row),
        status_reason=row["status_reason"],
        target_kind=target_kind(row),
        target_path=row["target_path"],
        target=_json_object(row, "target_json", RUN_TARGET),
        settings=_json_object(row, "settings_json", RUN_SETTINGS),
        plan=_json_object(row, "plan_json", RUN_PLAN),
        environment=_json_object(row, "environment_json", RUN_ENVIRONMENT),
        started_at_s=float(row["started_at_s"]),
        ended_at_s=row["ended_at_s"],
        host=row["host"],
        pid=int(row["pid"]),
        boot_id=row["boot_id"],
        pid_namespace=row["pid_namespace"],
        uuid=str(_since_schema_7(row, "uuid") or ""),
        node_host=_since_schema_7(row, "node_host"),
        collected_at_s=_since_schema_7(row, "collected_at_s"),
    )


def _since_schema_7(row: sqlite3.Row, column: str) -> Any:
    """A run column added by schema 7, None in a row read from an older store as it is (read
    only, not migrated)."""
    names = row.keys()  # a Row's `in` looks at its values, not its columns
    return row[column] if column in names else None


def list_run_rows(
    conn: sqlite3.Connection, limit: int | None = None
) -> list[RunRecord | UnreadableRun]:
    """Every run, newest first; a row that cannot be read back is marked, not fatal."""
    where = "ORDER BY id DESC"
    if limit is not None:
        where += f" LIMIT {int(limit):d}"
    return fetch_runs(conn, where)


def list_runs(conn: sqlite3.Connection, limit: int | None = None) -> list[RunRecord]:
    """Every readable run, newest first (unreadable rows are left out: see list_run_rows)."""
    return readable_runs(list_run_rows(conn, limit))


def running_runs_on(conn: sqlite3.Connection, target_path: str) -> list[RunRecord]:
    """Runs recorded as running on this target (their processes may have died since); not
    collected runs, whose target is on the node that runs them."""
    found = fetch_runs(
        conn,
        "WHERE status = 'running' AND target_path = ? AND collected_at_s IS NULL ORDER BY id",
        (target_path,),
    )
    for run in found:
        if isinstance(run, UnreadableRun):  # cannot tell whether it is alive: say so
            raise unreadable_run_error(run)
    return readable_runs(found)


def load_run(conn: sqlite3.Connection, run_id: int) -> RunRecord | None:
    if abs(run_id) >= 2**63:  # beyond SQLite's integers (the driver would raise OverflowError)
        return None
    run = _read_run(conn, run_id)
    if isinstance(run, UnreadableRun):
        raise unreadable_run_error(run)
    return run


def latest_run_id(conn: sqlite3.Connection) -> int | None:
    row = conn.execute("SELECT MAX(id) FROM runs").fetchone()
    return None if row[0] is None else int(row[0])


def latest_profile_run_id(conn: sqlite3.Connection, kind: str, profile: str) -> int | None:
    """The newest run of `kind` and `profile` (e.g. the newest fitted model)."""
    row = conn.execute(
        "SELECT MAX(id) FROM runs WHERE kind = ? AND profile = ?", (kind, profile)
    ).fetchone()
    return None if row[0] is None else int(row[0])
