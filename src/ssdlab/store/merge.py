"""Copying whole runs from one store into another: what `ssdlab fleet collect` does with the
runs of a lab node, and what a node does to send them (`export_runs`).

A run is known in every store by its UUID (schema 7), so collecting the same run twice stores
it once. Every row id is the receiving store's own: runs, devices (found again by their
identity), captures, step results, test files, health samples and findings get new ids, and
every reference to one is remapped — a step result's capture, a series point's, a step
histogram's and a pass temperature's step result, a
health sample's capture ids (`capture_ids_json`) and the capture ids a finding body records
(`FINDING_CAPTURE_KEYS`: the capture of a system-tool step, the last capture kept when a
resumed run set a round aside). A run's JSON columns hold no row ids of their own store, with
one exception kept as it was: cachefit's `from_run` setting names the cache run it took its
cache size from by that run's id in the store it ran in (the size itself is in the plan). The
serial of a simulated drive (`sim-RUN-KEY`) is a name and is not changed either.

Raw outputs are copied as they are stored, compressed or not (store/raw.py), with the
dictionaries compressed ones refer to; they are decompressed only where they are read.

Runs are copied in batches, one transaction of the receiving store each (up to `BATCH_RUNS`
runs or `BATCH_S` seconds of copying), each run inside a savepoint of its own: a collect that
fails or is killed part way leaves whole runs only (those of the batches committed), and the
next collect carries on; a run refused is rolled back to its savepoint alone. A commit per run
on both sides (the node's export and this store) made 1,008 runs wait for about 2,000 syncs of
the disk: 16.3 s in process, 6.3 s in batches.
An export is written into a new file nobody reads before it is complete, so it is written
without syncs at all (`PRAGMA synchronous = OFF`): a node that dies mid-export leaves a scratch
file that is thrown away.

A collect takes a node's runs as data, never as authority over the receiving store: a run is
matched by its UUID *and* its host, so a node can add runs and bring up to date the running
runs collected from it before, and nothing else — a run whose UUID the store holds from
another host, or made here, is refused, as is a run holding what no run of ssdlab's would
(store/vetting.py). A refused run is left out whole, with one line saying why.
"""

import dataclasses
import hashlib
import json
import sqlite3
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from ssdlab.errors import StoreError
from ssdlab.store.db import open_store
from ssdlab.store.raw import copy_dictionaries
from ssdlab.store.transaction import StoreWriteError, transaction
from ssdlab.store.vetting import RunRefused, brief, check_row, checked_uuid, vetting_sink

Row = dict[str, Any]
# receives one row of a table (without its id) and returns the id it now has
Sink = Callable[[str, Row], int]

# keys of finding bodies whose value is a capture id of the finding's run (0: none)
FINDING_CAPTURE_KEYS = ("capture_id", "last_kept_capture_id")
# the run columns that say where a run was made, set anew when a run is collected
ORIGIN_COLUMNS = ("host", "node_host", "collected_at_s")
# a batch of runs copied in one transaction of the receiving store ends after this many runs,
# or once it has taken this long (the store's write lock is not held longer than that)
BATCH_RUNS = 200
BATCH_S = 1.0


@dataclasses.dataclass(frozen=True, slots=True)
class MergeResult:
    """The UUIDs of the runs a copy added, updated (a running run the source had further
    along) and skipped (already there, finished, or left out by the caller), in source order;
    and one line for each run a collect refused (`run UUID: why`)."""

    added: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, slots=True)
class Origin:
    """How copied runs record where they came from: `host` None keeps the source's host,
    node host and collection time (a node's export); a name makes the copy a collected run."""

    host: str | None
    collected_at_s: float | None


# ---- pure helpers: id remapping -----------------------------------------------------------


