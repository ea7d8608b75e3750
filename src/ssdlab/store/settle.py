"""The store's files made durable at once: what a run calls before a pass when the store
shares the target's device, so that no write of the store (a commit's pages, SQLite's
shared-memory index mapped from its `-shm` file) is left for the kernel to write back while
fio measures that device."""

import os
import sqlite3
from pathlib import Path

SIDE_FILES = ("", "-wal", "-shm")


def database_file(conn: sqlite3.Connection) -> Path:
    """The file behind a connection's main database."""
    row = conn.execute("PRAGMA database_list").fetchone()
    return Path(str(row[2]))


def settle_store(conn: sqlite3.Connection) -> None:
    """fsync the database and the files SQLite keeps beside it (each opened read-only: fsync
    writes a file's dirty pages whoever made them dirty); a file that is not there is skipped."""
    base = database_file(conn)
    for suffix in SIDE_FILES:
        path = Path(f"{base}{suffix}")
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
