"""`ssdlab import FILE`: a CrystalDiskMark / KDiskMark / AS SSD text export, an Iometer results
file or fio JSON becomes a run."""

import argparse
import json
import sys
import time
from pathlib import Path

from rich.console import Console

from ssdlab.cli.latency import expand_log_paths
from ssdlab.cli.run_session import session_for
from ssdlab.errors import ParseError, UsageError
from ssdlab.report.latency import latency_log_data
from ssdlab.runner.importer import (
    FioLogs,
    ImportedRun,
    imported_run,
    read_fio_logs,
    store_imported_run,
    with_identity,
    with_logs,
)
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
            "CrystalDiskMark, KDiskMark and AS SSD text exports, Iometer results files and fio "
            "JSON output"
        ) from None


def _read_logs(args: argparse.Namespace, imported: ImportedRun) -> FioLogs | None:
    if not args.logs:
        return None
    if imported.profile != "fio":
        raise UsageError(
            "--logs goes with fio JSON: a CrystalDiskMark/KDiskMark/AS SSD/Iometer export has "
            "no logs"
        )
    logs = read_fio_logs(expand_log_paths(args.logs), imported, args.core, args.averaged)
    if not logs.files:
        raise UsageError(f"--logs {' '.join(args.logs)} names no file")
    return logs


def cmd_import(args: argparse.Namespace, out: Console) -> int:
    path = Path(args.file)
    data = read_user_file(path, MAX_IMPORT_BYTES, "the import file")
    origin = str(path)
    text = decode_import(data, origin)
    if not text.strip():
        raise ParseError(f"{origin} is empty")
    try:
        imported = imported_run(text, origin)
    except ParseError as error:
        raise ParseError(f"{origin}: {error}") from None
    imported = with_identity(imported, args.model, args.serial, args.firmware)
    logs = _read_logs(args, imported)
    if logs is not None:
        reduced = {kind: latency_log_data(result) for kind, result in logs.latency.items()}
        imported = with_logs(imported, logs, reduced)
    conn = session_for(args).conn
    files = logs.files if logs is not None else None
    run_id = store_imported_run(conn, imported, text, origin, time.time(), files)
    if args.json:
        doc = {
            "format": "ssdlab-import",
            "format_version": 1,
            "run": run_id,
            "profile": imported.profile,
            "source_tool": imported.source_tool,
            "tests": [f"{s.step_key}" for s in imported.steps],
            "logs": sorted(logs.files) if logs is not None else [],
        }
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        out.print(
            f"imported {origin} as run {run_id}: {imported.source_tool}, "
            f"{len(imported.steps)} test(s)"
            + (f", {len(logs.files)} log(s)" if logs is not None else "")
            + f"; see it with 'ssdlab show {run_id}'",
            highlight=False,
        )
    return 0
