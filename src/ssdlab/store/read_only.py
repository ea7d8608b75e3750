"""Reading a store that cannot be written: its file system full or read-only, or its folder
not writable by this user.

SQLite writes even to read a store in WAL mode: it creates the `-shm` index beside the store
and grows it, and the last connection to close checkpoints the `-wal` file into the store. When
that cannot be done the store is opened read-only instead: through the writer's `-shm` when it
is there and usable (locked as usual, so a live writer is seen consistently), else without
locks and without `-shm` (SQLite's unix-none VFS in exclusive locking mode keeps the WAL index
in memory): the `-wal` file is still read, so nothing stored is missing, and nothing is written.
"""

import sqlite3
from pathlib import Path
from urllib.parse import quote

from ssdlab.errors import StoreError
from ssdlab.model.run import RunRecord
from ssdlab.store.db import SCHEMA_VERSION, check_version, store_failure, why_unwritable
from ssdlab.store.run_rows import load_run


def _connect(path: Path, options: str, *, exclusive: bool = False) -> sqlite3.Connection:
    conn = sqlite3.connect(
        f"file:{quote(str(path))}?{options}", uri=True, timeout=30, isolation_level=None
    )
    try:
        if exclusive:  # before the first read: the WAL index is then kept in memory
            conn.execute("PRAGMA locking_mode = EXCLUSIVE").fetchone()
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA query_only = ON")
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # it really reads
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def _connect_read_only(path: Path) -> sqlite3.Connection:
    if Path(f"{path}-shm").exists():  # a writer's index: read alongside it, with its locks
        try:
            return _connect(path, "mode=ro")
        except sqlite3.Error:
            pass  # too small to grow, or left half-made: read without it
    return _connect(path, "mode=ro&vfs=unix-none", exclusive=True)


def open_read_only(path: Path) -> sqlite3.Connection:
    """The store at `path` for reading only (see the module). StoreError when it cannot be
    read either, or when it is older than this ssdlab (bringing it up to date writes)."""
    try:
        conn = _connect_read_only(path)
    except sqlite3.Error as error:
        raise store_failure(path, error) from error
    try:
        version = check_version(conn, path)
    except sqlite3.Error as error:
        conn.close()
        raise store_failure(path, error) from error
    except StoreError:
        conn.close()
        raise
    if version < SCHEMA_VERSION:
        conn.close()
        reason = why_unwritable(path) or "it cannot be written"
        raise StoreError(
            f"the run store {path} is from an older ssdlab and must be brought up to date, "
            f"which writes to it, but {reason}; or copy it elsewhere and use the copy with "
            "--db PATH"
        )
    return conn


def runs_marked_running(conn: sqlite3.Connection) -> list[RunRecord]:
    """The runs the store says are running (collected ones aside: their process is on a
    fleet's node): a reader that cannot mark the dead ones says which they are."""
    rows = conn.execute(
        "SELECT id FROM runs WHERE status = 'running' AND collected_at_s IS NULL ORDER BY id"
    ).fetchall()
    found = (load_run(conn, int(row[0])) for row in rows)
    return [run for run in found if run is not None]
