"""Insert and load runs, captures, step results and series. One transaction per unit of work."""

import dataclasses
import json
import re
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

from ssdlab.errors import StoreError
from ssdlab.model.json_fields import dumps
from ssdlab.model.result import DirectionMetrics, SeriesPoint
from ssdlab.model.run import Capture, RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import DeviceIdentity, FileIdentity
from ssdlab.store.codec import (
    DEVICE_IDENTITY,
    RUN_ENVIRONMENT,
    RUN_PLAN,
    RUN_SETTINGS,
    RUN_TARGET,
    STEP_METRICS,
    BlobKind,
    from_blob,
    open_blob,
    to_blob,
    versioned,
)
from ssdlab.store.raw import FILE_PACK_MIN_BYTES, dictionary_source, pack_raw, unpack_raw


def to_json(value: object) -> str:
    """Canonical JSON of dataclasses, dicts and tuples (sorted keys, no NaN): what callers
    hand to `create_run` and `replace_run_plan`, which put each blob's version in."""
    return dumps(value)


STORE_WRITE_ADVICE = (
    "; what was stored before is intact — free space where the store is (or choose another "
    "with --db PATH) and continue with 'ssdlab resume' or 'ssdlab endure --resume'"
)


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back what is open; SQLite has already rolled back after some errors (a full disk)."""
    if conn.in_transaction:
        with suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


def _store_error(error: sqlite3.Error) -> StoreError:
    return StoreError(f"cannot write to the run store: {error}{STORE_WRITE_ADVICE}")


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE … COMMIT, rolled back on any error; sqlite errors become StoreError."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as error:
        raise _store_error(error) from error
    try:
        yield conn
    except sqlite3.Error as error:
        _rollback(conn)
        raise _store_error(error) from error
    except BaseException:
        _rollback(conn)
        raise
    try:
        conn.execute("COMMIT")
    except sqlite3.Error as error:
        _rollback(conn)
        raise _store_error(error) from error


def upsert_device(conn: sqlite3.Connection, device: DeviceIdentity) -> int:
    identity = to_blob(device, DEVICE_IDENTITY)
    with transaction(conn):
        # a device first stored before blobs had versions is found by its unversioned JSON
        row = conn.execute(
            "SELECT id FROM devices WHERE identity_json IN (?, ?) ORDER BY id",
            (identity, dumps(device)),
        ).fetchone()
        if row is not None:
            return int(row[0])
        cursor = conn.execute(
            "INSERT INTO devices (name, path, model, serial, firmware, capacity_bytes, transport,"
            " identity_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                device.name,
                device.path,
                device.model,
                device.serial,
                device.firmware,
                device.capacity_bytes,
                device.transport,
                identity,
            ),
        )
        return int(cursor.lastrowid or 0)


@dataclasses.dataclass(frozen=True, slots=True)
class NewRun:
    kind: str
    profile: str
    profile_version: int
    preset: str | None
    target_kind: str
    target_path: str
    target_json: str
    device_id: int | None
    settings_json: str
    plan_json: str
    environment_json: str
    started_at_s: float
    host: str
    pid: int
    boot_id: str | None
    pid_namespace: str | None = None  # the PID namespace `pid` belongs to (schema 5)
    uuid: str | None = None  # the run's UUID (schema 7); None: a new random one


def create_run(conn: sqlite3.Connection, run: NewRun) -> int:
    with transaction(conn):
        cursor = conn.execute(
            "INSERT INTO runs (kind, profile, profile_version, preset, status, target_kind,"
            " target_path, target_json, device_id, settings_json, plan_json, environment_json,"
            " started_at_s, host, pid, boot_id, pid_namespace, uuid)"
            " VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run.kind,
                run.profile,
                run.profile_version,
                run.preset,
                run.target_kind,
                run.target_path,
                versioned(run.target_json, RUN_TARGET),
                run.device_id,
                versioned(run.settings_json, RUN_SETTINGS),
                versioned(run.plan_json, RUN_PLAN),
                versioned(run.environment_json, RUN_ENVIRONMENT),
                run.started_at_s,
                run.host,
                run.pid,
                run.boot_id,
                run.pid_namespace,
                run.uuid or str(uuid.uuid4()),
            ),
        )
        return int(cursor.lastrowid or 0)


def finish_run(
    conn: sqlite3.Connection, run_id: int, status: RunStatus, reason: str | None, ended_at_s: float
) -> None:
    with transaction(conn):
        conn.execute(
            "UPDATE runs SET status = ?, status_reason = ?, ended_at_s = ? WHERE id = ?",
            (status.value, reason, ended_at_s, run_id),
        )


def reopen_run(
    conn: sqlite3.Connection,
    run_id: int,
    pid: int,
    boot_id: str | None,
    pid_namespace: str | None = None,
) -> None:
    """Continue a finished or interrupted run (a watch series) from this process; the pid,
    boot id and PID namespace recorded are this process's from now on."""
    with transaction(conn):
        conn.execute(
            "UPDATE runs SET status = 'running', status_reason = NULL, ended_at_s = NULL,"
            " pid = ?, boot_id = ?, pid_namespace = ? WHERE id = ?",
            (pid, boot_id, pid_namespace, run_id),
        )


