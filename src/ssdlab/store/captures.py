"""The raw evidence of a run: every tool invocation stored verbatim (and the files it wrote)
before anything parses it, read back byte for byte."""

import json
import sqlite3

from ssdlab.model.run import Capture
from ssdlab.store.raw import FILE_PACK_MIN_BYTES, dictionary_source, pack_raw, unpack_raw
from ssdlab.store.transaction import transaction


def add_capture(
    conn: sqlite3.Connection, run_id: int, capture: Capture, files: dict[str, str] | None = None
) -> int:
    """Store one tool invocation verbatim (and the files it wrote), before anything parses it;
    its output, job file and files compressed (store/raw.py), read back byte for byte."""
    source = dictionary_source(capture.tool, capture.argv)
    with transaction(conn):
        cursor = conn.execute(
            "INSERT INTO captures (run_id, tool, tool_version, argv_json, input_text, exit_code,"
            " stdout, stderr, started_at_s, ended_at_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                capture.tool,
                capture.tool_version,
                json.dumps(list(capture.argv)),
                pack_raw(conn, capture.input_text),
                capture.exit_code,
                pack_raw(conn, capture.stdout, source),
                pack_raw(conn, capture.stderr),
                capture.started_at_s,
                capture.ended_at_s,
            ),
        )
        capture_id = int(cursor.lastrowid or 0)
        for name, content in sorted((files or {}).items()):
            conn.execute(
                "INSERT INTO capture_files (capture_id, name, content) VALUES (?, ?, ?)",
                (capture_id, name, pack_raw(conn, content, min_bytes=FILE_PACK_MIN_BYTES)),
            )
        return capture_id


def load_capture_inputs(conn: sqlite3.Connection, run_id: int) -> list[tuple[int, str, str]]:
    """(capture id, tool, job file text) of every capture of a run that had a job file."""
    rows = conn.execute(
        "SELECT id, tool, input_text FROM captures WHERE run_id = ? AND input_text IS NOT NULL"
        " ORDER BY id",
        (run_id,),
    ).fetchall()
    return [
        (int(r[0]), str(r[1]), unpack_raw(conn, r[2], f"the job file of capture {r[0]}"))
        for r in rows
    ]


def load_capture_stdout(conn: sqlite3.Connection, capture_id: int) -> str | None:
    """One capture's stdout as stored (None: no such capture)."""
    row = conn.execute("SELECT stdout FROM captures WHERE id = ?", (capture_id,)).fetchone()
    return None if row is None else unpack_raw(conn, row[0], f"the output of capture {capture_id}")


def capture_times(conn: sqlite3.Connection, run_id: int) -> dict[int, tuple[float, float]]:
    """capture id -> (started, ended) wall-clock times of every capture of a run."""
    rows = conn.execute(
        "SELECT id, started_at_s, ended_at_s FROM captures WHERE run_id = ?", (run_id,)
    ).fetchall()
    return {int(r[0]): (float(r[1]), float(r[2])) for r in rows}


def load_fio_outputs(conn: sqlite3.Connection, run_id: int) -> dict[int, str]:
    """fio's JSON output of every measured or prepared step of a run, by capture id."""
    rows = conn.execute(
        "SELECT c.id, c.stdout FROM captures c JOIN step_results s ON s.capture_id = c.id"
        " WHERE s.run_id = ? ORDER BY c.id",
        (run_id,),
    ).fetchall()
    return {int(r[0]): unpack_raw(conn, r[1], f"fio's output in capture {r[0]}") for r in rows}
