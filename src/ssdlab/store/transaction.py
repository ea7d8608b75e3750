"""One transaction per unit of work: BEGIN IMMEDIATE … COMMIT, rolled back on any error, and
SQLite's write errors as one StoreError that says what was kept and how to go on: with the
command that continues the run, once the caller that knows it names it (`continued_by`)."""

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from ssdlab.errors import StoreError
from ssdlab.store.db import SQLITE_BUSY, primary_code

STORE_WRITE_ADVICE = (
    "; what was stored before is intact — free space where the store is (or choose another "
    "with --db PATH) and continue with {resume}"
)
# SQLite's "database is locked": another process held the write lock past the busy timeout
STORE_BUSY_ADVICE = (
    "; another process held the store's write lock for longer than ssdlab waits (another "
    "ssdlab writing to it, or a program that keeps it open for writing); what was stored "
    "before is intact — let that finish (or choose another store with --db PATH) and continue "
    "with {resume}"
)
ANY_RESUME = "'ssdlab resume RUN'"  # the command, when the run is not known where it failed


def _advice(error: sqlite3.Error) -> str:
    """How to go on: a store that was busy is not a store that is full."""
    busy = primary_code(error) == SQLITE_BUSY or "database is locked" in str(error)
    return STORE_BUSY_ADVICE if busy else STORE_WRITE_ADVICE


class StoreWriteError(StoreError):
    """A write the store refused (a full disk, a read-only file), saying how to go on."""

    def __init__(self, error: sqlite3.Error, resume: str = ANY_RESUME) -> None:
        super().__init__(
            f"cannot write to the run store: {error}" + _advice(error).format(resume=resume)
        )
        self.error = error

    def continued_by(self, resume: str) -> "StoreWriteError":
        """The same error, naming `resume` ('ssdlab resume 7 --db …') as the command to run
        once there is room."""
        again = StoreWriteError(self.error, resume)
        again.__cause__ = self.__cause__
        return again


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back what is open; SQLite has already rolled back after some errors (a full disk)."""
    if conn.in_transaction:
        with suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


def _store_error(error: sqlite3.Error) -> StoreError:
    return StoreWriteError(error)


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
