"""A store stays fast at fleet size: `ssdlab runs` selects a page of runs on the indexes of
plain columns (schema 8) and never reads a run's JSON, and `show`, `export`, `report` and
`compare` of one run find its rows by index, whatever else the store holds."""

import contextlib
import io
import re
import shutil
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from ssdlab.cli.main import main
from ssdlab.model.run import RunStatus
from ssdlab.model.target import DeviceIdentity
from ssdlab.store.db import open_store
from ssdlab.store.devices import upsert_device
from ssdlab.store.lifecycle import NewRun, create_run, finish_run
from ssdlab.store.listing import (
    RunFilter,
    RunListing,
    count_run_listings,
    list_run_listings,
    listing_query,
)
from ssdlab.store.run_rows import UnreadableRun
from tests.conftest import ROOT

OLD_STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"
HOSTS = ("lab-1", "lab-2", "lab-3")
KINDS = (("quick", "quick"), ("profile", "cache"), ("import", "quick"), ("profile", "endurance"))


def _fleet_store(path: Path) -> sqlite3.Connection:
    """30 runs over three hosts, four kinds, two drives and three folders; every seventh
    complete, the others failed."""
    conn = open_store(path)
    drives = [
        upsert_device(
            conn,
            DeviceIdentity(f"sd{c}", f"/dev/sd{c}", model=f"MODEL-{c}", serial=f"SER-{c}"),
        )
        for c in "ab"
    ]
    for index in range(30):
        kind, profile = KINDS[index % 4]
        device = drives[index % 2] if index % 5 else None
        run_id = create_run(
            conn,
            NewRun(
                kind=kind,
                profile=profile,
                profile_version=1,
                preset=None,
                target_kind="device" if device else "file",
                target_path=f"/dev/sd{'ab'[index % 2]}" if device else f"/srv/t{index % 3}/f",
                target_json="{}",
                device_id=device,
                settings_json='{"source_tool": "CrystalDiskMark 8.0.4"}'
                if kind == "import"
                else "{}",
                plan_json="not JSON: a listing never reads a plan",
                environment_json="{}",
                started_at_s=1000.0 + 100 * index,
                host=HOSTS[index % 3],
                pid=1,
                boot_id=None,
            ),
        )
        status = RunStatus.COMPLETE if index % 7 == 0 else RunStatus.FAILED
        finish_run(conn, run_id, status, None, 2000.0 + 100 * index)
    return conn


def _ids(listed: list[RunListing | UnreadableRun]) -> list[int]:
    return [r.run_id for r in listed]


def test_filters_and_pages_select_what_they_say(tmp_path: Path) -> None:
    conn = _fleet_store(tmp_path / "s.db")
    every = _ids(list_run_listings(conn))
    assert every == list(range(30, 0, -1))
    rows = {r.run_id: r for r in list_run_listings(conn) if isinstance(r, RunListing)}
    cases: list[tuple[RunFilter, Callable[[RunListing], bool]]] = [
        (RunFilter(host="lab-2"), lambda r: r.host == "lab-2"),
        (
            RunFilter(profile="cache"),
            lambda r: r.kind == "cache" or (r.kind == "profile" and r.profile == "cache"),
        ),
        (RunFilter(profile="import"), lambda r: r.kind == "import"),
        (RunFilter(status=RunStatus.COMPLETE), lambda r: r.status is RunStatus.COMPLETE),
        (RunFilter(drive="SER-b"), lambda r: r.drive_serial == "SER-b"),
        (RunFilter(drive="MODEL-a"), lambda r: r.drive_model == "MODEL-a"),
        (RunFilter(since_s=2500.0), lambda r: r.started_at_s >= 2500.0),
        (RunFilter(targets=("/dev/sda",)), lambda r: r.target_path == "/dev/sda"),
        (
            RunFilter(target_folders=("/srv/t1",)),
            lambda r: r.target_path.startswith("/srv/t1/"),
        ),
        (RunFilter(before_id=12), lambda r: r.run_id < 12),
        (
            RunFilter(host="lab-1", status=RunStatus.FAILED, before_id=25),
            lambda r: r.host == "lab-1" and r.status is RunStatus.FAILED and r.run_id < 25,
        ),
    ]
    for wanted, keep in cases:
        expected = [run_id for run_id in every if keep(rows[run_id])]
        assert expected, wanted  # every case selects some runs, and not all
        assert len(expected) < 30, wanted
        assert _ids(list_run_listings(conn, None, wanted)) == expected, wanted
        assert count_run_listings(conn, wanted) == len(expected), wanted
        pages = [
            _ids(list_run_listings(conn, 4, wanted, offset))
            for offset in range(0, len(expected) + 4, 4)
        ]
        assert [run_id for page in pages for run_id in page] == expected, wanted
        assert pages[-1] == []  # past the end: an empty page
    imports = [r for r in rows.values() if r.kind == "import"]
    assert {r.source_tool for r in imports} == {"CrystalDiskMark 8.0.4"}
    assert {r.source_tool for r in rows.values() if r.kind != "import"} == {None}
    assert {(r.drive_model, r.drive_serial) for r in rows.values()} == {
        ("MODEL-a", "SER-a"),
        ("MODEL-b", "SER-b"),
        (None, None),
    }