def remap_id(value: object, ids: Mapping[int, int], what: str) -> int | None:
    """`value` (a row id of the source run, or None) as the receiving store's id."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value not in ids:
        raise RunRefused(f"{what} refers to {brief(value)}, which is not a row of the same run")
    return ids[value]


def _json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError, RecursionError):
        raise RunRefused(f"{what} is not JSON ssdlab can read") from None


def remap_id_list(text: str, ids: Mapping[int, int], what: str) -> str:
    """A JSON list of row ids (a health sample's `capture_ids_json`) remapped."""
    values = _json(text, what)
    if not isinstance(values, list):
        raise RunRefused(f"{what} is not a JSON list of ids")
    return json.dumps([remap_id(value, ids, what) for value in values])


def remap_finding_body(text: str, capture_ids: Mapping[int, int], what: str) -> str:
    """A finding body with the capture ids it records remapped; a body that records none is
    returned as it was, byte for byte."""
    body = _json(text, what)
    if not isinstance(body, dict):
        return text
    found = [key for key in FINDING_CAPTURE_KEYS if body.get(key) not in (None, 0)]
    if not found:
        return text
    for key in found:
        body[key] = remap_id(body[key], capture_ids, f"{what} ({key})")
    return json.dumps(body, sort_keys=True, allow_nan=False)


def collected_run_row(row: Row, device_id: int | None, origin: Origin) -> Row:
    """The run row as the receiving store keeps it: its device's id there, and for a collect
    the inventory name as host, the node's own hostname and the time of the collect."""
    values = {**row, "device_id": device_id}
    if origin.host is not None:
        values["host"] = origin.host
        values["node_host"] = row["host"]
        values["collected_at_s"] = origin.collected_at_s
    return values


# ---- reading a run and its rows ----------------------------------------------------------


def _rows(conn: sqlite3.Connection, sql: str, params: tuple[object, ...]) -> Iterator[Row]:
    cursor = conn.cursor()
    cursor.row_factory = sqlite3.Row
    for row in cursor.execute(sql, params):
        yield dict(row)


def _children(source: sqlite3.Connection, run_id: int, new_run_id: int, sink: Sink) -> None:
    """Every row belonging to run `run_id` of `source`, handed to `sink` in the order they
    were stored, as rows of run `new_run_id` with every id remapped."""
    captures = _captures(source, run_id, new_run_id, sink)
    _steps(source, run_id, new_run_id, captures, sink)
    for row in _rows(source, "SELECT * FROM test_files WHERE run_id = ? ORDER BY id", (run_id,)):
        sink("test_files", {**row, "run_id": new_run_id})
    for row in _rows(
        source, "SELECT * FROM health_samples WHERE run_id = ? ORDER BY id", (run_id,)
    ):
        where = f"health sample {row['id']} of run {run_id}"
        ids = remap_id_list(row["capture_ids_json"], captures, where)
        sink("health_samples", {**row, "run_id": new_run_id, "capture_ids_json": ids})
    for row in _rows(source, "SELECT * FROM findings WHERE run_id = ? ORDER BY id", (run_id,)):
        where = f"finding {brief(row['name'])} of run {run_id}"
        body = remap_finding_body(row["body_json"], captures, where)
        sink("findings", {**row, "run_id": new_run_id, "body_json": body})


def _captures(
    source: sqlite3.Connection, run_id: int, new_run_id: int, sink: Sink
) -> dict[int, int]:
    captures: dict[int, int] = {}
    for row in _rows(source, "SELECT * FROM captures WHERE run_id = ? ORDER BY id", (run_id,)):
        captures[int(row["id"])] = sink("captures", {**row, "run_id": new_run_id})
    for row in _rows(
        source,
        "SELECT f.* FROM capture_files f JOIN captures c ON c.id = f.capture_id"
        " WHERE c.run_id = ? ORDER BY f.rowid",
        (run_id,),
    ):
        capture_id = remap_id(row["capture_id"], captures, f"a capture file of run {run_id}")
        sink("capture_files", {**row, "capture_id": capture_id})
    return captures


# the tables whose rows belong to a step result, and what a message calls one of them
STEP_ROWS = (
    ("series", "a series point"),
    ("step_histograms", "a step histogram"),
    ("step_temperatures", "a pass's temperature"),
)


def _steps(
    source: sqlite3.Connection,
    run_id: int,
    new_run_id: int,
    captures: Mapping[int, int],
    sink: Sink,
) -> None:
    steps: dict[int, int] = {}
    for row in _rows(source, "SELECT * FROM step_results WHERE run_id = ? ORDER BY id", (run_id,)):
        where = f"step result {row['id']} of run {run_id}"
        capture_id = remap_id(row["capture_id"], captures, where)
        steps[int(row["id"])] = sink(
            "step_results", {**row, "run_id": new_run_id, "capture_id": capture_id}
        )
    for table, what in STEP_ROWS:
        for row in _rows(
            source,
            f"SELECT t.* FROM {table} t JOIN step_results r ON r.id = t.step_result_id"
            " WHERE r.run_id = ? ORDER BY t.rowid",
            (run_id,),
        ):
            step_id = remap_id(row["step_result_id"], steps, f"{what} of run {run_id}")
            sink(table, {**row, "step_result_id": step_id})


# ---- fingerprints: whether two stores hold the same run alike ----------------------------


def run_fingerprint(conn: sqlite3.Connection, run_id: int) -> str:
    """A digest of everything a store holds of one run but its row ids and where it was
    collected from: two stores holding the run alike give the same digest."""
    digest = hashlib.sha256()
    counter = iter(range(1, 2**62))

    def sink(table: str, row: Row) -> int:
        kept = {key: value for key, value in row.items() if key != "id"}
        digest.update(json.dumps([table, kept], sort_keys=True, default=repr).encode())
        return next(counter)

    run = next(_rows(conn, "SELECT * FROM runs WHERE id = ?", (run_id,)))
    device = conn.execute(
        "SELECT identity_json FROM devices WHERE id = ?", (run["device_id"],)
    ).fetchone()
    left_out = ("id", "device_id", *ORIGIN_COLUMNS)
    sink("runs", {key: value for key, value in run.items() if key not in left_out})
    sink("devices", {"identity_json": None if device is None else device[0]})
    _children(conn, run_id, 0, sink)
    return digest.hexdigest()


# ---- writing into the receiving store ----------------------------------------------------


def _inserter(dest: sqlite3.Connection) -> Sink:
    """A sink inserting rows into `dest` (the columns both stores have; ids are dest's)."""
    columns: dict[str, tuple[str, ...]] = {}

    def insert(table: str, row: Row) -> int:
        if table not in columns:
            names = [str(r[1]) for r in dest.execute(f"PRAGMA table_info({table})")]
            columns[table] = tuple(name for name in names if name != "id")
        names = [name for name in columns[table] if name in row]
        cursor = dest.execute(
            f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
            [row[name] for name in names],
        )
        return int(cursor.lastrowid or 0)

    return insert


def _sink(source: sqlite3.Connection, dest: sqlite3.Connection, origin: Origin) -> Sink:
    """Where a run's rows go in `dest`: for a collect, each row checked first (vetting)."""
    insert = _inserter(dest)
    return insert if origin.host is None else vetting_sink(source, insert)


def _dest_device(
    source: sqlite3.Connection, dest: sqlite3.Connection, device_id: object, sink: Sink
) -> Any:
    """The receiving store's id of the source's device `device_id` (added through `sink` when
    it has none with the same identity)."""
    if device_id is None:
        return None
    row = next(_rows(source, "SELECT * FROM devices WHERE id = ?", (device_id,)), None)
    if row is None:
        return None
    found = dest.execute(
        "SELECT id FROM devices WHERE identity_json = ?", (row["identity_json"],)
    ).fetchone()
    return int(found[0]) if found is not None else sink("devices", row)


def _add_run(
    source: sqlite3.Connection, dest: sqlite3.Connection, run: Row, origin: Origin
) -> None:
    sink = _sink(source, dest, origin)
    device_id = _dest_device(source, dest, run["device_id"], sink)
    new_id = sink("runs", collected_run_row(run, device_id, origin))
    _children(source, int(run["id"]), new_id, sink)


# children of a run, in the order they can be deleted (what refers to a row goes first)
_DELETES = (
    "DELETE FROM series WHERE step_result_id IN (SELECT id FROM step_results WHERE run_id = ?)",
    "DELETE FROM step_histograms"
    " WHERE step_result_id IN (SELECT id FROM step_results WHERE run_id = ?)",
    "DELETE FROM step_temperatures"
    " WHERE step_result_id IN (SELECT id FROM step_results WHERE run_id = ?)",
    "DELETE FROM step_results WHERE run_id = ?",
    "DELETE FROM capture_files WHERE capture_id IN (SELECT id FROM captures WHERE run_id = ?)",
    "DELETE FROM health_samples WHERE run_id = ?",
    "DELETE FROM findings WHERE run_id = ?",
    "DELETE FROM test_files WHERE run_id = ?",
    "DELETE FROM captures WHERE run_id = ?",
)


def _replace_run(
    source: sqlite3.Connection, dest: sqlite3.Connection, run: Row, dest_id: int, origin: Origin
) -> None:
    """Bring a run the receiving store has as running up to the source's: its row updated in
    place (its id kept), its rows replaced."""
    for statement in _DELETES:
        dest.execute(statement, (dest_id,))
    sink = _sink(source, dest, origin)
    device_id = _dest_device(source, dest, run["device_id"], sink)
    values = collected_run_row(run, device_id, origin)
    names = [name for name in values if name != "id"]
    dest.execute(
        f"UPDATE runs SET {', '.join(f'{name} = ?' for name in names)} WHERE id = ?",
        [*(values[name] for name in names), dest_id],
    )
    _children(source, int(run["id"]), dest_id, sink)


def _copy_dictionaries(
    source: sqlite3.Connection, dest: sqlite3.Connection, origin: Origin
) -> None:
    """The dictionaries the run's raw outputs may refer to; for a collect, one that fails its
    check refuses the run (its outputs could not be trusted to read back)."""
    try:
        copy_dictionaries(source, dest)
    except StoreError as error:
        if origin.host is None or isinstance(error, StoreWriteError):
            raise
        raise RunRefused(str(error)) from None


def held_elsewhere(there: tuple[Any, ...], origin: Origin) -> str | None:
    """Why a collect may not touch the receiving store's run `there` (its host and collection
    time): it was made on this machine, or collected from another host (None: it may)."""
    if origin.host is None:
        return None
    host, collected_at_s = there[0], there[1]
    if collected_at_s is None:
        return "its UUID is that of a run made on this machine, which a collect never changes"
    if host != origin.host:
        return f"its UUID is that of a run collected from {brief(host)}, not from this host"
    return None


def _copy_run(
    source: sqlite3.Connection, dest: sqlite3.Connection, run: Row, origin: Origin
) -> str:
    """Copy one run inside the open transaction of `dest`: 'added', 'updated' or 'skipped'; a
    run a collect may not take raises `RunRefused` (the caller rolls back what it wrote)."""
    if origin.host is not None:
        check_row(source, "runs", run)
    there = dest.execute(
        "SELECT id, status, host, collected_at_s FROM runs WHERE uuid = ?", (run["uuid"],)
    ).fetchone()
    if there is not None and (why := held_elsewhere(tuple(there[2:]), origin)) is not None:
        raise RunRefused(why)
    if there is None:
        _copy_dictionaries(source, dest, origin)
        _add_run(source, dest, run, origin)
        return "added"
    dest_id = int(there[0])
    if there[1] != "running":
        return "skipped"
    if run_fingerprint(source, int(run["id"])) == run_fingerprint(dest, dest_id):
        return "skipped"
    _copy_dictionaries(source, dest, origin)
    _replace_run(source, dest, run, dest_id, origin)
    return "updated"


@contextmanager
def _savepoint(dest: sqlite3.Connection) -> Iterator[None]:
    """One run's rows inside the batch's transaction: rolled back alone when it fails."""
    dest.execute("SAVEPOINT run")
    try:
        yield
    except BaseException:
        if dest.in_transaction:  # SQLite rolls back all by itself after some errors
            with suppress(sqlite3.Error):  # the error that got here is the one to report
                dest.execute("ROLLBACK TO run")
                dest.execute("RELEASE run")
        raise
    dest.execute("RELEASE run")


def copy_runs(
    source: sqlite3.Connection,
    dest: sqlite3.Connection,
    *,
    host: str | None,
    finished_uuids: Collection[str] = (),
    collected_at_s: float | None,
) -> MergeResult:
    """Copy every run of `source` into `dest`, in batches of runs, one transaction of `dest`
    each (each run rolled back alone when it fails; see the module's docstring). A run whose
    UUID is in `finished_uuids`, or which `dest` holds as finished, is skipped; one `dest`
    holds as running (collected while it ran) is replaced in place when the source's differs;
    any other is added. With `host` (a collect) the copies are collected runs: host `host`,
    node host the source's host, collected at `collected_at_s` (now when None). The source is
    read in one read transaction, so a store being written meanwhile gives whole runs."""
    origin = Origin(host, None)
    if host is not None:
        origin = Origin(host, time.time() if collected_at_s is None else collected_at_s)
    finished = frozenset(finished_uuids)
    outcome: dict[str, list[str]] = {"added": [], "updated": [], "skipped": [], "refused": []}
    began = not source.in_transaction
    if began:
        source.execute("BEGIN")
    try:
        runs = list(_rows(source, "SELECT * FROM runs ORDER BY id", ()))
        while runs:
            with transaction(dest):
                runs = _copy_batch(source, dest, runs, origin, finished, outcome)
    finally:
        if began and source.in_transaction:
            source.execute("COMMIT")
    return MergeResult(
        tuple(outcome["added"]),
        tuple(outcome["updated"]),
        tuple(outcome["skipped"]),
        tuple(outcome["refused"]),
    )


def _copy_batch(
    source: sqlite3.Connection,
    dest: sqlite3.Connection,
    runs: list[Row],
    origin: Origin,
    finished: frozenset[str],
    outcome: dict[str, list[str]],
) -> list[Row]:
    """Copy runs from the head of `runs` inside one transaction of `dest`, until the batch is
    full (`BATCH_RUNS` runs, `BATCH_S` seconds); the runs left for the next batch."""
    began = time.monotonic()
    for at, run in enumerate(runs):
        if at >= BATCH_RUNS or (at > 0 and time.monotonic() - began >= BATCH_S):
            return runs[at:]
        done, said = _copy_or_refuse(source, dest, run, origin, finished)
        outcome[done].append(said)
    return []


def _copy_or_refuse(
    source: sqlite3.Connection,
    dest: sqlite3.Connection,
    run: Row,
    origin: Origin,
    finished: frozenset[str],
) -> tuple[str, str]:
    """What became of one run and its UUID, or 'refused' and the line saying why; only a
    collect refuses (an export of a store's own runs fails instead)."""
    name = f"run {int(run['id'])} of its store"
    try:
        uuid = str(run["uuid"]) if origin.host is None else checked_uuid(run["uuid"])
        name = f"run {uuid}"
        if uuid in finished:
            return "skipped", uuid
        with _savepoint(dest):
            return _copy_run(source, dest, run, origin), uuid
    except RunRefused as refused:
        if origin.host is None:
            raise
        return "refused", f"{name}: {refused}"
    except sqlite3.IntegrityError as error:
        if origin.host is None:
            raise
        return "refused", f"{name}: it breaks a rule of the store ({error})"


def finished_run_uuids(conn: sqlite3.Connection, host: str | None = None) -> frozenset[str]:
    """The UUIDs of the runs a store holds as finished (of one host when given): what a
    collect tells a node it need not send again."""
    sql = "SELECT uuid FROM runs WHERE status != 'running'"
    params: tuple[object, ...] = ()
    if host is not None:
        sql += " AND host = ?"
        params = (host,)
    return frozenset(str(row[0]) for row in conn.execute(sql, params))


def export_runs(
    source_path: Path, out_path: Path, *, finished_uuids: Collection[str]
) -> MergeResult:
    """Write a new store at `out_path` holding the runs of the store at `source_path` but
    those in `finished_uuids` (what a node sends to the central machine). The source is only
    read (a run may be writing it meanwhile: WAL lets both go on); the new store is left as
    one self-contained file (no write-ahead log beside it), ready to be streamed."""
    if out_path.exists() and out_path.stat().st_size > 0:
        raise StoreError(f"{out_path} already exists; an export is written to a new file")
    if out_path.exists() and source_path.exists() and out_path.samefile(source_path):
        raise StoreError(f"{out_path} is the store being exported")
    source = open_store(source_path)
    try:
        out = open_store(out_path)
        try:
            out.execute("PRAGMA synchronous = OFF")  # a new file, read only once complete
            result = copy_runs(
                source, out, host=None, finished_uuids=finished_uuids, collected_at_s=None
            )
            out.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            out.execute("PRAGMA journal_mode = DELETE")
        finally:
            out.close()
    finally:
        source.close()
    return result
