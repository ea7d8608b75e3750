"""`ssdlab fleet load INVENTORY JOB`: one fio job on every host at once, through fio's
client/server over SSH-forwarded unix sockets only (fleet/load_request.py, fleet/load.py),
stored as one run; here its table, or its JSON document (fleet/load_document.py)."""

import argparse
import json
import sys

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ssdlab.analysis.tail_intervals import needs_ios
from ssdlab.cli.fleet import context_from, reach_from
from ssdlab.cli.store_open import db_path
from ssdlab.errors import Interrupted
from ssdlab.fleet.load import LoadOutcome, VersionMismatch
from ssdlab.fleet.load_document import COLUMNS, load_document, load_rows
from ssdlab.fleet.load_request import FleetLoadRequest, load_fleet
from ssdlab.model.next_command import next_command
from ssdlab.model.run import RunStatus
from ssdlab.model.units import format_count
from ssdlab.report.merged_latency_rows import LATENCY_COLUMNS, merged_latency_rows
from ssdlab.report.tail_text import tail_cell


def _table(outcome: LoadOutcome) -> Table:
    table = Table(title=f"fleet load, run {outcome.run_id}")
    for column in COLUMNS:
        left = column in ("host", "direction")
        table.add_column(column, justify="left" if left else "right", no_wrap=column == "host")
    for (name, *cells), last in load_rows(outcome):
        table.add_row(escape(name), *cells, end_section=last)
    return table


def _latency_table(outcome: LoadOutcome) -> Table:
    table = Table(
        title="all hosts' completion latency, from every host's histograms merged",
        caption="a tail only where the second's I/Os support it "
        f"(p99: {format_count(needs_ios(99.0))}, p99.9: {format_count(needs_ios(99.9))} I/Os); "
        "seconds of each host's job",
    )
    for column in LATENCY_COLUMNS:
        table.add_column(column, justify="left" if column == "direction" else "right")
    directions = (outcome.latency or {}).get("directions") or {}
    for cells, last in merged_latency_rows(directions, tail_cell):
        table.add_row(*cells, end_section=last)
    return table


def _print_latency(out: Console, outcome: LoadOutcome) -> None:
    latency = outcome.latency
    if latency is None:
        return
    if latency.get("unavailable"):
        line = f"no latency over time for all hosts: {latency['unavailable']}"
        out.print(line, highlight=False, markup=False)
    elif latency.get("directions"):
        out.print(_latency_table(outcome))


def _print_versions(out: Console, error: VersionMismatch) -> None:
    table = Table(title="fio versions")
    table.add_column("host", no_wrap=True)
    table.add_column("fio", no_wrap=True)
    table.add_row("this machine", escape(error.local))
    for name, version in error.versions.items():
        table.add_row(escape(name), escape(version or "unknown"))
    out.print(table)


def _print(out: Console, outcome: LoadOutcome, show: str) -> None:
    if outcome.steps:
        out.print(_table(outcome))
        _print_latency(out, outcome)
    for host, why in outcome.left_out.items():
        out.print(f"left out: {host}: {why}", highlight=False, markup=False)
    if outcome.status is not RunStatus.COMPLETE:
        out.print(
            f"the load {outcome.status.value}: {outcome.reason}", highlight=False, markup=False
        )
    out.print(f"stored as run {outcome.run_id} ({show})", highlight=False, markup=False)


def cmd_fleet_load(args: argparse.Namespace, out: Console) -> int:
    request = FleetLoadRequest(reach_from(args), args.job, args.server, db_path(args))
    try:
        outcome = load_fleet(request)
    except VersionMismatch as error:
        if not args.json:
            _print_versions(out, error)
        raise
    if args.json:
        sys.stdout.write(json.dumps(load_document(outcome), indent=2) + "\n")
    else:
        _print(out, outcome, next_command(context_from(args), ("show", str(outcome.run_id))))
    if outcome.status is RunStatus.INTERRUPTED:
        return Interrupted.exit_code
    return 0 if outcome.status is RunStatus.COMPLETE else 1
