"""The run store as a command opens it: once per command, with the runs whose process died
(kill -9, a power cut) marked interrupted first. It imports little: `ssdlab runs` starts with
it alone."""

import sqlite3
from pathlib import Path

from ssdlab.model.run import RunRecord
from ssdlab.store.db import open_store
from ssdlab.store.lifecycle import mark_dead_runs
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
