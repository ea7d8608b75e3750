"""`ssdlab import FILE`: a CrystalDiskMark / KDiskMark text export or fio JSON becomes a run."""

import argparse
import json
import sys
import time
from pathlib import Path

from rich.console import Console

from ssdlab.cli.run_session import session_for
from ssdlab.errors import ParseError
from ssdlab.parse.benchmark_text import parse_benchmark_text
from ssdlab.parse.fio_json import parse_fio_json
from ssdlab.runner.importer import benchmark_run, fio_run, store_imported_run
from ssdlab.system.user_files import read_user_file

MAX_IMPORT_BYTES = 64 * 2**20


def decode_import(data: bytes, origin: str) -> str:
    """The file's text: UTF-16 with a byte-order mark (how Windows tools save text) or UTF-8."""
    encoding = "utf-16" if data.startswith((b"\xff\xfe", b"\xfe\xff")) else "utf-8-sig"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        raise ParseError(
            f"{origin}: not a text file ({encoding} cannot decode it); import takes "
            "CrystalDiskMark or KDiskMark text exports and fio JSON output"
        ) from None


def cmd_import(args: argparse.Namespace, out: Console) -> int:
    path = Path(args.file)
    data = read_user_file(path, MAX_IMPORT_BYTES, "the import file")
    origin = str(path)
    text = decode_import(data, origin)
    if not text.strip():
        raise ParseError(f"{origin} is empty")
    if text.lstrip().startswith("{") or '"fio version"' in text:
        try:
            imported = fio_run(parse_fio_json(text), text, origin)
        except ParseError as error:
            raise ParseError(f"{origin}: {error}") from None
    else:
        try:
            imported = benchmark_run(parse_benchmark_text(text), origin)
        except ParseError as error:
            raise ParseError(f"{origin}: {error}") from None
    conn = session_for(args).conn
    run_id = store_imported_run(conn, imported, text, origin, time.time())
    if args.json:
        doc = {
            "format": "ssdlab-import",
            "format_version": 1,
            "run": run_id,
            "profile": imported.profile,
            "source_tool": imported.source_tool,
            "tests": [f"{s.step_key}" for s in imported.steps],
        }
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        out.print(
            f"imported {origin} as run {run_id}: {imported.source_tool}, "
            f"{len(imported.steps)} test(s); see it with 'ssdlab show {run_id}'",
            highlight=False,
        )
    return 0
