"""`ssdlab fleet …`: ssdlab on many hosts over the user's OpenSSH, hosts from an Ansible
inventory. doctor → (deploy) → run → status → collect → compare; load for combined load.

Every node runs ssdlab itself and keeps its own store (fleet/launch.py); this machine checks
the nodes (fleet/doctor.py), starts and follows their runs, brings the runs into its store
(fleet/collect.py) and compares drives of one model (analysis/fleet.py).
"""

import argparse
import contextlib
import importlib
import json
import math
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from ssdlab import __version__
from ssdlab.analysis.compare import DEFAULT_ALPHA, DEFAULT_THRESHOLD_PCT
from ssdlab.analysis.fleet import FleetDrive, compare_siblings, mismatches
from ssdlab.app.runs import run_metrics, stored_run
from ssdlab.cli.render import emit_document
from ssdlab.cli.store_open import open_db
from ssdlab.errors import FleetError, UsageError
from ssdlab.fleet.collect import collect_fleet
from ssdlab.fleet.doctor import check_fleet
from ssdlab.fleet.launch import (
    follow_jobs,
    node_words,
    plan_jobs,
    set_by_fleet,
    start_jobs,
)
from ssdlab.model.fleet import FleetHost, HostCheck, JobOutcome
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.model.units import format_time
from ssdlab.report.fleet import (
    build_collect_document,
    build_doctor_document,
    build_fleet_compare_document,
    build_run_document,
    build_status_document,
)
from ssdlab.store.listing import RunFilter, runs_matching
from ssdlab.system.inventory import read_inventory
from ssdlab.system.ssh import SshSettings, multiplexed, on_every_host, run_remote

STATUS_TIMEOUT_S = 120.0
# the start is this far ahead of the moment the last node was told, per round of --parallel
START_MARGIN_S = 5.0


def fleet_hosts(args: argparse.Namespace) -> tuple[FleetHost, ...]:
    """The inventory's hosts (--limit applied)."""
    return read_inventory(Path(args.inventory).expanduser(), args.limit)


def ssh_settings(args: argparse.Namespace) -> SshSettings:
    """--parallel and --connect-timeout, checked."""
    if args.parallel < 1:
        raise UsageError("--parallel must be at least 1")
    if args.connect_timeout < 1:
        raise UsageError("--connect-timeout must be at least 1 second")
    return SshSettings(connect_timeout_s=args.connect_timeout, parallel=args.parallel)


def _doctor(args: argparse.Namespace, out: Console) -> int:
    hosts = fleet_hosts(args)
    with multiplexed(ssh_settings(args)) as ssh:
        checks = check_fleet(hosts, ssh)
    found = mismatches(checks, __version__)
    emit_document(
        out, build_doctor_document(checks, found, __version__), plots=None, as_json=args.json
    )
    blocked = any(m.changes_results for m in found)
    return 0 if all(check.usable for check in checks) and not blocked else 1


def _profile_args(args: argparse.Namespace) -> list[str]:
    given = list(args.profile_args)
    fought = set_by_fleet(given)
    if fought:
        raise UsageError(
            f"{', '.join(fought)} after -- is set by the fleet from the inventory: the node's "
            "store is ssdlab_db, the targets to erase ssdlab_destroy_data, the start --start-at"
        )
    return given


def _check_profile(profile: str) -> None:
    from ssdlab.registry import run_profiles

    known = ["quick", "endure", *run_profiles()]
    if profile not in known:
        raise UsageError(f"unknown profile {profile!r}; choose one of: {', '.join(known)}")


def _check_words(hosts: Sequence[FleetHost], profile: str, given: list[str]) -> None:
    """Parse what the first node will run with this ssdlab's own parser (the nodes run the
    same version): a bad option is reported once here, not by every node."""
    from ssdlab.cli.main import build_parser

    host = next((h for h in hosts if h.targets), None)
    if host is None:
        return
    words = node_words(host, host.targets[0], profile, given, time.time() + 3600)
    try:
        build_parser().parse_args(list(words))
    except SystemExit as stop:
        raise UsageError(
            f"the options after -- are not valid for {profile} (see above); "
            f"'ssdlab {' '.join(words[:2])} --help' lists them"
        ) from stop


def _refuse_mismatch(checks: Sequence[HostCheck], args: argparse.Namespace) -> None:
    blocking = [m for m in mismatches(checks, __version__) if m.changes_results]
    if blocking and not args.allow_mismatch:
        raise FleetError(
            "the hosts would not measure alike: "
            + "; ".join(m.detail for m in blocking)
            + "; make them the same (ssdlab fleet deploy installs this ssdlab) or run anyway "
            "with --allow-mismatch"
        )


def _start_at(args: argparse.Namespace, hosts: int) -> float:
    if args.start_at is not None:
        return float(args.start_at)
    rounds = math.ceil(max(hosts, 1) / args.parallel)
    ahead = float(args.start_in) if args.start_in is not None else START_MARGIN_S * rounds
    if ahead < 0:
        raise UsageError("--start-in must not be negative")
    return time.time() + ahead


def _unusable(checks: Sequence[HostCheck]) -> list[JobOutcome]:
    return [
        JobOutcome(c.host, "", None, None, f"not started: {c.problem}", "")
        for c in checks
        if not c.usable
    ]