def _plan(conn: sqlite3.Connection, sql: str, params: Sequence[object] = ()) -> list[str]:
    return [str(row[3]) for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params)]


def test_every_listing_filter_selects_its_page_on_an_index(tmp_path: Path) -> None:
    conn = _fleet_store(tmp_path / "s.db")
    indexed = {
        "host": (RunFilter(host="lab-1"), "runs_by_host"),
        "profile": (RunFilter(profile="cache"), "runs_by_kind"),
        "status": (RunFilter(status=RunStatus.COMPLETE), "runs_by_status"),
        "drive": (RunFilter(drive="SER-a"), "runs_by_drive_serial"),
        "target": (RunFilter(targets=("/dev/sda",)), "runs_by_target"),
        "folder": (RunFilter(target_folders=("/srv/t1",)), "runs_by_target"),
        "since": (RunFilter(since_s=2000.0), "runs_by_started"),
        "before": (RunFilter(before_id=10), "INTEGER PRIMARY KEY (rowid<?)"),
    }
    for name, (wanted, index) in indexed.items():
        sql, params = listing_query(wanted, 50, 0)
        plan = _plan(conn, sql, params)
        assert any(index in line for line in plan), (name, plan)
        assert not any(re.match(r"SCAN runs\b", line) for line in plan), (name, plan)
    # the newest page of all runs walks the row ids from the top and stops after the page
    sql, params = listing_query(RunFilter(), 50, 0)
    assert _plan(conn, sql, params)[-1] == "SCAN runs"
    assert "LIMIT 50" in sql
    count_sql = "SELECT COUNT(*) FROM runs WHERE host = ?"
    assert any("COVERING INDEX runs_by_host" in line for line in _plan(conn, count_sql, ("x",)))


ONE_RUN_TABLES = (
    "runs",
    "step_results",
    "captures",
    "capture_files",
    "series",
    "health_samples",
    "findings",
    "test_files",
)


@contextlib.contextmanager
def traced_statements(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every SQL statement the commands run meanwhile, with its values filled in."""
    statements: list[str] = []
    import ssdlab.app.run_store as access

    opened = open_store

    def tracing(path: Path) -> sqlite3.Connection:
        conn = opened(path)
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(access, "open_store", tracing)
    yield statements


def _scans(conn: sqlite3.Connection, statement: str) -> list[str]:
    """The full scans of a run's tables in one statement's query plan."""
    if not statement.lstrip().upper().startswith("SELECT"):
        return []
    tables = "|".join(ONE_RUN_TABLES)
    return [
        line
        for line in _plan(conn, statement)
        if re.match(rf"SCAN ({tables})\b", line) and "rowid" not in line
    ]


def test_show_export_report_and_compare_of_one_run_scan_no_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "store.sqlite"
    shutil.copyfile(OLD_STORE, db)
    open_store(db).close()  # migrated
    commands = [
        *[("show", str(run), "--jobs") for run in (1, 4, 9, 11, 13, 14)],
        *[("export", str(run), "--format", "json") for run in (1, 4, 11, 14)],
        *[("export", str(run), "--format", "csv") for run in (1, 5, 14)],
        ("report", "1", "--format", "md", "-o", str(tmp_path / "r1.md")),
        ("report", "8", "--format", "md", "-o", str(tmp_path / "r8.md")),
        ("compare", "1", "2", "--json"),
    ]
    with traced_statements(monkeypatch) as statements:
        for argv in commands:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main([*argv, "--db", str(db)])
            assert code == 0, (argv, err.getvalue())
    assert len(statements) > 50
    conn = sqlite3.connect(db)
    scans = {s: _scans(conn, s) for s in set(statements)}
    assert {s: found for s, found in scans.items() if found} == {}
