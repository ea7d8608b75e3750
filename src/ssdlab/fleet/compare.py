"""`ssdlab fleet compare`: the latest complete run of one profile of every drive (host and
target) in this store, drives grouped by model and firmware, each judged against its siblings
(analysis/fleet.py) with the test and threshold of `ssdlab compare`; and per group and test the
latency of all its drives together, from their stored per-second histograms merged bucket by
bucket (analysis/merged_latency.py), never an average of the drives' percentiles."""

import sqlite3
from dataclasses import dataclass, field

from ssdlab.analysis.compare import DEFAULT_ALPHA, DEFAULT_THRESHOLD_PCT
from ssdlab.analysis.fleet import DriveGroup, FleetDrive, GroupLatency, compare_siblings
from ssdlab.analysis.merged_latency import merged_latency, stored_records
from ssdlab.app.runs import run_metrics, stored_run
from ssdlab.errors import FleetError
from ssdlab.model.next_command import CommandContext, FleetHosts, fleet_command
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.model.step_histogram import SecondHistogram
from ssdlab.store.listing import RunFilter, runs_matching
from ssdlab.store.step_histograms import run_step_histograms

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
    latency: tuple[GroupLatency, ...] = ()


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
    latency = tuple(test for group in groups for test in group_latency(conn, group))
    return FleetComparison(request.kind, groups, DEFAULT_THRESHOLD_PCT, DEFAULT_ALPHA, latency)


def group_latency(conn: sqlite3.Connection, group: DriveGroup) -> list[GroupLatency]:
    """Per test (in the order of the group's runs), its drives' stored per-second histograms
    merged; tests whose runs stored none (quick runs before schema 10) are left out."""
    by_test: dict[str, dict[str, tuple[SecondHistogram, ...]]] = {}
    for drive in group.drives:
        for (test, round_index), histograms in run_step_histograms(conn, drive.run_id).items():
            by_test.setdefault(test, {})[f"{drive.run_id}/{round_index}"] = histograms
    found = []
    for test, passes in by_test.items():
        directions = merged_latency({k: stored_records(h) for k, h in passes.items()})
        drives = len({name.split("/")[0] for name in passes})
        found.append(
            GroupLatency(group.model, group.firmware, test, drives, len(passes), directions)
        )
    return found