def replace_run_plan(
    conn: sqlite3.Connection, run_id: int, settings_json: str, plan_json: str
) -> None:
    """New settings and plan for a stopped run that resumes with other stop conditions (the
    change itself is recorded as a finding by the caller)."""
    with transaction(conn):
        conn.execute(
            "UPDATE runs SET settings_json = ?, plan_json = ? WHERE id = ?",
            (versioned(settings_json, RUN_SETTINGS), versioned(plan_json, RUN_PLAN), run_id),
        )


def add_capture(
    conn: sqlite3.Connection, run_id: int, capture: Capture, files: dict[str, str] | None = None
) -> int:
    """Store one tool invocation verbatim (and the files it wrote), before anything parses it;
    its output, job file and files compressed (store/raw.py), read back byte for byte."""
    source = dictionary_source(capture.tool, capture.argv)
    with transaction(conn):
        cursor = conn.execute(
            "INSERT INTO captures (run_id, tool, tool_version, argv_json, input_text, exit_code,"
            " stdout, stderr, started_at_s, ended_at_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                capture.tool,
                capture.tool_version,
                json.dumps(list(capture.argv)),
                pack_raw(conn, capture.input_text),
                capture.exit_code,
                pack_raw(conn, capture.stdout, source),
                pack_raw(conn, capture.stderr),
                capture.started_at_s,
                capture.ended_at_s,
            ),
        )
        capture_id = int(cursor.lastrowid or 0)
        for name, content in sorted((files or {}).items()):
            conn.execute(
                "INSERT INTO capture_files (capture_id, name, content) VALUES (?, ?, ?)",
                (capture_id, name, pack_raw(conn, content, min_bytes=FILE_PACK_MIN_BYTES)),
            )
        return capture_id


def add_step_result(conn: sqlite3.Connection, run_id: int, step: StepResult) -> int:
    """Store one parsed measurement and its per-interval series in one transaction."""
    with transaction(conn):
        cursor = conn.execute(
            "INSERT INTO step_results (run_id, capture_id, step_key, step_label, direction,"
            " round_index, discarded, bw_bytes_per_s, iops, lat_mean_ns, read_json, write_json)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                step.capture_id,
                step.step_key,
                step.step_label,
                step.direction,
                step.round_index,
                int(step.discarded),
                step.bw_bytes_per_s,
                step.iops,
                step.lat_mean_ns,
                to_blob(step.read, STEP_METRICS) if step.read else None,
                to_blob(step.write, STEP_METRICS) if step.write else None,
            ),
        )
        step_id = int(cursor.lastrowid or 0)
        conn.executemany(
            "INSERT INTO series (step_result_id, elapsed_s, direction, bw_bytes_per_s, iops,"
            " lat_mean_ns) VALUES (?, ?, ?, ?, ?, ?)",
            [
                (step_id, p.elapsed_s, p.direction, p.bw_bytes_per_s, p.iops, p.lat_mean_ns)
                for p in step.series
            ],
        )
        return step_id


