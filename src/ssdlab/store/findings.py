"""Findings of a run: analysis verdicts with their criteria, and facts about the target."""

import sqlite3
from dataclasses import dataclass
from typing import Any

from ssdlab.store.codec import FINDING_BODY, loads_blob, to_blob
from ssdlab.store.transaction import transaction


@dataclass(frozen=True, slots=True)
class Finding:
    name: str  # e.g. cache-cliff, alignment, sweep-knee, target-facts
    kind: str  # verdict | facts
    body: dict[str, Any]


def add_finding(
    conn: sqlite3.Connection, run_id: int, name: str, kind: str, body: object, at_s: float
) -> None:
    """Store (or replace, when re-analysed) one finding of a run; `body` is a dataclass or dict."""
    with transaction(conn):
        conn.execute(
            "INSERT INTO findings (run_id, name, kind, body_json, created_at_s)"
            " VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (run_id, name) DO UPDATE SET kind = excluded.kind,"
            " body_json = excluded.body_json, created_at_s = excluded.created_at_s",
            (run_id, name, kind, to_blob(body, FINDING_BODY), at_s),
        )


def load_findings(conn: sqlite3.Connection, run_id: int) -> list[Finding]:
    rows = conn.execute(
        "SELECT name, kind, body_json FROM findings WHERE run_id = ? ORDER BY id", (run_id,)
    ).fetchall()
    return [
        Finding(name, kind, loads_blob(body, FINDING_BODY, f"run {run_id}'s finding {name}"))
        for name, kind, body in ((str(r[0]), str(r[1]), r[2]) for r in rows)
    ]
