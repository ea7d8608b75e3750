"""Opening the store from the command line (--db) with dead-run recovery, importing little:
`ssdlab runs` starts with it alone (cli/store_access.py holds the rest and re-exports these)."""

import argparse
import sqlite3
from pathlib import Path

from ssdlab.model.run import RunRecord
from ssdlab.store.db import default_db_path, open_store
from ssdlab.store.lifecycle import mark_dead_runs
from ssdlab.system.write_gate import check_store_path


def db_path(args: argparse.Namespace) -> Path:
    return Path(args.db).expanduser().absolute() if getattr(args, "db", None) else default_db_path()


def _process_alive(run: RunRecord) -> bool:
    # imported only when the store holds a run marked running: the process checks bring in
    # the health readers, which a listing does not need
    from ssdlab.system.environment import run_process_alive

    return run_process_alive(run)


def open_db(args: argparse.Namespace) -> sqlite3.Connection:
    """Open the store and mark runs whose process died (kill -9, power cut) as interrupted."""
    path = db_path(args)
    check_store_path(path)
    conn = open_store(path)
    mark_dead_runs(conn, _process_alive)
    return conn
