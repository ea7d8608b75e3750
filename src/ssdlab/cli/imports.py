"""`ssdlab import FILE` (app/imports.py): a CrystalDiskMark / KDiskMark / AS SSD text export, an
Iometer results file or fio JSON becomes a run."""

import argparse
import json
import sys
from typing import TYPE_CHECKING

from ssdlab.app.imports import ImportRequest, import_file
from ssdlab.cli.run_session import session_for
from ssdlab.cli.store_open import db_path

if TYPE_CHECKING:  # rich is imported when the console is first used
    from rich.console import Console


def request_from(args: argparse.Namespace) -> ImportRequest:
    return ImportRequest(
        file=args.file,
        model=args.model,
        serial=args.serial,
        firmware=args.firmware,
        logs=tuple(args.logs or ()),
        core=args.core,
        averaged=args.averaged,
        database=db_path(args),
    )


def cmd_import(args: argparse.Namespace, out: "Console") -> int:
    outcome = import_file(session_for(args), request_from(args))
    if args.json:
        sys.stdout.write(json.dumps(outcome.document, indent=2) + "\n")
        return 0
    imported = outcome.imported
    logs = f", {len(outcome.logs)} log(s)" if outcome.logs else ""
    out.print(
        f"imported {outcome.origin} as run {outcome.run_id}: {imported.source_tool}, "
        f"{len(imported.steps)} test(s){logs}; see it with {outcome.hint}",
        highlight=False,
        markup=False,
    )
    return 0