def add_test_file(conn: sqlite3.Connection, run_id: int, path: str, created_at_s: float) -> int:
    with transaction(conn):
        cursor = conn.execute(
            "INSERT INTO test_files (run_id, path, created_at_s) VALUES (?, ?, ?)",
            (run_id, path, created_at_s),
        )
        return int(cursor.lastrowid or 0)


def record_test_file_identity(
    conn: sqlite3.Connection, file_id: int, identity: FileIdentity
) -> None:
    """The device and inode of the test file ssdlab just created: what makes it ssdlab's."""
    with transaction(conn):
        conn.execute(
            "UPDATE test_files SET device = ?, inode = ?, marker = ? WHERE id = ?",
            (identity.device, identity.inode, identity.marker, file_id),
        )


def mark_test_file_removed(conn: sqlite3.Connection, file_id: int, removed_at_s: float) -> None:
    with transaction(conn):
        conn.execute("UPDATE test_files SET removed_at_s = ? WHERE id = ?", (removed_at_s, file_id))


@dataclasses.dataclass(frozen=True, slots=True)
class TestFileRecord:
    file_id: int
    run_id: int
    path: str
    run_status: RunStatus
    identity: FileIdentity | None  # None: recorded by a store before schema 5


_TEST_FILE_COLUMNS = "f.id, f.run_id, f.path, r.status, f.device, f.inode, f.marker"


def _test_file_from_row(row: sqlite3.Row) -> TestFileRecord:
    device, inode = row[4], row[5]
    return TestFileRecord(
        int(row[0]),
        int(row[1]),
        str(row[2]),
        RunStatus(row[3]),
        None
        if device is None or inode is None
        else FileIdentity(int(device), int(inode), None if row[6] is None else str(row[6])),
    )


def open_test_files(conn: sqlite3.Connection, run_id: int) -> list[TestFileRecord]:
    """A run's test files not marked removed (a resumed run carries on with them)."""
    rows = conn.execute(
        f"SELECT {_TEST_FILE_COLUMNS} FROM test_files f JOIN runs r ON r.id = f.run_id"
        " WHERE f.run_id = ? AND f.removed_at_s IS NULL ORDER BY f.id",
        (run_id,),
    ).fetchall()
    return [_test_file_from_row(r) for r in rows]


def leftover_test_files(conn: sqlite3.Connection) -> list[TestFileRecord]:
    """Test files not marked removed whose run is no longer running (runs made in this store
    only: a collected run's test files are on the node that ran it)."""
    rows = conn.execute(
        f"SELECT {_TEST_FILE_COLUMNS} FROM test_files f JOIN runs r ON r.id = f.run_id"
        " WHERE f.removed_at_s IS NULL AND r.status != 'running'"
        " AND r.collected_at_s IS NULL ORDER BY f.id"
    ).fetchall()
    return [_test_file_from_row(r) for r in rows]


def owned_test_files_at(conn: sqlite3.Connection, path: str) -> list[TestFileRecord]:
    """Test files this store recorded at `path` and never marked removed (a file kept with
    --keep that a new run may reuse, if it is still the same file); not those of collected
    runs, which are on the node that ran them."""
    rows = conn.execute(
        f"SELECT {_TEST_FILE_COLUMNS} FROM test_files f JOIN runs r ON r.id = f.run_id"
        " WHERE f.path = ? AND f.removed_at_s IS NULL AND r.collected_at_s IS NULL"
        " ORDER BY f.id DESC",
        (path,),
    ).fetchall()
    return [_test_file_from_row(r) for r in rows]


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


