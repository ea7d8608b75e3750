"""Files the user names as input: every command that reads one refuses what is not a regular
file (a FIFO would block it, /dev/zero would fill memory: stat says 0 bytes for both) and
anything over its size limit, with one line that names the file and what it is; a path
component too long for the file system is a one-line error everywhere; and every kind of
import (CrystalDiskMark and KDiskMark text, fio JSON) shows, exports and reports without a
traceback, unknown values as "n/a", never 0 or None."""

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.e2e.conftest import Result, run_ssdlab
from tests.unit.parse.test_benchmark_text import CDM8, KDM

FIO_DATA = ROOT / "tests" / "data" / "fio"
SMART_TEXT = ROOT / "tests" / "data" / "smart-text" / "mx500-A.txt"
SPEC = ROOT / "src" / "ssdlab" / "specs" / "samsung-970-evo-500gb.toml"
HANG_GUARD_S = 600  # a command that opens a FIFO waits for a writer forever: fail, not hang
ENDURE = ["--size", "8MiB", "--for", "5", "--health-every", "1"]


def assert_one_line_refusal(done: Result, *words: str) -> None:
    assert done.code != 0, done.stdout
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("ssdlab: error:")]
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], (word, done.stderr)


def stored(db: Path) -> list[tuple[object, ...]]:
    """Every row of every table: what must be the same after a refusal."""
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type='table'")]
        return [(t, *row) for t in sorted(tables) for row in conn.execute(f"SELECT * FROM {t}")]


def store_with_one_import(tmp_path: Path) -> Path:
    db = tmp_path / "db"
    done = run_ssdlab("import", str(FIO_DATA / "seqwrite-1m.json"), "--db", str(db))
    assert done.code == 0, done.stderr
    return db


# command name -> argv that reads FILE, given FILE and a scratch folder
READERS: dict[str, Callable[[Path, Path], list[str]]] = {
    "import": lambda f, _tmp: ["import", str(f)],
    "health FILE": lambda f, _tmp: ["health", str(f)],
    "health --import": lambda f, _tmp: ["health", "--import", str(f)],
    "health --vendor-map": lambda f, _tmp: ["health", str(SMART_TEXT), "--vendor-map", str(f)],
    "wear A B": lambda f, _tmp: ["wear", str(SMART_TEXT), str(f)],
    "spec add": lambda f, _tmp: ["spec", "add", str(f)],
    "endure --job-file": lambda f, tmp: ["endure", str(tmp / "e.dat"), "--job-file", str(f)],
    "endure --health-replay": lambda f, tmp: [
        "endure",
        str(tmp / "e.dat"),
        *ENDURE,
        "--health-replay",
        str(f),
    ],
}


def _fifo(tmp: Path) -> tuple[Path, str]:
    path = tmp / "input.fifo"
    os.mkfifo(path)
    return path, "named pipe (FIFO)"


def _dev_zero(_tmp: Path) -> tuple[Path, str]:
    return Path("/dev/zero"), "character device"


def _link_to_urandom(tmp: Path) -> tuple[Path, str]:
    path = tmp / "results.txt"
    path.symlink_to("/dev/urandom")
    return path, "a link to /dev/urandom, a character device"


def _sparse_huge(tmp: Path) -> tuple[Path, str]:
    path = tmp / "huge.txt"
    with path.open("wb") as handle:
        handle.truncate(2 * 2**30)  # sparse: no disk space used
    return path, "larger than"


def _directory(tmp: Path) -> tuple[Path, str]:
    path = tmp / "folder"
    path.mkdir()
    return path, "directory"


INPUTS = {
    "fifo": _fifo,
    "dev-zero": _dev_zero,
    "link-to-urandom": _link_to_urandom,
    "sparse-2GiB": _sparse_huge,
    "directory": _directory,
}


@pytest.mark.parametrize("make_input", INPUTS.values(), ids=INPUTS.keys())
@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_only_regular_files_of_bounded_size_are_read(
    tmp_path: Path,
    reader: Callable[[Path, Path], list[str]],
    make_input: Callable[[Path], tuple[Path, str]],
) -> None:
    db = store_with_one_import(tmp_path)
    before = stored(db)
    path, what = make_input(tmp_path)
    done = run_ssdlab(*reader(path, tmp_path), "--db", str(db), timeout=HANG_GUARD_S)
    assert_one_line_refusal(done, str(path), what)
    assert done.code == 2  # a bad argument, like a missing file
    assert stored(db) == before  # nothing stored, nothing changed
    assert not (tmp_path / "e.dat").exists()  # no test file was made


LONG = "n" * 256  # one path component over NAME_MAX (255 bytes): ENAMETOOLONG


