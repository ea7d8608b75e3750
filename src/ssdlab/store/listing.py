"""`ssdlab runs`: the runs a filter selects, a page at a time, read from the plain, indexed
columns of the run rows without decoding any JSON."""

import dataclasses
import sqlite3

from ssdlab.model.run import RunKind, RunRecord, RunStatus
from ssdlab.model.target import TargetKind
from ssdlab.store.run_rows import (
    UnreadableRun,
    decode_problem,
    load_run,
    run_kind,
    run_status,
    target_kind,
)


@dataclasses.dataclass(frozen=True, slots=True)
class RunListing:
    """One line of `ssdlab runs`: the run's columns, without decoding its JSON (the plan of a
    long run is large); `source_tool` is an import's tool and version ('CrystalDiskMark 8.0.4')."""

    run_id: int
    kind: RunKind
    profile: str
    preset: str | None
    status: RunStatus
    status_reason: str | None
    target_kind: TargetKind
    target_path: str
    started_at_s: float
    ended_at_s: float | None
    source_tool: str | None = None
    host: str = ""  # for a collected run its name in the fleet inventory
    uuid: str = ""
    node_host: str | None = None  # a collected run: the node's own hostname
    collected_at_s: float | None = None  # a collected run: when it was collected
    drive_model: str | None = None  # the drive a run on a device tested (schema 8)
    drive_serial: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class RunFilter:
    """Which runs to list. `profile` matches a run's kind (quick, import, sim, health, watch)
    or a profile run's profile (pts-iops, cache, endurance; not the profile an import or a
    simulation was stored under); `targets` are exact target paths and
    `target_folders` folders whose test files count; `since_s` a start time (epoch seconds);
    `host` a run's host (for a collected run its name in the fleet inventory); `drive` the
    model or serial of the drive a run tested; `before_id` only runs older than that run (the
    next page of a listing)."""

    profile: str | None = None
    since_s: float | None = None
    targets: tuple[str, ...] = ()
    target_folders: tuple[str, ...] = ()
    host: str | None = None
    drive: str | None = None
    status: RunStatus | None = None
    before_id: int | None = None


# A listing reads plain columns (schema 8 copies an import's tool and the drive into the run
# row). The small JSON columns of the rows listed are only checked by SQLite (json_valid), so
# a damaged row is marked as in a full read; none is parsed, and the plan, which can be
# large, is not read.
_CHECKED_JSON = ("target_json", "settings_json", "environment_json")
_LISTING_COLUMNS = (
    "id, kind, profile, preset, status, status_reason, target_kind, target_path, started_at_s,"
    " ended_at_s, host, uuid, node_host, collected_at_s, source_tool, drive_model,"
    " drive_serial, "
    + ", ".join(
        f"CASE WHEN json_valid({column}) THEN json_type({column}) ELSE 'invalid' END"
        f" AS {column}_type"
        for column in _CHECKED_JSON
    )
)


def _check_json_types(row: sqlite3.Row) -> None:
    for column in _CHECKED_JSON:
        kind = row[f"{column}_type"]
        if kind == "invalid":
            raise ValueError(f"column {column} is not valid JSON")
        if kind != "object":
            raise ValueError(f"column {column} holds JSON {kind}, not an object")


def _folder_range(folder: str) -> tuple[str, str]:
    """The target paths under `folder` as a range of the index on target_path: every path
    starting 'folder/' sorts from 'folder/' up to (not including) 'folder0' ('/' + 1)."""
    prefix = folder.rstrip("/")
    return prefix + "/", prefix + "0"


def _filter_sql(wanted: RunFilter) -> tuple[str, list[object]]:
    clauses: list[str] = []
    params: list[object] = []
    if wanted.profile is not None:
        clauses.append("(kind = ? OR (kind = 'profile' AND profile = ?))")
        params += [wanted.profile, wanted.profile]
    if wanted.since_s is not None:
        clauses.append("started_at_s >= ?")
        params.append(wanted.since_s)
    if wanted.host is not None:
        clauses.append("host = ?")
        params.append(wanted.host)
    if wanted.drive is not None:
        clauses.append("(drive_model = ? OR drive_serial = ?)")
        params += [wanted.drive, wanted.drive]
    if wanted.status is not None:
        clauses.append("status = ?")
        params.append(wanted.status.value)
    if wanted.before_id is not None:
        clauses.append("id < ?")
        params.append(wanted.before_id)
    if wanted.targets or wanted.target_folders:
        alternatives = (
            [f"target_path IN ({', '.join('?' * len(wanted.targets))})"] if (wanted.targets) else []
        )
        params += list(wanted.targets)
        for folder in wanted.target_folders:
            alternatives.append("(target_path >= ? AND target_path < ?)")
            params += list(_folder_range(folder))
        clauses.append("(" + " OR ".join(alternatives) + ")")
    return ("WHERE " + " AND ".join(clauses)) if clauses else "", params


