"""The store a command uses: `--db PATH`, else the default store (cli/store_open.py imports
little: `ssdlab runs` starts with it alone). Opened once per command (app/run_store.py).

The commands that only read the store (READING) still read it when it cannot be written
(app/run_store.open_store_to_read); runs whose ssdlab died then stay marked running, which one
line on stderr says. A command that writes is told in one line that the store cannot be
written, and why."""

import argparse
import sqlite3
import sys
from pathlib import Path

from ssdlab.app.run_store import open_run_store, open_store_to_read
from ssdlab.errors import StoreError
from ssdlab.store.db import cannot_write, default_db_path, store_failure, why_unwritable

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


def _open_to_read(path: Path) -> sqlite3.Connection:
    opened = open_store_to_read(path)
    if opened.unmarked:
        _say_what_is_left_out(path, opened.unmarked)
    return opened.conn


def _say_what_is_left_out(path: Path, dead: tuple[int, ...]) -> None:
    """One line on stderr when a store read without writing shows runs as running whose
    ssdlab has ended (they are marked interrupted once the store can be written)."""
    runs = ", ".join(str(run_id) for run_id in dead)
    which = f"run {runs} is" if len(dead) == 1 else f"runs {runs} are"
    whose = "its" if len(dead) == 1 else "their"
    reason = why_unwritable(path) or "it cannot be written"
    print(
        f"ssdlab: {which} shown as running, but {whose} ssdlab has ended: {path} was only read "
        f"({reason}), so {'it is' if len(dead) == 1 else 'they are'} not marked interrupted",
        file=sys.stderr,
    )