class ProgressLines:
    """Progress lines from many hosts on stderr, each after what it comes from (a host, or a
    host and its target), one writer at a time."""

    def __init__(self, err: Console) -> None:
        self.err = err
        self.lock = threading.Lock()

    def __call__(self, source: str, text: str) -> None:
        with self.lock:
            self.err.print(f"[dim]{escape(source)}:[/dim] {escape(text)}", highlight=False)


def _run(args: argparse.Namespace, out: Console) -> int:
    _check_profile(args.profile)
    given = _profile_args(args)
    hosts = fleet_hosts(args)
    _check_words(hosts, args.profile, given)
    err = Console(stderr=True, highlight=False)
    conn = None if args.detach or args.no_collect else open_db(args)
    with multiplexed(ssh_settings(args)) as ssh:
        checks = check_fleet(hosts, ssh)
        _refuse_mismatch(checks, args)
        usable = [h for h, c in zip(hosts, checks, strict=True) if c.usable]
        start_at = _start_at(args, len(usable))
        err.print(
            f"starting {args.profile} on {len(usable)} of {len(hosts)} hosts at {_clock(start_at)}"
        )
        jobs = start_jobs(plan_jobs(usable, args.profile, given, start_at), ssh)
        if args.detach:
            outcomes = [JobOutcome(j.host.name, j.target, j.job, None, j.problem, "") for j in jobs]
            document = build_run_document(args.profile, start_at, _unusable(checks) + outcomes)
            emit_document(out, document, plots=None, as_json=args.json)
            return 0 if all(j.job is not None for j in jobs) and len(usable) == len(hosts) else 1
        outcomes = follow_jobs(jobs, ssh, ProgressLines(err), args.reconnect_for)
        collected = []
        if conn is not None:
            reached = [h for h in usable if any(o.host == h.name and o.job for o in outcomes)]
            collected = collect_fleet(conn, reached, ssh)
    every = _unusable(checks) + outcomes
    document = build_run_document(args.profile, start_at, every, collected, _summaries(every))
    emit_document(out, document, plots=None, as_json=args.json)
    return 0 if all(o.ok for o in every) else 1


def _clock(at_s: float) -> str:
    return f"{format_time(at_s)} (in {at_s - time.time():.0f} s)"


def _summaries(outcomes: Sequence[JobOutcome]) -> dict[tuple[str, str], str]:
    """The node's run id from the document each run printed (--json)."""
    found = {}
    for outcome in outcomes:
        with contextlib.suppress(json.JSONDecodeError, AttributeError, TypeError):
            document = json.loads(outcome.stdout)
            run_id = document.get("run_id") or (document.get("run") or {}).get("id")
            if run_id is not None:
                found[(outcome.host, outcome.target)] = f"run {run_id} on the node"
    return found


def _status(args: argparse.Namespace, out: Console) -> int:
    hosts = fleet_hosts(args)
    statuses: dict[str, dict[str, object]] = {}
    problems: dict[str, str] = {}
    with multiplexed(ssh_settings(args)) as ssh:
        found = on_every_host(
            hosts,
            lambda h: run_remote(
                h,
                [*h.command, "node", "status", *(["--db", h.db] if h.db else [])],
                ssh,
                timeout_s=STATUS_TIMEOUT_S,
            ),
            ssh.parallel,
        )
    for host in hosts:
        result = found[host.name]
        try:
            if not result.ok:
                raise ValueError(result.failure())
            statuses[host.name] = json.loads(result.text)
        except ValueError as error:
            problems[host.name] = str(error)
    emit_document(out, build_status_document(statuses, problems), plots=None, as_json=args.json)
    return 0 if not problems else 1


def _collect(args: argparse.Namespace, out: Console) -> int:
    hosts = fleet_hosts(args)
    conn = open_db(args)
    with multiplexed(ssh_settings(args)) as ssh:
        collected = collect_fleet(conn, hosts, ssh)
    emit_document(out, build_collect_document(collected), plots=None, as_json=args.json)
    return 0 if all(found.problem is None for found in collected) else 1


def _device_fact(run: RunRecord, name: str) -> str | None:
    device = run.target.get("device")
    value = device.get(name) if isinstance(device, dict) else None
    return str(value) if value not in (None, "") else None


def _latest_drives(conn: sqlite3.Connection, kind: str) -> list[FleetDrive]:
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


def _compare(args: argparse.Namespace, out: Console) -> int:
    conn = open_db(args)
    drives = _latest_drives(conn, args.kind)
    if not drives:
        raise FleetError(
            f"the store holds no complete {args.kind} run; run ssdlab fleet run and "
            "ssdlab fleet collect first"
        )
    groups = compare_siblings(drives)
    document = build_fleet_compare_document(args.kind, groups, DEFAULT_THRESHOLD_PCT, DEFAULT_ALPHA)
    emit_document(out, document, plots=None, as_json=args.json)
    return 0


# action -> (module under ssdlab.cli, function); deploy and load live in modules of their own
HANDLERS = {
    "deploy": ("fleet_deploy", "cmd_fleet_deploy"),
    "load": ("fleet_load", "cmd_fleet_load"),
}
ACTIONS = {
    "doctor": _doctor,
    "run": _run,
    "status": _status,
    "collect": _collect,
    "compare": _compare,
}


def cmd_fleet(args: argparse.Namespace, out: Console) -> int:
    action = args.fleet_command
    if action in HANDLERS:
        module, function = HANDLERS[action]
        handler = getattr(importlib.import_module(f"ssdlab.cli.{module}"), function)
        code: int = handler(args, out)
        return code
    return ACTIONS[action](args, out)
