"""`ssdlab store compact` on the application floor: a VACUUM that cannot run says what was done
and the command to run again, on the store it was given."""

import contextlib
import io
import shlex
import sqlite3
from pathlib import Path

import pytest

from ssdlab.app.run_store import open_run_store
from ssdlab.app.store_compact import CompactRequest, compact_store
from ssdlab.cli.main import main
from ssdlab.errors import StoreError


def _deny_checkpoints(action: int, arg1: str | None, *_: object) -> int:
    held = action == sqlite3.SQLITE_PRAGMA and arg1 == "wal_checkpoint"
    return sqlite3.SQLITE_DENY if held else sqlite3.SQLITE_OK


def test_a_vacuum_that_cannot_run_names_the_command_to_run_again(tmp_path: Path) -> None:
    database = tmp_path / "lab store" / "s.db"
    database.parent.mkdir()
    conn = open_run_store(database)
    conn.set_authorizer(_deny_checkpoints)  # as when another process holds the store
    with pytest.raises(StoreError, match="VACUUM could not run") as refused:
        compact_store(conn, CompactRequest(database))
    conn.close()
    hint = str(refused.value).split("; run ", 1)[1].split(" again when", 1)[0]
    words = shlex.split(hint[1:-1])  # inside the quotes that set it off
    assert words == ["ssdlab", "store", "compact", "--db", str(database)]
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert main(words[1:]) == 0
    assert "compressed 0 raw outputs" in printed.getvalue()
