"""The store a command uses: `--db PATH`, else the default store (cli/store_open.py imports
little: `ssdlab runs` starts with it alone). Opened once per command (app/run_store.py)."""

import argparse
import sqlite3
from pathlib import Path

from ssdlab.app.run_store import open_run_store
from ssdlab.store.db import default_db_path


def db_path(args: argparse.Namespace) -> Path:
    return Path(args.db).expanduser().absolute() if getattr(args, "db", None) else default_db_path()


def open_db(args: argparse.Namespace) -> sqlite3.Connection:
    """Open the store `--db` names and mark runs whose process died as interrupted."""
    return open_run_store(db_path(args))
