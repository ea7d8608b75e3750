"""`ssdlab fleet compare`: the latest complete run of one profile of every drive (host and
target) in this store, drives grouped by model and firmware, each judged against its siblings
(analysis/fleet.py) with the test and threshold of `ssdlab compare`."""

import sqlite3
from dataclasses import dataclass, field

from ssdlab.analysis.compare import DEFAULT_ALPHA, DEFAULT_THRESHOLD_PCT
from ssdlab.analysis.fleet import DriveGroup, FleetDrive, compare_siblings
from ssdlab.app.runs import run_metrics, stored_run
from ssdlab.errors import FleetError
from ssdlab.model.next_command import CommandContext, FleetHosts, fleet_command
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.store.listing import RunFilter, runs_matching

INVENTORY = "INVENTORY"  # a hint's inventory when the command was given none


@dataclass(frozen=True, slots=True)
class CompareRequest:
    kind: str  # the profile whose latest run per drive is compared
    context: CommandContext = field(default_factory=CommandContext)  # what hints carry


@dataclass(frozen=True, slots=True)
class FleetComparison:
    kind: str
    groups: tuple[DriveGroup, ...]
    threshold_pct: float
    alpha: float


def _device_fact(run: RunRecord, name: str) -> str | None:
    device = run.target.get("device")
    value = device.get(name) if isinstance(device, dict) else None
    return str(value) if value not in (None, "") else None


def latest_drives(conn: sqlite3.Connection, kind: str) -> list[FleetDrive]:
    """The latest complete run of `kind` of every drive (host and target) in the store."""
    latest: dict[tuple[str, str], RunRecord] = {}
    for run in runs_matching(conn, RunFilter(profile=kind, status=RunStatus.COMPLETE)):
        if run.profile != kind:
            continue
        key = (run.host, run.target_path)
        if key not in latest or run.started_at_s > latest[key].started_at_s:
            latest[key] = run
    return [
        FleetDrive(
            run.run_id,
            run.host,
            run.target_path,
            _device_fact(run, "model"),
            _device_fact(run, "firmware"),
            _device_fact(run, "serial"),
            run_metrics(stored_run(conn, run.run_id)),
        )
        for run in sorted(latest.values(), key=lambda r: (r.host, r.target_path))
    ]


def compare_fleet(conn: sqlite3.Connection, request: CompareRequest) -> FleetComparison:
    drives = latest_drives(conn, request.kind)
    if not drives:
        hosts = FleetHosts(INVENTORY)
        run = fleet_command(request.context, hosts, "run", request.kind)
        collect = fleet_command(request.context, hosts, "collect")
        raise FleetError(
            f"the store holds no complete {request.kind} run; run {run} and {collect} first"
        )
    groups = tuple(compare_siblings(drives))
    return FleetComparison(request.kind, groups, DEFAULT_THRESHOLD_PCT, DEFAULT_ALPHA)
