"""The run store as a command opens it: once per command, with the runs whose process died
(kill -9, a power cut) marked interrupted first. It imports little: `ssdlab runs` starts with
it alone.

A command that only reads the store still reads it when it cannot be written (a full or
read-only file system, a folder this user may not write): it is opened read-only
(store/read_only.py), and runs whose ssdlab died stay marked running; `StoreToRead.unmarked`
names them for the command line to say so."""

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import StoreError
from ssdlab.model.run import RunRecord
from ssdlab.store.db import cannot_write, open_store
from ssdlab.store.lifecycle import mark_dead_runs
from ssdlab.store.read_only import open_read_only, runs_marked_running
from ssdlab.system.write_gate import check_store_path


def _process_alive(run: RunRecord) -> bool:
    # imported only when the store holds a run marked running: the process checks bring in
    # the health readers, which a listing does not need
    from ssdlab.system.environment import run_process_alive

    return run_process_alive(run)


def open_run_store(path: Path) -> sqlite3.Connection:
    """Open the store at `path` (checked by the write gate, created and migrated as needed)
    and mark runs whose process died as interrupted."""
    check_store_path(path)
    conn = open_store(path)
    mark_dead_runs(conn, _process_alive)
    return conn


@dataclass(frozen=True)
class StoreToRead:
    """A store opened for reading, and the runs shown as running whose ssdlab has ended but
    that could not be marked interrupted because the store cannot be written."""

    conn: sqlite3.Connection
    unmarked: tuple[int, ...] = ()


def open_store_to_read(path: Path) -> StoreToRead:
    """Open the store at `path` for a command that only reads it: as `open_run_store`, or
    read-only when it cannot be written."""
    check_store_path(path)
    try:
        conn = open_store(path)
    except StoreError as error:
        if not cannot_write(error):
            raise
        conn = open_read_only(path)
        return StoreToRead(conn, _unmarked(conn))
    try:
        mark_dead_runs(conn, _process_alive)
    except StoreError as error:  # opened, but a dead run cannot be marked: the disk is full
        if not cannot_write(error):
            raise
        return StoreToRead(conn, _unmarked(conn))
    return StoreToRead(conn)


def _unmarked(conn: sqlite3.Connection) -> tuple[int, ...]:
    return tuple(run.run_id for run in runs_marked_running(conn) if not _process_alive(run))
