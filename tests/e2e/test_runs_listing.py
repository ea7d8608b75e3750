"""Runs are findable: `ssdlab runs` names each run's profile as people do, with its target,
date, status, host and UUID, and filters by --profile, --since, --target and --host; `show`
prints the date, the host and the UUID (and, for a run collected from a lab node, the node)."""

import json
import re
import shutil
import socket
import sqlite3
import time
import uuid
from pathlib import Path

import pytest

from ssdlab.store.db import open_store
from ssdlab.store.merge import copy_runs
from ssdlab.system.filetarget import probe_direct_io
from tests.abuse.probes import ssdlab_in_process
from tests.conftest import needs_fio
from tests.e2e.conftest import FAST, run_ssdlab
from tests.unit.parse.test_benchmark_text import CDM8

pytestmark = [needs_fio]
SIM = ["--capacity", "8MiB", "--pages-per-block", "16", "--write", "16MiB"]
DATE = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}")
# what a quick run measured does not matter to its listing: reads only, a third of the passes
READ_ONLY = ["--mode", "read"]


def buffered_if_needed(folder: Path) -> list[str]:
    return [] if probe_direct_io(folder) is None else ["--buffered"]


def listed(db: Path, *filters: str) -> list[dict[str, object]]:
    result = run_ssdlab("runs", "--json", "--db", str(db), *filters)
    assert result.code == 0, result.stderr
    runs = json.loads(result.stdout)["runs"]
    assert isinstance(runs, list)
    return runs


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A store with a quick run in each of two folders, a cache profile run, a sim run and
    a CrystalDiskMark import."""
    root = tmp_path_factory.mktemp("runs")
    db = root / "db"
    first, second = root / "a_1", root / "b"
    for folder in (first, second):
        folder.mkdir()
        done = run_ssdlab(
            "quick", str(folder), *FAST, *READ_ONLY, *buffered_if_needed(folder), "--db", str(db)
        )
        assert done.code == 0, done.stderr
    done = run_ssdlab(
        "run", "cache", str(second), "--size", "3MiB", "--rate", "8MiB", "--block-size",
        "64KiB", "--log-interval", "0.25", "--db", str(db), *buffered_if_needed(second),
    )  # fmt: skip
    assert done.code == 0, done.stderr
    done = run_ssdlab("sim", *SIM, "--db", str(db), "--json")
    assert done.code == 0, done.stderr
    text = root / "cdm8.txt"
    text.write_bytes(CDM8.encode("utf-16"))
    done = run_ssdlab("import", str(text), "--db", str(db))
    assert done.code == 0, done.stderr
    return db, first, second


def test_runs_json_names_profile_target_date_and_status(store: tuple[Path, Path, Path]) -> None:
    db, first, second = store
    runs = listed(db)
    assert [r["profile"] for r in runs] == [
        "import (CDM 8)",
        "sim",
        "cache",
        "quick (real)",
        "quick (real)",
    ]
    for run in runs:
        assert run["status"] == "complete"
        assert isinstance(run["started_at_s"], float)
        assert isinstance(run["target"], str)
        assert set(run) >= {"id", "profile", "kind", "status", "target", "started_at_s"}
    assert str(runs[-1]["target"]).startswith(f"{first}/")
    assert str(runs[2]["target"]).startswith(f"{second}/")


def test_runs_table_shows_the_columns(store: tuple[Path, Path, Path]) -> None:
    db, _, _ = store
    result = run_ssdlab("runs", "--db", str(db))
    assert result.code == 0, result.stderr
    for column in ("started", "profile", "status", "target"):
        assert column in result.stdout
    assert "quick (real)" in result.stdout
    assert "import (CDM 8)" in result.stdout
    assert DATE.search(result.stdout)


def test_profile_filter(store: tuple[Path, Path, Path]) -> None:
    db, _, _ = store
    assert [r["profile"] for r in listed(db, "--profile", "quick")] == ["quick (real)"] * 2
    assert [r["profile"] for r in listed(db, "--profile", "cache")] == ["cache"]
    assert [r["profile"] for r in listed(db, "--profile", "sim")] == ["sim"]
    assert [r["profile"] for r in listed(db, "--profile", "import")] == ["import (CDM 8)"]
    assert listed(db, "--profile", "pts-iops") == []
    empty = run_ssdlab("runs", "--profile", "pts-iops", "--db", str(db))
    assert empty.code == 0
    assert "no stored run matches" in empty.stdout


def test_target_filter_takes_a_folder_or_the_test_file(store: tuple[Path, Path, Path]) -> None:
    db, first, second = store
    in_first = listed(db, "--target", str(first))
    assert [r["profile"] for r in in_first] == ["quick (real)"]
    assert [r["profile"] for r in listed(db, "--target", str(second))] == [
        "cache",
        "quick (real)",
    ]
    exact = listed(db, "--target", str(in_first[0]["target"]))
    assert [r["id"] for r in exact] == [in_first[0]["id"]]
    assert listed(db, "--target", str(first.parent / "a")) == []


def test_since_filter(store: tuple[Path, Path, Path]) -> None:
    db, _, _ = store
    tomorrow = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 86400))
    assert listed(db, "--since", tomorrow) == []
    assert len(listed(db, "--since", "2000-01-01")) == 5
    assert len(listed(db, "--since", "2000-01-01T00:00", "--profile", "quick")) == 2
    bad = run_ssdlab("runs", "--since", "yesterday-ish", "--db", str(db))
    assert bad.code == 2
    assert "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    assert "--since" in bad.stderr


def test_times_are_printed_and_read_in_utc_whatever_the_local_zone(
    store: tuple[Path, Path, Path],
) -> None:
    db, _, _ = store
    newest = listed(db)[0]
    minute = time.strftime("%Y-%m-%d %H:%M", time.gmtime(float(str(newest["started_at_s"]))))
    far_west = {"TZ": "America/Los_Angeles"}
    table = run_ssdlab("runs", "--db", str(db), "--width", "200", env=far_west)
    assert f"{minute} UTC" in table.stdout
    shown = run_ssdlab("show", str(newest["id"]), "--db", str(db), env=far_west)
    assert f"started {minute} UTC" in shown.stdout
    since = run_ssdlab(
        "runs", "--json", "--since", minute.replace(" ", "T"), "--db", str(db), env=far_west
    )
    assert newest["id"] in [r["id"] for r in json.loads(since.stdout)["runs"]]


def test_show_prints_the_date(store: tuple[Path, Path, Path]) -> None:
    db, _, _ = store
    for run in listed(db):
        shown = run_ssdlab("show", str(run["id"]), "--db", str(db))
        assert shown.code == 0, shown.stderr
        assert re.search(rf"run {run['id']}: started {DATE.pattern}", shown.stdout), shown.stdout


def test_runs_json_gives_each_run_its_uuid_and_host(store: tuple[Path, Path, Path]) -> None:
    db, _, _ = store
    runs = listed(db)
    assert len({run["uuid"] for run in runs}) == len(runs)
    assert {uuid.UUID(str(run["uuid"])).version for run in runs} == {4}
    assert {run["host"] for run in runs} == {socket.gethostname()}
    assert {(run["node_host"], run["collected_at_s"]) for run in runs} == {(None, None)}


def test_host_filter(store: tuple[Path, Path, Path]) -> None:
    db, _, _ = store
    assert len(listed(db, "--host", socket.gethostname())) == 5
    assert listed(db, "--host", "no-such-host") == []


def test_the_table_has_a_host_column_only_for_runs_of_several_hosts(
    store: tuple[Path, Path, Path],
) -> None:
    db, _, _ = store
    result = run_ssdlab("runs", "--db", str(db), env={"COLUMNS": "200"})
    assert result.code == 0, result.stderr
    assert " host " not in result.stdout


@pytest.fixture
def central(store: tuple[Path, Path, Path], tmp_path: Path) -> Path:
    """A central store with a run of its own (an import) and the store's runs collected
    from a lab node named lab-1 in the inventory."""
    db = tmp_path / "central"
    text = tmp_path / "cdm8.txt"
    text.write_bytes(CDM8.encode("utf-16"))
    done = run_ssdlab("import", str(text), "--db", str(db))
    assert done.code == 0, done.stderr
    node, into = open_store(store[0]), open_store(db)
    copy_runs(node, into, host="lab-1", collected_at_s=time.time())
    node.close()
    into.close()
    return db


def test_collected_runs_are_listed_under_their_inventory_name(central: Path) -> None:
    collected = listed(central, "--host", "lab-1")
    assert len(collected) == 5
    assert {run["node_host"] for run in collected} == {socket.gethostname()}
    assert all(isinstance(run["collected_at_s"], float) for run in collected)
    assert [run["profile"] for run in listed(central, "--host", socket.gethostname())] == [
        "import (CDM 8)"
    ]


def test_the_table_of_runs_of_several_hosts_shows_the_host(central: Path) -> None:
    result = run_ssdlab("runs", "--db", str(central), env={"COLUMNS": "200"})
    assert result.code == 0, result.stderr
    assert " host " in result.stdout
    assert "lab-1" in result.stdout
    assert socket.gethostname() in result.stdout


def test_show_prints_host_uuid_and_for_a_collected_run_its_node(central: Path) -> None:
    local, collected = listed(central)[-1], listed(central)[0]
    for run in (local, collected):
        shown = run_ssdlab("show", str(run["id"]), "--db", str(central), env={"COLUMNS": "200"})
        assert shown.code == 0, shown.stderr
        assert f"run {run['id']} on host {run['host']}" in shown.stdout
        assert f"uuid {run['uuid']}" in shown.stdout
    shown = run_ssdlab("show", str(collected["id"]), "--db", str(central), env={"COLUMNS": "200"})
    assert f"(node {socket.gethostname()}, collected " in shown.stdout


# --- a page at a time (schema 8), and raw outputs read back the same compressed -------------

OLD_STORE = Path(__file__).resolve().parents[1] / "data" / "store" / "main-98b38bc.sqlite"


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    """The store ssdlab 98b38bc wrote (14 runs of every kind), migrated on first open."""
    copy = tmp_path / "old.sqlite"
    shutil.copyfile(OLD_STORE, copy)
    return copy


def test_runs_shows_a_page_and_says_how_to_see_the_rest(old_store: Path) -> None:
    first = run_ssdlab("runs", "--limit", "5", "--db", str(old_store), env={"COLUMNS": "160"})
    assert first.code == 0, first.stderr
    assert "9 older runs match too: see them with --before 10 (or --offset 5)" in first.stdout
    paged = json.loads(run_ssdlab("runs", "--json", "--limit", "5", "--offset", "5",
                                  "--db", str(old_store)).stdout)  # fmt: skip
    assert [r["id"] for r in paged["runs"]] == [9, 8, 7, 6, 5]
    assert paged["page"] == {"offset": 5, "limit": 5, "more": 4}
    before = listed(old_store, "--before", "5")
    assert [r["id"] for r in before] == [4, 3, 2, 1]
    last = run_ssdlab("runs", "--limit", "50", "--db", str(old_store))
    assert "older" not in last.stdout  # everything shown: no line about more
    past = run_ssdlab("runs", "--offset", "40", "--db", str(old_store))
    assert past.code == 0
    assert "no stored run matches these filters" in past.stdout
    negative = run_ssdlab("runs", "--offset", "-1", "--db", str(old_store))
    assert negative.code == 2
    assert negative.stderr.strip().count("\n") == 0
    assert "--offset -1 is negative" in negative.stderr


def test_runs_filters_by_status_and_drive(old_store: Path) -> None:
    interrupted = listed(old_store, "--status", "interrupted")
    assert interrupted
    assert {r["status"] for r in interrupted} == {"interrupted"}
    every = listed(old_store)
    serials = {str(r["drive_serial"]) for r in every if r["drive_serial"] is not None}
    assert serials  # runs on a device name their drive
    serial = sorted(serials)[0]
    on_drive = listed(old_store, "--drive", serial)
    assert on_drive
    assert [r["id"] for r in on_drive] == [r["id"] for r in every if r["drive_serial"] == serial]


def test_show_jobs_and_export_print_the_same_bytes_once_raw_is_compressed(
    old_store: Path,
) -> None:
    """`store compact` compresses what this old store kept as text: every document printed
    from its raw outputs (job files, fio's JSON re-read for exports) is the same after."""
    commands = [
        ("show", "1", "--jobs"),  # a quick run's job files
        ("show", "14", "--jobs"),  # an endurance run's
        ("export", "4", "--format", "csv"),  # a profile run's steps, from fio's JSON
        ("export", "14", "--format", "json"),
        ("export", "1", "--format", "cdm"),
    ]
    before = {argv: ssdlab_in_process(*argv, "--db", str(old_store)) for argv in commands}
    compact = run_ssdlab("store", "compact", "--json", "--db", str(old_store))
    assert compact.code == 0, compact.stderr
    done = json.loads(compact.stdout)
    assert done["compressed_values"] > 10
    assert done["compressed_bytes"] < done["text_bytes"] / 3
    assert done["file_bytes_after"] < done["file_bytes_before"]
    conn = sqlite3.connect(old_store)
    kinds = {r[0] for r in conn.execute("SELECT typeof(stdout) FROM captures WHERE tool = 'fio'")}
    conn.close()
    assert "blob" in kinds
    for argv, earlier in before.items():
        assert earlier[0] == 0, (argv, earlier[2])
        assert ssdlab_in_process(*argv, "--db", str(old_store)) == earlier, argv
