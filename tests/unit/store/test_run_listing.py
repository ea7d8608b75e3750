"""`ssdlab runs` reads its list from the store: columns without decoding the plan, and the
--profile, --since and --target filters as WHERE clauses."""

import sqlite3
from pathlib import Path

import pytest

from ssdlab.model.run import RunStatus
from ssdlab.store.db import open_store
from ssdlab.store.lifecycle import NewRun, create_run
from ssdlab.store.listing import RunFilter, RunListing, list_run_listings
from ssdlab.store.run_rows import UnreadableRun


def add(
    conn: sqlite3.Connection,
    *,
    kind: str = "quick",
    profile: str = "quick",
    preset: str | None = "real",
    target: str = "/tmp/x/ssdlab-1.tmp",
    started: float = 1000.0,
    settings: str = "{}",
    plan: str = "{}",
) -> int:
    return create_run(
        conn,
        NewRun(
            kind=kind,
            profile=profile,
            profile_version=1,
            preset=preset,
            target_kind="file",
            target_path=target,
            target_json="{}",
            device_id=None,
            settings_json=settings,
            plan_json=plan,
            environment_json="{}",
            started_at_s=started,
            host="h",
            pid=1,
            boot_id="b",
        ),
    )


@pytest.fixture
def conn(tmp_path: Path) -> sqlite3.Connection:
    return open_store(tmp_path / "s.db")


def ids(rows: list[RunListing | UnreadableRun]) -> list[int]:
    return [row.run_id for row in rows]


def test_listing_has_the_columns_and_the_source_tool_of_an_import(
    conn: sqlite3.Connection,
) -> None:
    quick = add(conn)
    imported = add(
        conn,
        kind="import",
        preset="Default",
        target="cdm.txt",
        settings='{"source_tool": "CrystalDiskMark 8.0.4"}',
    )
    rows = list_run_listings(conn)
    assert ids(rows) == [imported, quick]  # newest first
    first, second = rows
    assert isinstance(first, RunListing)
    assert isinstance(second, RunListing)
    assert first.source_tool == "CrystalDiskMark 8.0.4"
    assert second.source_tool is None  # only imports name a source tool
    assert (second.kind, second.preset, second.status) == ("quick", "real", RunStatus.RUNNING)
    assert (second.target_path, second.started_at_s) == ("/tmp/x/ssdlab-1.tmp", 1000.0)


def test_the_plan_is_never_decoded_for_the_list(conn: sqlite3.Connection) -> None:
    run_id = add(conn, plan="not json at all {")
    (row,) = list_run_listings(conn)
    assert isinstance(row, RunListing)
    assert row.run_id == run_id


def test_profile_filter_matches_kind_or_profile(conn: sqlite3.Connection) -> None:
    quick = add(conn)
    pts = add(conn, kind="profile", profile="pts-iops", preset=None)
    endurance = add(conn, kind="profile", profile="endurance", preset=None)
    sim = add(conn, kind="sim", profile="cache", preset=None)
    assert ids(list_run_listings(conn, None, RunFilter(profile="quick"))) == [quick]
    assert ids(list_run_listings(conn, None, RunFilter(profile="pts-iops"))) == [pts]
    assert ids(list_run_listings(conn, None, RunFilter(profile="endurance"))) == [endurance]
    assert ids(list_run_listings(conn, None, RunFilter(profile="sim"))) == [sim]
    imported = add(conn, kind="import", profile="quick", preset="Default")
    # an import or a simulation stored under a profile's name is not a run of that profile
    assert ids(list_run_listings(conn, None, RunFilter(profile="quick"))) == [quick]
    assert ids(list_run_listings(conn, None, RunFilter(profile="cache"))) == []
    assert ids(list_run_listings(conn, None, RunFilter(profile="import"))) == [imported]
    assert list_run_listings(conn, None, RunFilter(profile="nothing")) == []


def test_since_filter_keeps_runs_started_at_or_after(conn: sqlite3.Connection) -> None:
    add(conn, started=1000.0)
    at = add(conn, started=2000.0)
    later = add(conn, started=3000.0)
    assert ids(list_run_listings(conn, None, RunFilter(since_s=2000.0))) == [
        later,
        at,
    ]


def test_target_filter_is_exact_or_a_folders_test_files(conn: sqlite3.Connection) -> None:
    device = add(conn, target="/dev/loop3")
    add(conn, target="/dev/loop30")
    in_folder = add(conn, target="/mnt/a_b/ssdlab-1.tmp")
    add(conn, target="/mnt/aXb/ssdlab-1.tmp")  # '_' is not a wildcard
    add(conn, target="/mnt/a_b2/ssdlab-1.tmp")  # another folder with the same prefix
    exact = RunFilter(targets=("/dev/loop3",))
    assert ids(list_run_listings(conn, None, exact)) == [device]
    folder = RunFilter(targets=("/mnt/a_b",), target_folders=("/mnt/a_b/",))
    assert ids(list_run_listings(conn, None, folder)) == [in_folder]


def test_filters_combine_and_limit_applies_after_them(conn: sqlite3.Connection) -> None:
    add(conn, kind="profile", profile="cache", preset=None, started=1000.0)
    second = add(conn, kind="profile", profile="cache", preset=None, started=2000.0)
    third = add(conn, kind="profile", profile="cache", preset=None, started=3000.0)
    add(conn, started=4000.0)
    wanted = RunFilter(profile="cache", since_s=1500.0)
    assert ids(list_run_listings(conn, None, wanted)) == [third, second]
    assert ids(list_run_listings(conn, 1, wanted)) == [third]


def test_an_undecodable_row_is_marked_not_fatal(conn: sqlite3.Connection) -> None:
    good = add(conn)
    bad = add(conn)
    conn.execute("UPDATE runs SET target_path = CAST(x'ff' AS TEXT) WHERE id = ?", (bad,))
    conn.commit()
    rows = list_run_listings(conn)
    assert ids(rows) == [bad, good]
    assert isinstance(rows[0], UnreadableRun)
    assert "target_path" in rows[0].problem
    assert isinstance(rows[1], RunListing)


def test_a_damaged_json_column_is_marked_but_the_plan_is_not_read(
    conn: sqlite3.Connection,
) -> None:
    good = add(conn, plan="{ damaged plan")
    bad = add(conn)
    conn.execute("UPDATE runs SET target_json = '[1, 2]' WHERE id = ?", (bad,))
    conn.commit()
    rows = list_run_listings(conn)
    assert isinstance(rows[0], UnreadableRun)
    assert rows[0].problem.startswith("column target_json holds JSON array")
    assert isinstance(rows[1], RunListing)
    assert rows[1].run_id == good
