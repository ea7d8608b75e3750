"""The run store under stress: many ssdlab processes opening a new store at once, a store with
flipped bytes, and one row of `runs` that cannot be read back. Each ends in a clear one-line
answer (or in success), never a traceback, and nothing stored is lost or changed."""

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import HANG_S, ROOT
from tests.e2e.conftest import FAST, Result, run_ssdlab, start_ssdlab
from tests.unit.parse.test_benchmark_text import CDM8, KDM

FIO_DATA = ROOT / "tests" / "data" / "fio"


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def integrity(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])


def assert_one_line_error(done: Result, *words: str) -> str:
    assert done.code != 0, done.stdout
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ssdlab: error:")]
    assert len(errors) == 1, done.stderr
    for word in words:
        assert word in errors[0], (word, done.stderr)
    return errors[0]


# --- many processes, one new store ---------------------------------------------------------

PROCESSES = 6
ROUNDS = 4


def test_processes_opening_a_new_store_at_once_all_succeed(tmp_path: Path) -> None:
    for round_index in range(ROUNDS):
        db = tmp_path / f"new-{round_index}" / "ssdlab.db"  # the folder does not exist yet
        procs = [start_ssdlab("runs", "--json", "--db", str(db)) for _ in range(PROCESSES)]
        for proc in procs:
            stdout, stderr = proc.communicate(timeout=HANG_S)
            assert proc.returncode == 0, stderr
            assert json.loads(stdout)["runs"] == []
        assert integrity(db) == "ok"
        with sqlite3.connect(db) as conn:
            mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        assert mode == "wal"
        assert version >= 5
    # and the store made that way works: a run goes in and comes back
    imported = run_ssdlab("import", str(FIO_DATA / "seqwrite-1m.json"), "--db", str(db))
    assert imported.code == 0, imported.stderr


def test_imports_into_one_new_store_at_once_all_land(tmp_path: Path) -> None:
    db = tmp_path / "ssdlab.db"
    procs = [
        start_ssdlab("import", str(FIO_DATA / "randread-4k-qd32.json"), "--db", str(db))
        for _ in range(PROCESSES)
    ]
    for proc in procs:
        _, stderr = proc.communicate(timeout=HANG_S)
        assert proc.returncode == 0, stderr
    listed = json.loads(run_ssdlab("runs", "--json", "--db", str(db)).stdout)["runs"]
    assert sorted(r["id"] for r in listed) == list(range(1, PROCESSES + 1))
    assert integrity(db) == "ok"


# --- a store with flipped bytes --------------------------------------------------------------


def store_of_imports(tmp_path: Path) -> tuple[Path, int]:
    db = tmp_path / "ssdlab.db"
    cdm = tmp_path / "cdm.txt"
    cdm.write_text(CDM8, encoding="utf-8")
    kdm = tmp_path / "kdm.txt"
    kdm.write_text(KDM, encoding="utf-8")
    fio = [FIO_DATA / f"{name}.json" for name in ("randread-4k-qd32", "randrw-70-30")]
    for source in (cdm, kdm, *fio):
        done = run_ssdlab("import", str(source), "--db", str(db))
        assert done.code == 0, done.stderr
    return db, 1


def store_of_a_quick_run(tmp_path: Path) -> tuple[Path, int]:
    db = tmp_path / "ssdlab.db"
    target = tmp_path / "target"
    target.mkdir()
    done = run_ssdlab("quick", str(target), *FAST, "--db", str(db))
    if done.code != 0 and "fio" in done.stderr and "not found" in done.stderr:
        pytest.skip("fio is not installed")
    assert done.code == 0, done.stderr
    return db, 1


def settle(db: Path) -> None:
    """Everything in the main file, nothing left in the write-ahead log."""
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)


def _page_size(data: bytes) -> int:
    size = int.from_bytes(data[16:18], "big")
    return 65536 if size == 1 else size


def flip_page_headers(db: Path) -> None:
    """Invert the first 8 bytes of every page after the first: each b-tree page's header (its
    type byte among them) and each overflow page's link. The schema on page 1 stays readable."""
    data = bytearray(db.read_bytes())
    size = _page_size(bytes(data))
    assert len(data) // size > 3, "the store is too small to damage meaningfully"
    for start in range(size, len(data), size):
        for offset in range(start, start + 8):
            data[offset] ^= 0xFF
    db.write_bytes(bytes(data))


def flip_schema_page(db: Path) -> None:
    """Invert the b-tree header of page 1 (after the 100-byte file header): the schema."""
    data = bytearray(db.read_bytes())
    for offset in range(100, 108):
        data[offset] ^= 0xFF
    db.write_bytes(bytes(data))


def flip_file_header(db: Path) -> None:
    data = bytearray(db.read_bytes())
    for offset in range(0, 16):  # "SQLite format 3\0"
        data[offset] ^= 0xFF
    db.write_bytes(bytes(data))


DAMAGE = {"page-headers": flip_page_headers, "schema-page": flip_schema_page}
MAKERS = {"imports": store_of_imports, "quick-run": store_of_a_quick_run}
StoreCopy = Callable[[str, Path], tuple[Path, int]]


@pytest.fixture(scope="module")
def store_copy(tmp_path_factory: pytest.TempPathFactory) -> StoreCopy:
    """copy(name, folder): a copy in `folder` of the store MAKERS[name] makes, and its run. Each
    store is made once for the module and settled (nothing left in its write-ahead log), so a
    test that damages its copy changes no other test's."""
    made: dict[str, tuple[Path, int]] = {}

    def copy(name: str, folder: Path) -> tuple[Path, int]:
        if name not in made:
            db, run = MAKERS[name](tmp_path_factory.mktemp(name))
            settle(db)
            made[name] = (db, run)
        db, run = made[name]
        shutil.copyfile(db, folder / db.name)
        return folder / db.name, run

    return copy


