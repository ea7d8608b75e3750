"""`ssdlab fleet …`: ssdlab on many hosts over the user's OpenSSH, hosts from an Ansible
inventory. doctor → (deploy) → run → status → collect → compare; load for combined load.

What each action does is the fleet's (fleet/doctor.py, run.py, status.py, collect.py,
compare.py; deploy and load in cli/fleet_deploy.py and cli/fleet_load.py): here the options
become a request, and its answer a document (report/fleet.py), printed or written as JSON.
"""

import argparse
import importlib
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from ssdlab import __version__
from ssdlab.cli.render import emit_document
from ssdlab.cli.report import document_text, file_format
from ssdlab.cli.store_open import db_path, open_db
from ssdlab.errors import UsageError
from ssdlab.fleet.collect import CollectRequest, MergeRequest, collect_runs, merge_export
from ssdlab.fleet.compare import CompareRequest, compare_fleet
from ssdlab.fleet.doctor import DoctorRequest, doctor_fleet
from ssdlab.fleet.reach import FleetReach
from ssdlab.fleet.run import FleetRunRequest, run_fleet
from ssdlab.fleet.status import StatusRequest, fleet_status
from ssdlab.model.next_command import CommandContext, next_command
from ssdlab.model.units import format_time
from ssdlab.report.fleet import (
    build_collect_document,
    build_doctor_document,
    build_fleet_compare_document,
    build_run_document,
    build_status_document,
)
from ssdlab.system.write_gate import check_output_path, write_output


def reach_from(args: argparse.Namespace) -> FleetReach:
    return FleetReach(
        Path(args.inventory).expanduser(), args.limit, args.parallel, args.connect_timeout
    )


def context_from(args: argparse.Namespace) -> CommandContext:
    """What the hints carry: --db, when it was given."""
    return CommandContext(db_path(args) if getattr(args, "db", None) else None)


class ProgressLines:
    """Progress lines from many hosts on stderr, each after what it comes from (a host, or a
    host and its target), one writer at a time."""

    def __init__(self, err: Console) -> None:
        self.err = err
        self.lock = threading.Lock()

    def __call__(self, source: str, text: str) -> None:
        with self.lock:
            self.err.print(f"[dim]{escape(source)}:[/dim] {escape(text)}", highlight=False)

    def starting(self, profile: str, hosts: int, of: int, start_at_s: float) -> None:
        clock = format_time(start_at_s)
        ahead = f"(in {start_at_s - time.time():.0f} s)"
        with self.lock:
            self.err.print(f"starting {profile} on {hosts} of {of} hosts at {clock} {ahead}")


def _doctor(args: argparse.Namespace, out: Console) -> int:
    doctor = doctor_fleet(DoctorRequest(reach_from(args)))
    document = build_doctor_document(doctor.checks, doctor.mismatches, __version__)
    emit_document(out, document, plots=None, as_json=args.json)
    return 0 if doctor.ready else 1


def _check_profile(profile: str) -> None:
    from ssdlab.registry import run_profiles

    known = ["quick", "endure", *run_profiles()]
    if profile not in known:
        raise UsageError(f"unknown profile {profile!r}; choose one of: {', '.join(known)}")


def _parses(profile: str) -> Callable[[Sequence[str]], None]:
    """What a node will run, parsed by this ssdlab's own parser (the nodes run the same
    version): a bad option is reported once here, not by every node."""

    def check(words: Sequence[str]) -> None:
        from ssdlab.cli.main import build_parser

        try:
            build_parser().parse_args(list(words))
        except SystemExit as stop:
            raise UsageError(
                f"the options after -- are not valid for {profile} (see above); "
                f"{next_command(CommandContext(), [*words[:2], '--help'])} lists them"
            ) from stop

    return check


def run_request_from(args: argparse.Namespace) -> FleetRunRequest:
    _check_profile(args.profile)
    return FleetRunRequest(
        reach_from(args),
        args.profile,
        tuple(args.profile_args),
        db_path(args),
        start_at_s=args.start_at,
        start_in_s=args.start_in,
        detach=args.detach,
        collect=not args.no_collect,
        reconnect_for_s=args.reconnect_for,
        allow_mismatch=args.allow_mismatch,
        context=context_from(args),
    )


def _run(args: argparse.Namespace, out: Console) -> int:
    request = run_request_from(args)
    progress = ProgressLines(Console(stderr=True, highlight=False))
    run = run_fleet(request, progress, _parses(request.profile))
    document = build_run_document(
        run.profile, run.start_at_s, run.outcomes, run.collected, run.summaries
    )
    emit_document(out, document, plots=None, as_json=args.json)
    return 0 if run.ok else 1


def _status(args: argparse.Namespace, out: Console) -> int:
    status = fleet_status(StatusRequest(reach_from(args)))
    document = build_status_document(status.statuses, status.problems)
    emit_document(out, document, plots=None, as_json=args.json)
    return 0 if not status.problems else 1


def _collect(args: argparse.Namespace, out: Console) -> int:
    collected = collect_runs(CollectRequest(reach_from(args), db_path(args)))
    emit_document(out, build_collect_document(collected), plots=None, as_json=args.json)
    return 0 if all(found.problem is None and not found.refused for found in collected) else 1


def _merge(args: argparse.Namespace, out: Console) -> int:
    request = MergeRequest(Path(args.file).expanduser(), args.host, db_path(args))
    merged = merge_export(request)
    emit_document(out, build_collect_document([merged]), plots=None, as_json=args.json)
    return 0 if merged.problem is None and not merged.refused else 1


# what `fleet compare -o FILE` writes, by the file's suffix
COMPARE_FILES = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md", ".json": "json"}


def _compare(args: argparse.Namespace, out: Console) -> int:
    fmt = file_format("fleet compare", args.output, COMPARE_FILES) if args.output else None
    if args.output:
        check_output_path(args.output, "-o")  # refused before any work
    found = compare_fleet(open_db(args), CompareRequest(args.kind, context_from(args)))
    document = build_fleet_compare_document(
        found.kind, found.groups, found.threshold_pct, found.alpha, found.latency
    )
    if fmt is None:
        emit_document(out, document, plots=None, as_json=args.json)
        return 0
    text = document_text(document, fmt, (("written by", f"ssdlab {__version__}"),))
    write_output(args.output, text, "-o")
    wrote = f"wrote {args.output} ({len(text.encode()):,} bytes)"
    out.print(wrote, highlight=False, soft_wrap=True)
    return 0


# action -> (module under ssdlab.cli, function); deploy and load live in modules of their own
HANDLERS = {
    "deploy": ("fleet_deploy", "cmd_fleet_deploy"),
    "wheels": ("fleet_deploy", "cmd_fleet_wheels"),
    "load": ("fleet_load", "cmd_fleet_load"),
}
ACTIONS = {
    "doctor": _doctor,
    "run": _run,
    "status": _status,
    "collect": _collect,
    "merge": _merge,
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
