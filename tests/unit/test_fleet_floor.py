"""The fleet's application floor (fleet/) where it needs no host: the reach of a command and
the hints it writes, the refusals a fleet run makes before it reads the inventory, fleet
compare on this store, and what fleet load reports of a made-up load."""

import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ssdlab.app.run_store import open_run_store
from ssdlab.errors import FleetError, UsageError
from ssdlab.fleet.compare import CompareRequest, compare_fleet
from ssdlab.fleet.load import ALL_HOSTS, LoadOutcome
from ssdlab.fleet.load_document import COLUMNS, load_document, load_rows
from ssdlab.fleet.reach import FleetReach, fleet_hint, ssh_settings
from ssdlab.fleet.run import FleetRunRequest, run_fleet
from ssdlab.model.next_command import CommandContext
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.run import RunStatus
from ssdlab.model.step import StepResult
from tests.conftest import ROOT

OLD_STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"


def _reach(inventory: Path, **changes: object) -> FleetReach:
    values: dict[str, object] = {
        "inventory": inventory,
        "limit": None,
        "parallel": 16,
        "connect_timeout_s": 10,
    }
    values.update(changes)
    return FleetReach(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "refusal"),
    [
        ({"parallel": 0}, "--parallel must be at least 1"),
        ({"connect_timeout_s": 0}, "--connect-timeout must be at least 1 second"),
    ],
)
def test_ssh_settings_are_checked(changes: dict[str, object], refusal: str) -> None:
    with pytest.raises(UsageError, match=refusal):
        ssh_settings(_reach(Path("lab.ini"), **changes))


def test_a_hint_names_the_inventory_from_anywhere_and_the_limit() -> None:
    hint = fleet_hint(_reach(Path("lab.ini"), limit="rack1"), "status")
    assert hint == f"'ssdlab fleet status {Path('lab.ini').absolute()} --limit rack1'"


def test_options_the_fleet_sets_are_refused_before_the_inventory_is_read(tmp_path: Path) -> None:
    request = FleetRunRequest(
        _reach(tmp_path / "absent.ini"), "quick", ("--size", "1GiB", "--db=x"), tmp_path / "c.db"
    )
    with pytest.raises(UsageError, match="--db=x after -- is set by the fleet"):
        run_fleet(request, progress=None, check_words=None)  # type: ignore[arg-type]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    copy = tmp_path / "central.db"
    shutil.copyfile(OLD_STORE, copy)
    conn = open_run_store(copy)
    try:
        yield conn
    finally:
        conn.close()


def test_compare_of_a_kind_not_collected_names_the_commands_with_the_store(
    store: sqlite3.Connection,
) -> None:
    context = CommandContext(db=Path("/srv/central.db"))
    with pytest.raises(FleetError) as refused:
        compare_fleet(store, CompareRequest("pts-wsat", context))
    message = str(refused.value)
    assert "the store holds no complete pts-wsat run" in message
    assert "'ssdlab fleet run INVENTORY pts-wsat --db /srv/central.db'" in message
    assert "'ssdlab fleet collect INVENTORY --db /srv/central.db'" in message


def test_compare_groups_the_latest_quick_run_of_each_drive(store: sqlite3.Connection) -> None:
    found = compare_fleet(store, CompareRequest("quick"))
    drives = [drive for group in found.groups for drive in group.drives]
    assert drives
    assert len({(d.host, d.target) for d in drives}) == len(drives)


def _direction(mb_per_s: float, p99_ns: int | None) -> DirectionMetrics:
    return DirectionMetrics(
        io_bytes=10**9,
        total_ios=1000,
        runtime_s=10.0,
        bw_bytes_per_s=mb_per_s * 1e6,
        iops=100.0,
        lat_mean_ns=50_000.0,
        lat_min_ns=None,
        lat_max_ns=None,
        lat_stddev_ns=None,
        clat_mean_ns=None,
        clat_percentiles_ns=((99.0, p99_ns),) if p99_ns is not None else (),
    )


def _step(key: str, read: DirectionMetrics | None, write: DirectionMetrics | None) -> StepResult:
    direction = "mix" if read and write else "read" if read else "write"
    return StepResult(key, key, direction, 1, False, 0.0, 0.0, None, read, write)


def _outcome() -> LoadOutcome:
    steps = (
        _step("node1", _direction(100, 2_000_000), _direction(50, 4_000_000)),
        _step("node2", _direction(90, 3_000_000), None),
        _step(ALL_HOSTS, _direction(190, None), _direction(50, None)),
    )
    return LoadOutcome(
        7,
        RunStatus.COMPLETE,
        None,
        "fio-3.36",
        ("node1", "node2"),
        {"node3": "fio is not installed on the node"},
        {"node1": "fio-3.36", "node2": "fio-3.36", "node3": None},
        steps,
    )


def test_load_rows_give_each_host_and_direction_then_all_hosts() -> None:
    rows = load_rows(_outcome())
    assert [(cells[0], cells[1], last) for cells, last in rows] == [
        ("node1", "read", False),
        ("node1", "write", True),
        ("node2", "read", True),
        ("all hosts", "read", False),
        ("all hosts", "write", True),
    ]
    assert all(len(cells) == len(COLUMNS) for cells, _ in rows)
    assert rows[0][0][-1] == "2000.00"  # p99 in µs
    assert rows[3][0][-1] == "n/a"  # fio gives all hosts no percentiles


def test_load_document_keeps_hosts_and_all_hosts_apart() -> None:
    document: dict[str, Any] = load_document(_outcome())
    assert document["format"] == "ssdlab-fleet-load"
    assert [h["host"] for h in document["hosts"]] == ["node1", "node2"]
    assert document["all_hosts"]["host"] == ALL_HOSTS
    assert document["hosts"][0]["read"]["clat_p99_ns"] == 2_000_000
    assert document["left_out"] == [{"host": "node3", "reason": "fio is not installed on the node"}]
