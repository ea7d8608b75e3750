"""Spec sheets the user added, kept as the TOML text they wrote (parsed when read)."""

import sqlite3
from dataclasses import dataclass

from ssdlab.store.transaction import transaction


@dataclass(frozen=True, slots=True)
class StoredSpecSheet:
    key: str
    toml_text: str
    origin: str  # the file it was added from
    added_at_s: float


def put_spec_sheet(conn: sqlite3.Connection, sheet: StoredSpecSheet) -> bool:
    """Add or replace the sheet with this key; True when it replaced one."""
    with transaction(conn):
        replaced = (
            conn.execute("SELECT 1 FROM spec_sheets WHERE key = ?", (sheet.key,)).fetchone()
            is not None
        )
        conn.execute(
            "INSERT OR REPLACE INTO spec_sheets (key, toml_text, origin, added_at_s)"
            " VALUES (?, ?, ?, ?)",
            (sheet.key, sheet.toml_text, sheet.origin, sheet.added_at_s),
        )
    return replaced


def load_spec_sheets(conn: sqlite3.Connection) -> list[StoredSpecSheet]:
    rows = conn.execute(
        "SELECT key, toml_text, origin, added_at_s FROM spec_sheets ORDER BY key"
    ).fetchall()
    return [StoredSpecSheet(str(r[0]), str(r[1]), str(r[2]), float(r[3])) for r in rows]
