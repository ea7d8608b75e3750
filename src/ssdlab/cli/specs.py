"""`ssdlab spec add|show|list`: vendor spec sheets, shipped and user-added."""

import argparse
import json
import sqlite3
import sys
import time
from dataclasses import asdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ssdlab.app.spec_sheets import known_spec_sheets
from ssdlab.cli.store_open import open_db
from ssdlab.errors import UsageError
from ssdlab.model.spec import SpecSheet
from ssdlab.model.units import MB, TB, format_size
from ssdlab.parse.spec_sheet import parse_spec_sheet, render_spec_sheet
from ssdlab.store.specs import StoredSpecSheet, load_spec_sheets, put_spec_sheet
from ssdlab.system.user_files import SMALL_FILE_BYTES, read_user_text


def _origin_of(conn: sqlite3.Connection) -> dict[str, str]:
    return {s.key: f"added from {s.origin}" for s in load_spec_sheets(conn)}


def _mb(value: float | None) -> str:
    return "—" if value is None else f"{value / MB:,.0f}"


def _spec_add(args: argparse.Namespace, out: Console) -> int:
    path = Path(args.file)
    text = read_user_text(path, SMALL_FILE_BYTES, "the spec sheet")
    sheet = parse_spec_sheet(text, str(path))
    conn = open_db(args)
    replaced = put_spec_sheet(conn, StoredSpecSheet(sheet.key, text, str(path), time.time()))
    verb = "replaced" if replaced else "added"
    out.print(f"{verb} spec sheet {sheet.key}: {sheet.vendor} {sheet.model}", highlight=False)
    return 0


def _find(conn: sqlite3.Connection, key: str) -> SpecSheet:
    sheets = known_spec_sheets(conn)
    for sheet in sheets:
        if sheet.key == key:
            return sheet
    keys = ", ".join(s.key for s in sheets)
    raise UsageError(f"no spec sheet {key!r}; known: {keys}")


def _spec_show(args: argparse.Namespace, _out: Console) -> int:
    conn = open_db(args)
    sheet = _find(conn, args.key)
    if args.json:
        sys.stdout.write(json.dumps(asdict(sheet), indent=2) + "\n")
    else:
        sys.stdout.write(render_spec_sheet(sheet))  # verbatim TOML: never wrapped
    return 0


def _spec_list(args: argparse.Namespace, out: Console) -> int:
    conn = open_db(args)
    sheets = known_spec_sheets(conn)
    origins = _origin_of(conn)
    if args.json:
        rows = [{**asdict(s), "origin": origins.get(s.key, "shipped")} for s in sheets]
        sys.stdout.write(
            json.dumps({"format": "ssdlab-specs", "format_version": 1, "specs": rows}, indent=2)
            + "\n"
        )
        return 0
    table = Table(title="spec sheets (MB/s = 10^6 B/s, TB = 10^12 B)")
    for column in ("key", "drive", "capacity", "seq read", "seq write", "TBW", "origin"):
        table.add_column(column, no_wrap=column in ("key", "drive"))
    for s in sheets:
        table.add_row(
            s.key,
            f"{s.vendor} {s.model}",
            format_size(s.capacity_bytes),
            _mb(s.seq_read_bytes_per_s),
            _mb(s.seq_write_bytes_per_s),
            "—" if s.tbw_bytes is None else f"{s.tbw_bytes / TB:,.0f}",
            origins.get(s.key, "shipped"),
        )
    out.print(table)
    return 0


def cmd_spec(args: argparse.Namespace, out: Console) -> int:
    actions = {"add": _spec_add, "show": _spec_show, "list": _spec_list}
    return actions[args.spec_command](args, out)
