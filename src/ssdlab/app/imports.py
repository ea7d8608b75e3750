"""`ssdlab import FILE`: a CrystalDiskMark / KDiskMark / AS SSD text export, an Iometer results
file or fio JSON (with the job's logs, `--logs`) read (runner/importer.py), then stored as a
run; the file is read and checked whole before the store is opened."""

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ssdlab.app.command_context import command_context
from ssdlab.errors import ParseError, UsageError
from ssdlab.model.next_command import next_command
from ssdlab.runner.importer import ImportedRun, imported_run, store_imported_run, with_identity
from ssdlab.runner.session import RunSession
from ssdlab.system.user_files import read_user_file

if TYPE_CHECKING:
    from ssdlab.runner.imported_logs import FioLogs

MAX_IMPORT_BYTES = 64 * 2**20


@dataclass(frozen=True, slots=True, kw_only=True)
class ImportRequest:
    """The file; the drive's model, serial or firmware to set or correct; a fio job's logs
    (paths or globs) and how they are read; the store, for the hint (None: the default)."""

    file: str
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    logs: tuple[str, ...] = ()
    core: str = "auto"
    averaged: bool | None = None
    database: Path | None = None


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    """The stored run, what it holds (the tool, its tests, the logs kept with it), the command
    that shows it, and the `--json` document (format `ssdlab-import`)."""

    run_id: int
    origin: str  # the file, as the run names it
    imported: ImportedRun
    logs: tuple[str, ...]
    hint: str
    document: dict[str, Any]


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


def _read_logs(request: ImportRequest, imported: ImportedRun) -> "FioLogs | None":
    if not request.logs:
        return None
    if imported.profile != "fio":
        raise UsageError(
            "--logs goes with fio JSON: a CrystalDiskMark/KDiskMark/AS SSD/Iometer export has "
            "no logs"
        )
    from ssdlab.app.latency import expand_log_paths  # the log reducers (numpy): with --logs
    from ssdlab.runner.imported_logs import read_fio_logs

    paths = expand_log_paths(request.logs)
    logs = read_fio_logs(paths, imported, request.core, request.averaged)
    if not logs.files:
        raise UsageError(f"--logs {' '.join(request.logs)} names no file")
    return logs


def import_file(session: RunSession, request: ImportRequest) -> ImportOutcome:
    """Read the file (and its logs), then store it as a run."""
    origin = str(Path(request.file))
    text = decode_import(read_user_file(request.file, MAX_IMPORT_BYTES, "the import file"), origin)
    if not text.strip():
        raise ParseError(f"{origin} is empty")
    try:
        imported = imported_run(text, origin)
    except ParseError as error:
        raise ParseError(f"{origin}: {error}") from None
    imported = with_identity(imported, request.model, request.serial, request.firmware)
    logs = _read_logs(request, imported)
    if logs is not None:
        from ssdlab.report.latency import latency_log_data
        from ssdlab.runner.imported_logs import with_logs

        reduced = {kind: latency_log_data(result) for kind, result in logs.latency.items()}
        imported = with_logs(imported, logs, reduced)
    files = logs.files if logs is not None else None
    run_id = store_imported_run(session.conn, imported, text, origin, time.time(), files)
    names = tuple(sorted(logs.files)) if logs is not None else ()
    document = {
        "format": "ssdlab-import",
        "format_version": 1,
        "run": run_id,
        "profile": imported.profile,
        "source_tool": imported.source_tool,
        "tests": [step.step_key for step in imported.steps],
        "logs": list(names),
    }
    hint = next_command(command_context(request.database), ("show", str(run_id)))
    return ImportOutcome(run_id, origin, imported, names, hint, document)
