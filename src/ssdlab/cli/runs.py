"""`ssdlab runs`: the stored runs listed, newest first, a page at a time.

A listing reads the plain, indexed columns of the run rows only (store/runs.py
`list_run_listings`; schema 8): it takes the same time with 100 runs stored as with 100,000,
and it imports none of the report code, so it starts fast."""

import argparse
import datetime
import json
import os
import sys
import time

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ssdlab.cli.store_open import open_db
from ssdlab.cli.terminal_tables import print_table
from ssdlab.errors import SsdlabError
from ssdlab.model.run import RunStatus
from ssdlab.store.listing import RunFilter, RunListing, count_run_listings, list_run_listings
from ssdlab.store.run_rows import UnreadableRun

_TOOL_SHORT = {"CrystalDiskMark": "CDM", "KDiskMark": "KDM"}


def run_label(run: RunListing) -> str:
    """What a run is, as people name it: 'quick (real)', 'pts-iops', 'sim',
    'import (CDM 8)'."""
    if run.kind == "quick":
        return f"quick ({run.preset})" if run.preset else "quick"
    if run.kind == "import":
        tool = run.source_tool
        if tool is None:
            return "import"
        words = tool.split()
        if words and words[0] in _TOOL_SHORT:
            major = words[1].split(".")[0] if len(words) > 1 else ""
            tool = f"{_TOOL_SHORT[words[0]]} {major}".strip()
        return f"import ({tool})"
    if run.kind == "profile":
        return run.profile
    return run.kind


def local_minute(seconds: float | None) -> str:
    """'2026-11-26 07:10' in local time, '' when not recorded."""
    return "" if seconds is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


class BadFilter(SsdlabError):
    """A `runs` filter that cannot be read: refused in one line."""

    exit_code = 2


def parse_since(text: str) -> float:
    """'2026-11-26' or '2026-11-26T07:30' (local time) as epoch seconds; BadFilter else."""
    try:
        moment = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        raise BadFilter(
            f"--since {text!r} is not a date; give YYYY-MM-DD or YYYY-MM-DDTHH:MM"
        ) from None
    return moment.timestamp()  # a naive time is local time


def run_filter(args: argparse.Namespace) -> RunFilter:
    """The store-side filter of `ssdlab runs` from its options."""
    targets: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()
    if args.target is not None:
        given = os.path.abspath(os.path.expanduser(args.target))
        names = dict.fromkeys((args.target, given, os.path.realpath(given)))
        targets = tuple(names)
        folders = tuple(name for name in names if os.path.isdir(name))
    profile = args.profile.strip() if args.profile else None
    since = parse_since(args.since) if args.since is not None else None
    host = args.host.strip() if getattr(args, "host", None) else None
    drive = args.drive.strip() if getattr(args, "drive", None) else None
    status = getattr(args, "status", None)
    return RunFilter(
        profile=profile,
        since_s=since,
        targets=targets,
        target_folders=folders,
        host=host,
        drive=drive,
        status=None if status is None else RunStatus(status),
        before_id=getattr(args, "before", None),
    )


def _listing_json(r: RunListing | UnreadableRun) -> dict[str, object]:
    """One run of `runs --json`: `host` is the inventory name of a collected run (its node's
    own hostname is `node_host`), this machine's name for a run made here."""
    if isinstance(r, UnreadableRun):
        return {"id": r.run_id, "unreadable": r.problem}
    return {
        "id": r.run_id,
        "profile": run_label(r),
        "kind": r.kind,
        "profile_name": r.profile,
        "preset": r.preset,
        "status": r.status.value,
        "status_reason": r.status_reason,
        "target_kind": r.target_kind,
        "target": r.target_path,
        "started_at_s": r.started_at_s,
        "ended_at_s": r.ended_at_s,
        "uuid": r.uuid,
        "host": r.host,
        "node_host": r.node_host,
        "collected_at_s": r.collected_at_s,
        "drive_model": r.drive_model,
        "drive_serial": r.drive_serial,
    }


def _runs_table(listed: list[RunListing | UnreadableRun]) -> Table:
    """The table of `ssdlab runs`, with a host column when the runs come from more than one
    host (runs collected from a fleet)."""
    with_host = len({r.host for r in listed if isinstance(r, RunListing)}) > 1
    table = Table(title="stored runs")
    for column in ("id", "started", "host", "profile", "status", "target"):
        if column != "host" or with_host:
            table.add_column(column)
    for r in listed:
        if isinstance(r, UnreadableRun):
            cells = [str(r.run_id), "", "", "", "unreadable", r.problem]
        else:
            cells = [
                str(r.run_id),
                local_minute(r.started_at_s),
                escape(r.host),
                escape(run_label(r)),
                r.status.value,
                escape(r.target_path),
            ]
        table.add_row(*(cells if with_host else cells[:2] + cells[3:]))
    return table


def _more_line(listed: list[RunListing | UnreadableRun], offset: int, more: int) -> str:
    """'1,234 older runs match too: see them with --before 1150 (or --offset 50)'."""
    older = "run matches" if more == 1 else "runs match"
    line = f"{more:,} older {older} too: see them with --before {listed[-1].run_id}"
    return line + f" (or --offset {offset + len(listed)}); --limit N shows more at once"


def cmd_runs(args: argparse.Namespace, out: Console) -> int:
    wanted = run_filter(args)
    offset = int(getattr(args, "offset", 0) or 0)
    if offset < 0:
        raise BadFilter(f"--offset {offset} is negative; give 0 or more runs to skip")
    conn = open_db(args)
    listed = list_run_listings(conn, args.limit, wanted, offset)
    more = 0
    if len(listed) == args.limit:  # a full page: count what is left on the indexes
        more = max(count_run_listings(conn, wanted) - offset - len(listed), 0)
    if args.json:
        rows = [_listing_json(r) for r in listed]
        page = {"offset": offset, "limit": args.limit, "more": more}
        document = {"format": "ssdlab-runs", "format_version": 1, "runs": rows, "page": page}
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
        return 0
    if not listed:
        filtered = wanted != RunFilter() or offset > 0
        out.print(
            "no stored run matches these filters"
            if filtered
            else "no runs stored yet; start one with 'ssdlab quick'",
            highlight=False,
        )
        return 0
    print_table(out, _runs_table(listed))
    for r in listed:
        if isinstance(r, UnreadableRun):
            out.print(
                f"run {r.run_id}: unreadable row — {r.problem}; the other runs are intact",
                highlight=False,
                markup=False,
            )
    if more:
        out.print(_more_line(listed, offset, more), highlight=False, markup=False)
    return 0
