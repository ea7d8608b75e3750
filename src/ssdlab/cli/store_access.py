"""Opening the store from the command line: --db, dead-run recovery, run ids."""

import argparse
import sqlite3
from pathlib import Path

from ssdlab.errors import UsageError
from ssdlab.model.health import HealthSample
from ssdlab.store.db import default_db_path, open_store
from ssdlab.store.health import load_health_samples
from ssdlab.store.runs import latest_run_id, mark_dead_runs
from ssdlab.system.environment import run_process_alive


def db_path(args: argparse.Namespace) -> Path:
    return Path(args.db).expanduser().absolute() if getattr(args, "db", None) else default_db_path()


def open_db(args: argparse.Namespace) -> sqlite3.Connection:
    """Open the store and mark runs whose process died (kill -9, power cut) as interrupted."""
    conn = open_store(db_path(args))
    mark_dead_runs(conn, run_process_alive)
    return conn


def run_id_arg(conn: sqlite3.Connection, text: str) -> int:
    if text in ("last", "latest"):
        found = latest_run_id(conn)
        if found is None:
            raise UsageError("the store has no runs yet; start one with 'ssdlab quick'")
        return found
    try:
        return int(text)
    except ValueError:
        raise UsageError(
            f"{text!r} is not a run id; use a number from 'ssdlab runs' or 'last'"
        ) from None


def run_health(conn: sqlite3.Connection, run_id: int) -> list[tuple[str, HealthSample]]:
    """The health samples taken around a run, as (phase, sample)."""
    return [(s.phase, s.sample) for s in load_health_samples(conn, run_id=run_id)]
