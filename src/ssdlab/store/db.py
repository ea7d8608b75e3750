"""Open the SQLite store: WAL, foreign keys, numbered migrations in PRAGMA user_version."""

import os
import re
import sqlite3
import time
from importlib import resources
from pathlib import Path

from ssdlab.errors import SchemaTooNew, StoreError


def default_db_path() -> Path:
    """$XDG_DATA_HOME/ssdlab/ssdlab.db (~/.local/share/ssdlab/ssdlab.db when unset)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "ssdlab" / "ssdlab.db"


def migrations() -> list[tuple[int, str]]:
    """(version, SQL) of every migration shipped, in order."""
    folder = resources.files("ssdlab.store").joinpath("migrations")
    found = []
    for entry in folder.iterdir():
        if entry.name.endswith(".sql"):
            found.append((int(entry.name.split("_", 1)[0]), entry.read_text(encoding="utf-8")))
    return sorted(found)


SCHEMA_VERSION = max(version for version, _ in migrations())


SQLITE_CORRUPT = 11  # the file is a database, but its pages contradict each other
SQLITE_NOTADB = 26  # the file does not start like a database
SQLITE_BUSY = 5  # another connection held the lock past the busy timeout
# what SQLite answers when it cannot write: no permission, a read-only file, an I/O error (the
# -shm index cannot grow on a full file system), a full disk, a -shm or -wal it cannot create
SQLITE_PERM = 3
SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_FULL = 13
SQLITE_CANTOPEN = 14
CANNOT_WRITE = frozenset({SQLITE_PERM, SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN})
FULL_BELOW_BYTES = 1 << 20  # less room than this is a full file system for a store


def primary_code(error: sqlite3.Error) -> int | None:
    """SQLite's primary result code of an error (the low byte of the extended one)."""
    code = getattr(error, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def cannot_write(error: BaseException) -> bool:
    """Whether an SQLite error (or the one under a StoreError) came from writing being
    impossible where the store is, not from the store itself."""
    cause = error if isinstance(error, sqlite3.Error) else error.__cause__
    return isinstance(cause, sqlite3.Error) and primary_code(cause) in CANNOT_WRITE


def why_unwritable(path: Path) -> str | None:
    """Why nothing can be written where the store `path` is, as the file system says it, with
    what to do ('its file system (/mnt) is full: make room there'); None when it could be."""
    folder = path.parent
    try:
        info = os.statvfs(folder)
    except OSError:
        return None
    if info.f_flag & os.ST_RDONLY:
        return f"its file system ({folder}) is read-only: mount it writable"
    if info.f_bavail * info.f_frsize < FULL_BELOW_BYTES:
        return f"its file system ({folder}) is full: make room there"
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return f"this user may not write in {folder}: run as a user who may"
    return None


def is_damage(error: sqlite3.Error) -> bool:
    """Whether SQLite found the store's file damaged (flipped bytes, a torn page, not a DB)."""
    code = primary_code(error)
    if code is not None:
        return code in (SQLITE_CORRUPT, SQLITE_NOTADB)
    return "malformed" in str(error) or "not a database" in str(error)


_UNDECODABLE = re.compile(r"Could not decode to UTF-8 column '([^']*)'")


def store_failure(path: Path, error: sqlite3.Error) -> StoreError:
    """The one-line error for a store SQLite could not read; a damaged file says how to get
    back what it still holds."""
    unwritable = why_unwritable(path) if cannot_write(error) else None
    if unwritable is not None:
        return StoreError(
            f"the run store {path} cannot be written ({error}): {unwritable}, or choose "
            "another store with --db PATH; reading it (runs, show, export, report) still works"
        )
    if primary_code(error) == SQLITE_NOTADB or "not a database" in str(error):
        return StoreError(
            f"the run store {path} is not an SQLite database ({error}); if it was your ssdlab "
            "store its first page is damaged: restore it from a backup; otherwise choose "
            "another store with --db PATH"
        )
    undecodable = _UNDECODABLE.search(str(error))
    if undecodable is not None:
        return StoreError(
            f"the run store {path} holds text that is not UTF-8 (in column "
            f"{undecodable.group(1)}): a row was changed outside ssdlab or damaged; restore the "
            "store from a backup, or use another with --db PATH"
        )
    if is_damage(error):
        return StoreError(
            f"the run store {path} is damaged ({error}); restore it from a backup, or copy "
            f"what is still readable into a new store with 'sqlite3 {path} .recover | sqlite3 "
            f"{path}.recovered' (an sqlite3 shell without .recover: .dump) and use that with "
            f"--db {path}.recovered"
        )
    return StoreError(
        f"cannot use the run store {path}: {error}; check that the file is an ssdlab store "
        "and its folder is writable, or choose another with --db PATH"
    )


def open_store(path: Path) -> sqlite3.Connection:
    """Open (creating and migrating as needed) the store at `path`. Any number of processes
    may open a new store at once: one creates the schema, the others find it made."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    except (OSError, sqlite3.Error) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise StoreError(
            f"cannot open the run store {path}: {reason}; choose another place with --db PATH"
        ) from error
    try:
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA busy_timeout = 30000")
        check_version(conn, path)
        _use_wal(conn)
        if conn.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            _migrate(conn, path)
    except sqlite3.Error as error:
        conn.close()
        raise store_failure(path, error) from error
    except SchemaTooNew:
        conn.close()
        raise
    return conn


def check_version(conn: sqlite3.Connection, path: Path) -> int:
    """The store's schema version; SchemaTooNew when this ssdlab is older than the store."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise SchemaTooNew(
            f"the run store {path} has schema version {version}, but this ssdlab knows only "
            f"up to {SCHEMA_VERSION}; upgrade ssdlab, or use another store with --db PATH"
        )
    return version


WAL_ATTEMPTS = 300


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL (a no-op when it is already). The switch needs the file to itself and
    SQLite may answer "locked" at once instead of waiting while another process opens the same
    new store, so it is tried again until that process is done."""
    for attempt in range(WAL_ATTEMPTS):
        try:
            conn.execute("PRAGMA journal_mode = WAL").fetchone()
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or attempt == WAL_ATTEMPTS - 1:
                raise
            time.sleep(0.01 + 0.001 * attempt)


def _migrate(conn: sqlite3.Connection, path: Path) -> None:
    """Bring the schema up to date in one write transaction. The version is read again once
    the write lock is held: another process may have migrated while this one waited for it."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        current = check_version(conn, path)
        for version, sql in migrations():
            if version <= current:
                continue
            for statement in sql.split(";\n"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version:d}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
