"""`ssdlab doctor`: what is installed and possible here (system/doctor.py), and with `cleanup`
the test files this store's dead runs left behind and the fio job folders of ended ssdlab
processes removed. The store is opened only to clean up."""

import dataclasses
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ssdlab.app.command_context import command_context
from ssdlab.model.next_command import next_command
from ssdlab.model.run import RunStatus
from ssdlab.store.listing import RunFilter, RunListing, list_run_listings
from ssdlab.store.run_rows import load_run
from ssdlab.store.test_files import leftover_test_files, mark_test_file_removed
from ssdlab.system.doctor import DoctorReport, reason_to_keep_test_file, run_doctor
from ssdlab.system.filetarget import is_test_file_name
from ssdlab.system.fio import remove_job_folder
from ssdlab.system.write_gate import Removal, remove_test_file

UNKNOWN_FILE = "not removed: no run of this store created it; remove it by hand if it is yours"


@dataclass(frozen=True, slots=True)
class DoctorRequest:
    """The folder whose filesystem and O_DIRECT are checked, whether to clean up, and the
    store (its path is reported; it is opened only to clean up)."""

    database: Path
    directory: str = "."
    cleanup: bool = False


@dataclass(frozen=True, slots=True)
class DoctorOutcome:
    """The report; with cleanup, each leftover test file and what became of it, and the fio job
    folders removed; the command that cleans up (`cleanup_hint`); the `--json` document
    (format `ssdlab-doctor`)."""

    report: DoctorReport
    database: Path
    cleaned: list[dict[str, object]] | None
    folders_removed: list[dict[str, object]]
    cleanup_hint: str
    document: dict[str, Any]

    @property
    def ok(self) -> bool:
        """fio is there (the first tool): nothing measures without it."""
        return self.report.tools[0].ok


def _cleanup(conn: sqlite3.Connection, directory: str, hint: str) -> list[dict[str, object]]:
    """Remove the test files this store's finished runs left behind, each only while it is
    still the file ssdlab created. Files merely named like test files are listed, never
    removed: they may belong to another store's run, or to nobody ssdlab knows."""
    done: list[dict[str, object]] = []
    for record in leftover_test_files(conn):
        in_use = reason_to_keep_test_file(record.path, load_run(conn, record.run_id))
        if in_use is not None:  # its run may still be alive, or a fio still writes to it
            kept = f"kept: {in_use}; run {hint} again once it has ended"
            done.append({"path": record.path, "run_id": record.run_id, "removed": kept})
            continue
        removal = remove_test_file(record.path, record.identity)
        if removal is not Removal.NOT_OURS:
            mark_test_file_removed(conn, record.file_id, time.time())
        done.append({"path": record.path, "run_id": record.run_id, "removed": removal.value})
    running = list_run_listings(conn, wanted=RunFilter(status=RunStatus.RUNNING))
    active = {r.target_path for r in running if isinstance(r, RunListing)}
    folder = Path(directory).expanduser().absolute()
    known = {str(d["path"]) for d in done}
    for entry in sorted(folder.glob("ssdlab-*.tmp")):
        if is_test_file_name(entry.name) and str(entry) not in active | known:
            done.append({"path": str(entry), "run_id": None, "removed": UNKNOWN_FILE})
    return done


def _cleanup_job_folders(report: DoctorReport) -> list[dict[str, object]]:
    """Remove the fio job folders whose ssdlab and fio are gone (a kill -9, a crash)."""
    return [
        {"path": folder.path, "removed": remove_job_folder(folder)}
        for folder in report.job_folders
        if folder.in_use is None
    ]


def examine(store: Callable[[], sqlite3.Connection], request: DoctorRequest) -> DoctorOutcome:
    """Check this machine and, if asked, clean up; `store` opens the store."""
    report = run_doctor(request.directory)
    hint = next_command(command_context(request.database), ("doctor", "--cleanup"))
    cleaned = _cleanup(store(), request.directory, hint) if request.cleanup else None
    folders_removed = _cleanup_job_folders(report) if request.cleanup else []
    document = {
        "format": "ssdlab-doctor",
        "format_version": 1,
        **dataclasses.asdict(report),
        "database": str(request.database),
        "cleanup": cleaned,
        "job_folders_removed": folders_removed if request.cleanup else None,
    }
    return DoctorOutcome(report, request.database, cleaned, folders_removed, hint, document)
