"""The store a command uses: `--db PATH`, else the default store (cli/store_open.py imports
little: `ssdlab runs` starts with it alone). Opened once per command (app/run_store.py).

The commands that only read the store (READING) still read it when it cannot be written (a
full or read-only file system, a folder this user may not write): it is opened read-only
(store/read_only.py), and runs whose ssdlab died stay marked running, which one line on stderr
says. A command that writes is told in one line that the store cannot be written, and why."""

import argparse
import sqlite3
import sys
from pathlib import Path

from ssdlab.app.run_store import open_run_store
from ssdlab.errors import StoreError
from ssdlab.model.run import RunRecord
from ssdlab.store.db import (
    cannot_write,
    default_db_path,
    open_store,
    store_failure,
    why_unwritable,
)
from ssdlab.store.lifecycle import mark_dead_runs
from ssdlab.store.read_only import open_read_only, runs_marked_running
from ssdlab.system.write_gate import check_store_path

# commands that never write the store (`report -o`, `export -o` and `card` write elsewhere)
READING = frozenset({"runs", "show", "export", "report", "compare", "metrics", "status", "card"})


def db_path(args: argparse.Namespace) -> Path:
    return Path(args.db).expanduser().absolute() if getattr(args, "db", None) else default_db_path()


def open_db(args: argparse.Namespace) -> sqlite3.Connection:
    """Open the store `--db` names and mark runs whose process died as interrupted; a reading
    command reads a store that cannot be written, saying what it leaves out."""
    path = db_path(args)
    if getattr(args, "command", None) in READING:
        return _open_to_read(path)
    try:
        return open_run_store(path)
    except StoreError as error:  # opened, but a dead run could not be marked: nothing writes
        if isinstance(error.__cause__, sqlite3.Error) and cannot_write(error):
            raise store_failure(path, error.__cause__) from error
        raise


def _process_alive(run: RunRecord) -> bool:
    # imported only when the store holds a run marked running: the process checks bring in
    # the health readers, which a listing does not need
    from ssdlab.system.environment import run_process_alive

    return run_process_alive(run)


def _open_to_read(path: Path) -> sqlite3.Connection:
    check_store_path(path)
    try:
        conn = open_store(path)
    except StoreError as error:
        if not cannot_write(error):
            raise
        conn = open_read_only(path)
        _say_what_is_left_out(path, conn)
        return conn
    try:
        mark_dead_runs(conn, _process_alive)
    except StoreError as error:  # opened, but a dead run cannot be marked: the disk is full
        if not cannot_write(error):
            raise
        _say_what_is_left_out(path, conn)
    return conn


def _say_what_is_left_out(path: Path, conn: sqlite3.Connection) -> None:
    """One line on stderr when a store read without writing shows runs as running whose
    ssdlab has ended (they are marked interrupted once the store can be written)."""
    dead = [run.run_id for run in runs_marked_running(conn) if not _process_alive(run)]
    if not dead:
        return
    runs = ", ".join(str(run_id) for run_id in dead)
    which = f"run {runs} is" if len(dead) == 1 else f"runs {runs} are"
    whose = "its" if len(dead) == 1 else "their"
    reason = why_unwritable(path) or "it cannot be written"
    print(
        f"ssdlab: {which} shown as running, but {whose} ssdlab has ended: {path} was only read "
        f"({reason}), so {'it is' if len(dead) == 1 else 'they are'} not marked interrupted",
        file=sys.stderr,
    )