def _status(row: sqlite3.Row) -> RunStatus:
    try:
        return RunStatus(row["status"])
    except ValueError:
        raise ValueError(f"column status holds {row['status']!r}, not a run status") from None


_DECODE_COLUMN = re.compile(r"Could not decode to UTF-8 column '([^']*)'")


def _decode_problem(error: sqlite3.OperationalError) -> str | None:
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
        problem = _decode_problem(error)
        if problem is None:
            raise
        return UnreadableRun(run_id, problem)
    return None if row is None else _decoded(row)


def _fetch_runs(
    conn: sqlite3.Connection, where: str = "", params: tuple[object, ...] = ()
) -> list[RunRecord | UnreadableRun]:
    """Runs selected by `where` (and ORDER/LIMIT), each read back or marked unreadable: one
    row SQLite cannot decode must not hide the others."""
    try:
        rows = conn.execute(f"SELECT * FROM runs {where}", params).fetchall()
    except sqlite3.OperationalError as error:
        if _decode_problem(error) is None:
            raise
        ids = [int(r[0]) for r in conn.execute(f"SELECT id FROM runs {where}", params)]
        found = (_read_run(conn, run_id) for run_id in ids)
        return [run for run in found if run is not None]
    return [_decoded(row) for row in rows]


def _readable(runs: list[RunRecord | UnreadableRun]) -> list[RunRecord]:
    return [run for run in runs if isinstance(run, RunRecord)]


