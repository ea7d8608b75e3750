"""Open the SQLite store: WAL, foreign keys, numbered migrations in PRAGMA user_version."""

import os
import sqlite3
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


def open_store(path: Path) -> sqlite3.Connection:
    """Open (creating and migrating as needed) the store at `path`."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    except (OSError, sqlite3.Error) as error:
        raise StoreError(
            f"cannot open the run store {path}: {error}; choose another place with --db PATH"
        ) from error
    try:
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA busy_timeout = 30000")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise SchemaTooNew(
                f"the run store {path} has schema version {version}, but this ssdlab knows only "
                f"up to {SCHEMA_VERSION}; upgrade ssdlab, or use another store with --db PATH"
            )
        if version < SCHEMA_VERSION:
            conn.execute("PRAGMA journal_mode = WAL")
            _migrate(conn, version)
        else:
            conn.execute("PRAGMA journal_mode = WAL")
    except sqlite3.Error as error:
        conn.close()
        raise StoreError(
            f"cannot use the run store {path}: {error}; check that the file is an ssdlab store "
            "and its folder is writable, or choose another with --db PATH"
        ) from error
    except SchemaTooNew:
        conn.close()
        raise
    return conn


def _migrate(conn: sqlite3.Connection, current: int) -> None:
    for version, sql in migrations():
        if version <= current:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in sql.split(";\n"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {version:d}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
