"""The store opened by many at once, rows that cannot be read back, damaged files."""

import multiprocessing
import sqlite3
import threading
from pathlib import Path

import pytest

from ssdlab.errors import StoreError
from ssdlab.model.run import RunKind, RunRecord
from ssdlab.store.db import SCHEMA_VERSION, is_damage, open_store, store_failure
from ssdlab.store.lifecycle import mark_dead_runs
from ssdlab.store.listing import RunListing, list_run_listings
from ssdlab.store.run_rows import UnreadableRun, list_run_rows, list_runs, load_run, running_runs_on
from tests.unit.store.test_store import new_run

OPENERS = 6
ROUNDS = 5


def _open_and_close(path: str) -> str:
    try:
        open_store(Path(path)).close()
    except Exception as error:  # reported to the test, which fails with it
        return repr(error)
    return "ok"


def _assert_store_is_whole(path: Path) -> None:
    conn = open_store(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        run_id = new_run(conn)
        assert load_run(conn, run_id) is not None
    finally:
        conn.close()


def test_processes_opening_one_new_store_at_once(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    for round_index in range(ROUNDS):
        path = tmp_path / f"r{round_index}" / "s.db"
        with context.Pool(OPENERS) as pool:
            outcomes = pool.map(_open_and_close, [str(path)] * OPENERS)
        assert outcomes == ["ok"] * OPENERS
        _assert_store_is_whole(path)


def test_threads_opening_one_new_store_at_once(tmp_path: Path) -> None:
    for round_index in range(ROUNDS):
        path = tmp_path / f"r{round_index}.db"
        barrier = threading.Barrier(OPENERS)
        outcomes: list[str] = []

        def opener(
            path: Path = path, barrier: threading.Barrier = barrier, out: list[str] = outcomes
        ) -> None:
            barrier.wait()
            out.append(_open_and_close(str(path)))

        threads = [threading.Thread(target=opener) for _ in range(OPENERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert outcomes == ["ok"] * OPENERS
        _assert_store_is_whole(path)


def test_a_store_migrated_meanwhile_is_not_migrated_again(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    open_store(path).close()
    conn = open_store(path)  # finds the schema made: nothing to do, nothing fails
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


# --- rows that cannot be read back ---------------------------------------------------------


@pytest.fixture
def conn(tmp_path: Path) -> sqlite3.Connection:
    return open_store(tmp_path / "s.db")


def _break(conn: sqlite3.Connection, run_id: int, column: str, value_sql: str) -> None:
    conn.execute("PRAGMA ignore_check_constraints = ON")
    conn.execute(f"UPDATE runs SET {column} = {value_sql} WHERE id = ?", (run_id,))
    conn.execute("PRAGMA ignore_check_constraints = OFF")


@pytest.mark.parametrize(
    ("column", "value_sql", "problem"),
    [
        ("target_path", "CAST(X'2FFF' AS TEXT)", "column target_path is not UTF-8 text"),
        ("host", "CAST(X'C328' AS TEXT)", "column host is not UTF-8 text"),
        ("settings_json", "'{'", "column settings_json is not valid JSON"),
        ("environment_json", "'null'", "column environment_json holds JSON NoneType"),
        ("status", "'gone'", "column status holds 'gone', not a run status"),
        ("kind", "'teleport'", "column kind holds 'teleport', a kind of run this ssdlab does"),
        ("target_kind", "'cloud'", "column target_kind holds 'cloud', a kind of target this"),
    ],
)
def test_one_bad_row_is_marked_and_the_others_read(
    conn: sqlite3.Connection, column: str, value_sql: str, problem: str
) -> None:
    ids = [new_run(conn) for _ in range(3)]
    _break(conn, ids[1], column, value_sql)
    listed = list_run_rows(conn)
    assert [r.run_id for r in listed] == ids[::-1]
    bad = listed[1]
    assert isinstance(bad, UnreadableRun)
    assert bad.problem.startswith(problem)
    assert all(isinstance(r, RunRecord) for r in (listed[0], listed[2]))
    assert [r.run_id for r in list_runs(conn)] == [ids[2], ids[0]]
    assert [r.run_id for r in list_run_rows(conn, limit=2)] == [ids[2], ids[1]]
    with pytest.raises(StoreError, match=f"run {ids[1]} in the run store is unreadable"):
        load_run(conn, ids[1])
    loaded = load_run(conn, ids[0])
    assert loaded is not None
    assert loaded.run_id == ids[0]


@pytest.mark.parametrize(
    ("column", "value"), [("kind", "teleport"), ("target_kind", "cloud"), ("status", "gone")]
)
def test_a_listing_marks_a_row_of_an_unknown_kind_unreadable(
    conn: sqlite3.Connection, column: str, value: str
) -> None:
    ids = [new_run(conn) for _ in range(2)]
    _break(conn, ids[0], column, f"'{value}'")
    newer, bad = list_run_listings(conn)
    assert isinstance(newer, RunListing)
    assert newer.kind is RunKind.QUICK
    assert isinstance(bad, UnreadableRun)
    assert f"column {column} holds {value!r}" in bad.problem


def test_a_bad_running_row_does_not_stop_dead_run_recovery(conn: sqlite3.Connection) -> None:
    ids = [new_run(conn, pid=10 + i) for i in range(3)]  # all 'running'
    _break(conn, ids[0], "target_path", "CAST(X'FF' AS TEXT)")
    marked = mark_dead_runs(conn, lambda _run: False)
    assert sorted(marked) == ids[1:]


# --- damaged files ---------------------------------------------------------------------------


def _damaged_error(path: Path, offsets: range) -> sqlite3.Error:
    data = bytearray(path.read_bytes())
    for offset in offsets:
        data[offset] ^= 0xFF
    path.write_bytes(bytes(data))
    raw = sqlite3.connect(path)
    try:
        raw.execute("SELECT * FROM runs").fetchall()
    except sqlite3.Error as error:
        return error
    finally:
        raw.close()
    raise AssertionError("the damage went unnoticed")


def _settled_store(path: Path) -> None:
    conn = open_store(path)
    for _ in range(3):
        new_run(conn)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()


def test_damage_is_told_apart_from_other_failures(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    _settled_store(path)
    page = int.from_bytes(path.read_bytes()[16:18], "big")
    runs_root = 4  # devices, runs, …: the runs table's b-tree starts on page 4
    error = _damaged_error(path, range((runs_root - 1) * page, (runs_root - 1) * page + 8))
    assert is_damage(error)
    message = str(store_failure(path, error))
    assert f"the run store {path} is damaged" in message
    assert ".recover" in message
    assert not is_damage(sqlite3.OperationalError("database is locked"))


def test_a_file_that_is_not_a_database_is_named(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"my notes, not a database\n" * 200)
    with pytest.raises(StoreError, match="is not an SQLite database"):
        open_store(path)


def test_an_unreadable_running_row_on_a_target_is_not_passed_over(
    conn: sqlite3.Connection,
) -> None:
    run_id = new_run(conn)
    _break(conn, run_id, "settings_json", "'{'")
    with pytest.raises(StoreError, match=f"run {run_id} in the run store is unreadable"):
        running_runs_on(conn, "/tmp/x")
    assert running_runs_on(conn, "/elsewhere") == []


def test_text_that_is_not_utf8_elsewhere_is_named_by_its_column(conn: sqlite3.Connection) -> None:
    run_id = new_run(conn)
    conn.execute(
        "UPDATE runs SET status_reason = CAST(X'FF' AS TEXT) || ? WHERE id = ?",
        ("x" * 10_000, run_id),
    )
    with pytest.raises(sqlite3.OperationalError) as raised:
        conn.execute("SELECT status_reason FROM runs").fetchall()
    message = str(store_failure(Path("/s.db"), raised.value))
    assert "/s.db holds text that is not UTF-8 (in column status_reason)" in message
    assert "x" * 100 not in message  # not the text itself