def _listing_from_row(row: sqlite3.Row) -> RunListing | UnreadableRun:
    try:
        _check_json_types(row)
        source = row["source_tool"]
        return RunListing(
            run_id=int(row["id"]),
            kind=run_kind(row),
            profile=str(row["profile"]),
            preset=row["preset"],
            status=run_status(row),
            status_reason=row["status_reason"],
            target_kind=target_kind(row),
            target_path=str(row["target_path"]),
            started_at_s=float(row["started_at_s"]),
            ended_at_s=row["ended_at_s"],
            source_tool=source if isinstance(source, str) else None,
            host=str(row["host"]),
            uuid=str(row["uuid"]),
            node_host=row["node_host"],
            collected_at_s=row["collected_at_s"],
            drive_model=row["drive_model"],
            drive_serial=row["drive_serial"],
        )
    except (TypeError, ValueError) as error:
        return UnreadableRun(int(row["id"]), str(error))


def count_run_listings(conn: sqlite3.Connection, wanted: RunFilter | None = None) -> int:
    """How many runs `wanted` selects (counted on the indexes, no row read)."""
    where, params = _filter_sql(wanted or RunFilter())
    return int(conn.execute(f"SELECT COUNT(*) FROM runs {where}", params).fetchone()[0])


def _page_sql(limit: int | None, offset: int) -> str:
    tail = " ORDER BY id DESC" + (" LIMIT -1" if limit is None else f" LIMIT {int(limit):d}")
    return tail + f" OFFSET {max(int(offset), 0):d}"


def _page_ids_sql(wanted: RunFilter, limit: int | None, offset: int) -> tuple[str, list[object]]:
    """The ids of one page, chosen on the indexes alone (every index holds the row id): only
    the rows of the page are read then, however many runs match."""
    where, params = _filter_sql(wanted)
    page = _page_sql(limit, offset)
    if wanted.since_s is not None:  # from the index on start times, not a walk of every row
        page = page.replace("ORDER BY id", "ORDER BY +id")
    return f"SELECT id FROM runs {where}{page}", params


def listing_query(
    wanted: RunFilter | None = None, limit: int | None = None, offset: int = 0
) -> tuple[str, list[object]]:
    """The SQL (and its parameters) `list_run_listings` runs: what a benchmark hands the
    sqlite3 shell to compare with."""
    ids, params = _page_ids_sql(wanted or RunFilter(), limit, offset)
    return f"SELECT {_LISTING_COLUMNS} FROM runs WHERE id IN ({ids}) ORDER BY id DESC", params


def list_run_listings(
    conn: sqlite3.Connection,
    limit: int | None = None,
    wanted: RunFilter | None = None,
    offset: int = 0,
) -> list[RunListing | UnreadableRun]:
    """The runs `wanted` selects, newest first, filtered by the store (WHERE clauses on
    indexed columns), `limit` of them after skipping `offset`, read without decoding any JSON;
    a row that cannot be read back is marked, not fatal."""
    page, params = _page_ids_sql(wanted or RunFilter(), limit, offset)
    sql, _ = listing_query(wanted, limit, offset)
    try:
        rows = conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError as error:
        if decode_problem(error) is None:
            raise
        ids = [int(r[0]) for r in conn.execute(page, params)]
        found: list[RunListing | UnreadableRun] = []
        for run_id in ids:
            try:
                row = conn.execute(
                    f"SELECT {_LISTING_COLUMNS} FROM runs WHERE id = ?", (run_id,)
                ).fetchone()
            except sqlite3.OperationalError as row_error:
                problem = decode_problem(row_error)
                if problem is None:
                    raise
                found.append(UnreadableRun(run_id, problem))
                continue
            found.append(_listing_from_row(row))
        return found
    return [_listing_from_row(row) for row in rows]


def runs_matching(conn: sqlite3.Connection, wanted: RunFilter) -> list[RunRecord]:
    """The readable runs `wanted` selects, newest first: chosen on the indexed columns, and
    only those decoded, so the time is that of the runs found, not of the whole store."""
    found = (load_run(conn, row.run_id) for row in list_run_listings(conn, wanted=wanted))
    return [run for run in found if run is not None]
