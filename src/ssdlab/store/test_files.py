"""The test files ssdlab created: where, when, and the device, inode and marker that make a
file ssdlab's (never its name); marked when removed."""

import dataclasses
import sqlite3

from ssdlab.model.run import RunStatus
from ssdlab.model.target import FileIdentity
from ssdlab.store.transaction import transaction


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
