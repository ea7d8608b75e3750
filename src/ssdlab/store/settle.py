"""The store's files made durable at once: what a run calls before a pass when the store
shares the target's device, so that no write of the store (a commit's pages, SQLite's
shared-memory index mapped from its `-shm` file) is left for the kernel to write back while
fio measures that device.

The files are synced through the descriptors SQLite itself holds (found in /proc/self/fd),
never through new ones: closing another descriptor of a file would drop every POSIX lock this
process holds on it, SQLite's included."""

import os
import sqlite3
from pathlib import Path

SIDE_FILES = ("", "-wal", "-shm")
PROC_FD = Path("/proc/self/fd")


def database_file(conn: sqlite3.Connection) -> Path:
    """The file behind a connection's main database."""
    row = conn.execute("PRAGMA database_list").fetchone()
    return Path(str(row[2]))


def store_descriptors(database: Path, proc_fd: Path = PROC_FD) -> tuple[int, ...]:
    """The descriptors this process holds open on the database and the files beside it."""
    base = os.path.realpath(database)
    wanted = {base + suffix for suffix in SIDE_FILES}
    found = []
    try:
        entries = os.listdir(proc_fd)
    except OSError:
        return ()
    for entry in entries:
        try:
            if os.readlink(proc_fd / entry) in wanted:
                found.append(int(entry))
        except (OSError, ValueError):
            continue  # closed meanwhile (the listing's own descriptor), or not a number
    return tuple(sorted(found))


def settle_store(conn: sqlite3.Connection) -> None:
    """fsync the database and the files SQLite keeps beside it, through SQLite's own open
    descriptors (a file it does not hold open has nothing of this process to write)."""
    for fd in store_descriptors(database_file(conn)):
        try:
            os.fsync(fd)
        except OSError:
            continue