def _reading_commands(db: Path, run: int, out: Path) -> dict[str, list[str]]:
    return {
        "runs": ["runs", "--db", str(db)],
        "runs --json": ["runs", "--json", "--db", str(db)],
        "show": ["show", str(run), "--db", str(db)],
        "show last": ["show", "last", "--db", str(db)],
        "report": ["report", str(run), "-o", str(out / "r.html"), "--db", str(db)],
        "report md": ["report", str(run), "-o", str(out / "r.md"), "--db", str(db)],
        "export": ["export", str(run), "--format", "json", "--db", str(db)],
        "export cdm": ["export", str(run), "--format", "cdm", "--db", str(db)],
        "import": ["import", str(FIO_DATA / "seqwrite-1m.json"), "--db", str(db)],
    }


@pytest.mark.parametrize("damage", DAMAGE.values(), ids=DAMAGE.keys())
@pytest.mark.parametrize("make", MAKERS)
def test_a_damaged_store_is_named_with_how_to_recover(
    tmp_path: Path, store_copy: StoreCopy, make: str, damage: object
) -> None:
    assert callable(damage)
    db, run = store_copy(make, tmp_path)
    damage(db)
    damaged = file_digest(db)
    out = tmp_path / "out"
    out.mkdir()
    for name, argv in _reading_commands(db, run, out).items():
        done = run_ssdlab(*argv)
        line = assert_one_line_error(done, str(db), "is damaged", ".recover", "backup")
        assert "Traceback" not in line, name
        assert done.code == 1, (name, done.stderr)
    assert file_digest(db) == damaged  # ssdlab changed nothing in the damaged file
    assert list(out.iterdir()) == []  # and wrote no report from it


@pytest.mark.parametrize("make", MAKERS)
def test_a_store_whose_header_is_damaged_is_named(
    tmp_path: Path, store_copy: StoreCopy, make: str
) -> None:
    db, run = store_copy(make, tmp_path)
    flip_file_header(db)
    damaged = file_digest(db)
    out = tmp_path / "out"
    out.mkdir()
    for argv in _reading_commands(db, run, out).values():
        done = run_ssdlab(*argv)
        assert_one_line_error(done, str(db), "not an SQLite database", "backup")
    assert file_digest(db) == damaged


# --- one unreadable row ----------------------------------------------------------------------


def _break_row(db: Path, run: int, column: str, value_sql: str) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA ignore_check_constraints = ON")  # as a damaged row may be
        conn.execute(f"UPDATE runs SET {column} = {value_sql} WHERE id = ?", (run,))
    conn.close()


BAD_ROWS = {
    "target_path not UTF-8": ("target_path", "CAST(X'2F746D702FFFFE' AS TEXT)"),
    "host not UTF-8": ("host", "CAST(X'C328' AS TEXT)"),
    "settings_json not JSON": ("settings_json", "'{\"count\": '"),
    "target_json not an object": ("target_json", "'[1, 2]'"),
    "status unknown": ("status", "'exploded'"),
}


@pytest.mark.parametrize("bad", BAD_ROWS.values(), ids=BAD_ROWS.keys())
def test_one_unreadable_row_hides_no_other_run(
    tmp_path: Path, store_copy: StoreCopy, bad: tuple[str, str]
) -> None:
    db, _ = store_copy("imports", tmp_path)
    before = json.loads(run_ssdlab("runs", "--json", "--db", str(db)).stdout)["runs"]
    assert len(before) >= 4
    broken = 2
    column, value_sql = bad
    _break_row(db, broken, column, value_sql)
    listed = run_ssdlab("runs", "--db", str(db))
    assert listed.code == 0, listed.stderr
    assert "Traceback" not in listed.stderr
    assert f"run {broken}: unreadable row — column {column}" in listed.stdout
    doc = json.loads(run_ssdlab("runs", "--json", "--db", str(db)).stdout)["runs"]
    assert [r["id"] for r in doc] == [r["id"] for r in before]  # every run still listed
    marked = next(r for r in doc if r["id"] == broken)
    assert set(marked) == {"id", "unreadable"}
    assert marked["unreadable"].startswith(f"column {column} ")
    assert [r for r in doc if r["id"] != broken] == [r for r in before if r["id"] != broken]
    for argv in (
        ["show", str(broken)],
        ["show", str(broken), "--json"],
        ["export", str(broken), "--format", "csv"],
        ["report", str(broken), "-o", str(tmp_path / "r.html")],
    ):
        done = run_ssdlab(*argv, "--db", str(db))
        assert_one_line_error(done, f"run {broken}", "unreadable", "Every other run is intact")
    assert not (tmp_path / "r.html").exists()
    for other in (1, 3):  # the runs beside it show as before
        shown = run_ssdlab("show", str(other), "--db", str(db))
        assert shown.code == 0, shown.stderr
    if column != "status":  # the forced status breaks the CHECK the check reports
        assert integrity(db) == "ok"


def test_text_that_is_not_utf8_in_a_result_names_its_column(
    tmp_path: Path, store_copy: StoreCopy
) -> None:
    db, _ = store_copy("imports", tmp_path)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE step_results SET step_label = CAST(X'52FF' AS TEXT) WHERE run_id = 2")
    conn.close()
    for argv in (["show", "2"], ["export", "2", "--format", "md"]):
        done = run_ssdlab(*argv, "--db", str(db))
        assert_one_line_error(done, str(db), "not UTF-8 (in column step_label)", "backup")
    listed = json.loads(run_ssdlab("runs", "--json", "--db", str(db)).stdout)["runs"]
    assert len(listed) == 4  # the run itself still lists
    assert run_ssdlab("show", "1", "--db", str(db)).code == 0
