"""`ssdlab runs`: the stored runs listed, newest first, a page at a time (app/listing.py reads
the plain, indexed columns of the run rows only, and imports none of the report code, so the
command starts fast)."""

import argparse
import datetime
import json
import os
import sys
from typing import TYPE_CHECKING

from ssdlab.app.listing import Listing, ListingRequest, list_stored_runs, listing_json, run_label
from ssdlab.cli.store_open import open_db
from ssdlab.errors import SsdlabError
from ssdlab.model.run import RunStatus
from ssdlab.model.units import format_time
from ssdlab.store.listing import RunFilter, RunListing
from ssdlab.store.run_rows import UnreadableRun

if TYPE_CHECKING:  # rich is imported to print the table, not for --json
    from rich.console import Console
    from rich.table import Table


def minute(seconds: float | None) -> str:
    """'2026-11-26 07:10 UTC', '' when not recorded."""
    return "" if seconds is None else format_time(seconds, "minute")


class BadFilter(SsdlabError):
    """A `runs` filter that cannot be read: refused in one line."""

    exit_code = 2


def parse_since(text: str) -> float:
    """'2026-11-26' or '2026-11-26T07:30' (UTC, as `runs` prints times, unless it names its
    zone) as epoch seconds; BadFilter else."""
    try:
        moment = datetime.datetime.fromisoformat(text.strip())
    except ValueError:
        raise BadFilter(
            f"--since {text!r} is not a date; give YYYY-MM-DD or YYYY-MM-DDTHH:MM"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.timestamp()


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


def request_from(args: argparse.Namespace) -> ListingRequest:
    wanted = run_filter(args)
    offset = int(getattr(args, "offset", 0) or 0)
    if offset < 0:
        raise BadFilter(f"--offset {offset} is negative; give 0 or more runs to skip")
    return ListingRequest(wanted, args.limit, offset)


def _runs_table(listed: tuple[RunListing | UnreadableRun, ...]) -> "Table":
    """The table of `ssdlab runs`, with a host column when the runs come from more than one
    host (runs collected from a fleet)."""
    from rich.markup import escape
    from rich.table import Table

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
                minute(r.started_at_s),
                escape(r.host),
                escape(run_label(r)),
                r.status.value,
                escape(r.target_path),
            ]
        table.add_row(*(cells if with_host else cells[:2] + cells[3:]))
    return table


def _more_line(listing: Listing) -> str:
    """'1,234 older runs match too: see them with --before 1150 (or --offset 50)'."""
    listed, more = listing.runs, listing.more
    older = "run matches" if more == 1 else "runs match"
    line = f"{more:,} older {older} too: see them with --before {listed[-1].run_id}"
    offset = listing.request.offset + len(listed)
    return line + f" (or --offset {offset}); --limit N shows more at once"


def cmd_runs(args: argparse.Namespace, out: "Console") -> int:
    request = request_from(args)
    listing = list_stored_runs(open_db(args), request)
    if args.json:
        sys.stdout.write(json.dumps(listing_json(listing), indent=2) + "\n")
        return 0
    if not listing.runs:
        out.print(
            "no stored run matches these filters"
            if listing.filtered
            else "no runs stored yet; start one with 'ssdlab quick'",
            highlight=False,
        )
        return 0
    from ssdlab.cli.terminal_tables import print_table

    print_table(out, _runs_table(listing.runs))
    for r in listing.runs:
        if isinstance(r, UnreadableRun):
            out.print(
                f"run {r.run_id}: unreadable row — {r.problem}; the other runs are intact",
                highlight=False,
                markup=False,
            )
    if listing.more:
        out.print(_more_line(listing), highlight=False, markup=False)
    return 0
