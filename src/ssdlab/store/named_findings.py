"""Findings of one name across every run of the store (a name's history: the baselines)."""

import sqlite3
from typing import Any

from ssdlab.store.codec import FINDING_BODY, loads_blob


def load_named_findings(conn: sqlite3.Connection, name: str) -> list[tuple[int, dict[str, Any]]]:
    """(run id, body) of every stored finding called `name`, oldest run first."""
    rows = conn.execute(
        "SELECT run_id, body_json FROM findings WHERE name = ? ORDER BY run_id, id", (name,)
    ).fetchall()
    return [
        (int(run_id), loads_blob(body, FINDING_BODY, f"run {run_id}'s finding {name}"))
        for run_id, body in rows
    ]