def _run_from_row(row: sqlite3.Row) -> RunRecord:
    return RunRecord(
        run_id=int(row["id"]),
        kind=row["kind"],
        profile=row["profile"],
        profile_version=int(row["profile_version"]),
        preset=row["preset"],
        status=_status(row),
        status_reason=row["status_reason"],
        target_kind=row["target_kind"],
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
    return _fetch_runs(conn, where)


@dataclasses.dataclass(frozen=True, slots=True)
class RunListing:
    """One line of `ssdlab runs`: the run's columns, without decoding its JSON (the plan of a
    long run is large); `source_tool` is an import's tool and version ('CrystalDiskMark 8.0.4')."""

    run_id: int
    kind: str
    profile: str
    preset: str | None
    status: RunStatus
    status_reason: str | None
    target_kind: str
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
            kind=str(row["kind"]),
            profile=str(row["profile"]),
            preset=row["preset"],
            status=_status(row),
            status_reason=row["status_reason"],
            target_kind=str(row["target_kind"]),
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
        if _decode_problem(error) is None:
            raise
        ids = [int(r[0]) for r in conn.execute(page, params)]
        found: list[RunListing | UnreadableRun] = []
        for run_id in ids:
            try:
                row = conn.execute(
                    f"SELECT {_LISTING_COLUMNS} FROM runs WHERE id = ?", (run_id,)
                ).fetchone()
            except sqlite3.OperationalError as row_error:
                problem = _decode_problem(row_error)
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


def list_runs(conn: sqlite3.Connection, limit: int | None = None) -> list[RunRecord]:
    """Every readable run, newest first (unreadable rows are left out: see list_run_rows)."""
    return _readable(list_run_rows(conn, limit))


def running_runs_on(conn: sqlite3.Connection, target_path: str) -> list[RunRecord]:
    """Runs recorded as running on this target (their processes may have died since); not
    collected runs, whose target is on the node that runs them."""
    found = _fetch_runs(
        conn,
        "WHERE status = 'running' AND target_path = ? AND collected_at_s IS NULL ORDER BY id",
        (target_path,),
    )
    for run in found:
        if isinstance(run, UnreadableRun):  # cannot tell whether it is alive: say so
            raise unreadable_run_error(run)
    return _readable(found)


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


def _metrics_from_json(text: str | None, where: str) -> DirectionMetrics | None:
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise StoreError(f"{where} is not valid JSON ({error})") from None
    return from_blob(DirectionMetrics, data, STEP_METRICS, where)


def load_step_results(
    conn: sqlite3.Connection, run_id: int, *, with_series: bool = True
) -> list[StepResult]:
    rows = conn.execute(
        "SELECT * FROM step_results WHERE run_id = ? ORDER BY id", (run_id,)
    ).fetchall()
    steps = []
    for row in rows:
        series: tuple[SeriesPoint, ...] = ()
        if with_series:
            series = tuple(
                SeriesPoint(
                    elapsed_s=p["elapsed_s"],
                    direction=p["direction"],
                    bw_bytes_per_s=p["bw_bytes_per_s"],
                    iops=p["iops"],
                    lat_mean_ns=p["lat_mean_ns"],
                )
                for p in conn.execute(
                    "SELECT * FROM series WHERE step_result_id = ? ORDER BY rowid", (row["id"],)
                )
            )
        steps.append(
            StepResult(
                step_key=row["step_key"],
                step_label=row["step_label"],
                direction=row["direction"],
                round_index=int(row["round_index"]),
                discarded=bool(row["discarded"]),
                bw_bytes_per_s=float(row["bw_bytes_per_s"]),
                iops=float(row["iops"]),
                lat_mean_ns=row["lat_mean_ns"],
                read=_metrics_from_json(row["read_json"], f"step result {row['id']}'s read"),
                write=_metrics_from_json(row["write_json"], f"step result {row['id']}'s write"),
                capture_id=row["capture_id"],
                series=series,
            )
        )
    return steps


def load_capture_inputs(conn: sqlite3.Connection, run_id: int) -> list[tuple[int, str, str]]:
    """(capture id, tool, job file text) of every capture of a run that had a job file."""
    rows = conn.execute(
        "SELECT id, tool, input_text FROM captures WHERE run_id = ? AND input_text IS NOT NULL"
        " ORDER BY id",
        (run_id,),
    ).fetchall()
    return [
        (int(r[0]), str(r[1]), unpack_raw(conn, r[2], f"the job file of capture {r[0]}"))
        for r in rows
    ]


def capture_times(conn: sqlite3.Connection, run_id: int) -> dict[int, tuple[float, float]]:
    """capture id -> (started, ended) wall-clock times of every capture of a run."""
    rows = conn.execute(
        "SELECT id, started_at_s, ended_at_s FROM captures WHERE run_id = ?", (run_id,)
    ).fetchall()
    return {int(r[0]): (float(r[1]), float(r[2])) for r in rows}


def mark_dead_runs(conn: sqlite3.Connection, is_alive: Callable[[RunRecord], bool]) -> list[int]:
    """Mark `running` runs whose process is gone as interrupted; return their ids. A collected
    run is left as its node last reported it: its process is on the node, and the next
    collect brings its end."""
    running = _readable(_fetch_runs(conn, "WHERE status = 'running' AND collected_at_s IS NULL"))
    dead = [run for run in running if not is_alive(run)]
    marked = []
    for run in dead:
        with transaction(conn):
            # only the process judged dead: a resume may have taken the run over meanwhile
            cursor = conn.execute(
                "UPDATE runs SET status = 'interrupted', status_reason = ? "
                "WHERE id = ? AND status = 'running' AND pid = ? AND boot_id IS ?"
                " AND pid_namespace IS ?",
                (
                    "the ssdlab process stopped without finishing (killed, crashed or its "
                    "terminal closed)",
                    run.run_id,
                    run.pid,
                    run.boot_id,
                    run.pid_namespace,
                ),
            )
            if cursor.rowcount:
                marked.append(run.run_id)
    return marked


def delete_step_results(conn: sqlite3.Connection, run_id: int, keys: list[tuple[str, int]]) -> None:
    """Remove parsed results (and their series) of (step key, round) pairs; the raw captures
    they were parsed from stay. Used when a resumed run repeats a round that was cut short."""
    with transaction(conn):
        for step_key, round_index in keys:
            conn.execute(
                "DELETE FROM step_results WHERE run_id = ? AND step_key = ? AND round_index = ?",
                (run_id, step_key, round_index),
            )