def _long_name_cases(tmp: Path, db: Path) -> dict[str, list[str]]:
    long = str(tmp / LONG)
    return {
        "quick target": ["quick", f"{long}/x", "--size", "4MiB", "--measure", "0.3"],
        "quick target file": ["quick", long, "--size", "4MiB", "--measure", "0.3"],
        "--db": ["runs", "--db", long],
        "--db folder": ["runs", "--db", f"{long}/s.db"],
        "import": ["import", long, "--db", str(db)],
        "report -o": ["report", "1", "-o", f"{long}.html", "--db", str(db)],
        "export -o": ["export", "1", "-o", long, "--db", str(db)],
        "health FILE": ["health", long, "--db", str(db)],
        "wear A B": ["wear", long, str(SMART_TEXT), "--db", str(db)],
        "wear B": ["wear", str(SMART_TEXT), long, "--db", str(db)],
        "spec add": ["spec", "add", long, "--db", str(db)],
        "endure --job-file": ["endure", str(tmp / "e.dat"), "--job-file", long, "--db", str(db)],
    }


def test_a_file_name_too_long_is_a_one_line_error_everywhere(tmp_path: Path) -> None:
    db = store_with_one_import(tmp_path)
    before = stored(db)
    for name, argv in _long_name_cases(tmp_path, db).items():
        done = run_ssdlab(*argv)
        assert done.code != 0, name
        assert "Traceback" not in done.stderr, (name, done.stderr)
        assert done.stderr.count("ssdlab: error:") == 1, (name, done.stderr)
        assert LONG[:40] in done.stderr, (name, done.stderr)
    assert stored(db) == before
    assert all(p.name.startswith("db") for p in tmp_path.iterdir())  # nothing was created


# --- every import kind through every output --------------------------------------------


def _import_kinds(tmp: Path) -> dict[str, Path]:
    cdm = tmp / "cdm8.txt"
    cdm.write_bytes(CDM8.encode("utf-16"))  # Windows "Save text"
    kdm = tmp / "KDM_20240211180533.txt"
    kdm.write_text(KDM, encoding="utf-8")
    odd = tmp / "trim-job.json"  # a job of no CrystalDiskMark shape: named by its job name
    doc = json.loads((FIO_DATA / "randread-4k-qd32.json").read_text())
    doc["jobs"][0]["jobname"] = "my odd job"
    doc["jobs"][0]["job options"]["rw"] = "trim"  # no CrystalDiskMark test is a trim
    odd.write_text(json.dumps(doc), encoding="utf-8")
    return {
        "crystaldiskmark": cdm,
        "kdiskmark": kdm,
        "fio-randread": FIO_DATA / "randread-4k-qd32.json",
        "fio-mix": FIO_DATA / "randrw-70-30.json",
        "fio-write": FIO_DATA / "seqwrite-1m.json",
        "fio-odd-shape": odd,
    }


OUTPUTS: dict[str, list[str]] = {
    "show": ["show"],
    "show --json": ["show", "--json"],
    "export json": ["export", "--format", "json"],
    "export csv": ["export", "--format", "csv"],
    "export md": ["export", "--format", "md"],
    "export cdm": ["export", "--format", "cdm"],
}


@pytest.mark.parametrize(
    "kind",
    ["crystaldiskmark", "kdiskmark", "fio-randread", "fio-mix", "fio-write", "fio-odd-shape"],
)
def test_every_import_shows_exports_and_reports(tmp_path: Path, kind: str) -> None:
    db = tmp_path / "db"
    source = _import_kinds(tmp_path)[kind]
    imported = run_ssdlab("import", str(source), "--db", str(db), "--json")
    assert imported.code == 0, imported.stderr
    run = str(json.loads(imported.stdout)["run"])
    said: dict[str, str] = {}
    for name, argv in OUTPUTS.items():
        done = run_ssdlab(argv[0], run, *argv[1:], "--db", str(db))
        said[name] = done.stdout
        assert done.code == 0, (name, done.stderr)
        assert "Traceback" not in done.stderr, (name, done.stderr)
        if name in ("show", "export md", "export cdm"):
            assert "None" not in done.stdout, (name, done.stdout)
        if name == "export cdm" and kind.startswith("fio"):
            assert "Measure n/a" in done.stdout  # fio JSON says nothing of CDM's timing
            assert "fio-3.33" in done.stdout
        if name == "export json":
            settings = json.loads(done.stdout)["run"]["settings"]
            assert settings.get("measure_s", None) != 0
            assert settings.get("count", None) != 0
    for suffix in ("html", "md"):
        out = tmp_path / f"report.{suffix}"
        done = run_ssdlab("report", run, "-o", str(out), "--db", str(db))
        assert done.code == 0, (suffix, done.stderr)
        text = out.read_text(encoding="utf-8")
        assert "imported from" in text
        assert "data None" not in text
        assert "engine None" not in text
    if kind.startswith("fio"):
        md = (tmp_path / "report.md").read_text(encoding="utf-8")
        assert "fio job(s) as written by hand" in md
    if kind == "fio-odd-shape":
        assert "my odd job:" in said["export cdm"]
    with sqlite3.connect(db) as conn:
        (status,) = conn.execute("SELECT status FROM runs WHERE id = ?", (int(run),)).fetchone()
    assert status == "complete"
