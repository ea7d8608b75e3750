"""`ssdlab spec add|show|list` (app/specs.py): vendor spec sheets, shipped and user-added."""

import argparse
import functools
import json
import sys

from rich.console import Console
from rich.table import Table

from ssdlab.app.specs import SpecOutcome, SpecRequest, spec_sheets
from ssdlab.cli.store_open import open_db
from ssdlab.model.units import MB, TB, format_size
from ssdlab.parse.spec_sheet import render_spec_sheet


def _mb(value: float | None) -> str:
    return "—" if value is None else f"{value / MB:,.0f}"


def _print_list(out: Console, outcome: SpecOutcome) -> None:
    table = Table(title="spec sheets (MB/s = 10^6 B/s, TB = 10^12 B)")
    for column in ("key", "drive", "capacity", "seq read", "seq write", "TBW", "origin"):
        table.add_column(column, no_wrap=column in ("key", "drive"))
    for s in outcome.sheets:
        table.add_row(
            s.key,
            f"{s.vendor} {s.model}",
            format_size(s.capacity_bytes),
            _mb(s.seq_read_bytes_per_s),
            _mb(s.seq_write_bytes_per_s),
            "—" if s.tbw_bytes is None else f"{s.tbw_bytes / TB:,.0f}",
            outcome.origins[s.key],
        )
    out.print(table)


def cmd_spec(args: argparse.Namespace, out: Console) -> int:
    name = getattr(args, "file", None) or getattr(args, "key", None)
    request = SpecRequest(args.spec_command, name)
    outcome = spec_sheets(functools.partial(open_db, args), request)
    if request.action == "add":
        (sheet,) = outcome.sheets
        verb = "replaced" if outcome.replaced else "added"
        out.print(f"{verb} spec sheet {sheet.key}: {sheet.vendor} {sheet.model}", highlight=False)
    elif args.json:
        sys.stdout.write(json.dumps(outcome.document, indent=2) + "\n")
    elif request.action == "show":
        sys.stdout.write(render_spec_sheet(outcome.sheets[0]))  # verbatim TOML: never wrapped
    else:
        _print_list(out, outcome)
    return 0
