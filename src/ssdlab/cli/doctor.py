"""`ssdlab doctor`: what is installed and possible here; `--cleanup` removes leftover test files."""

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

from rich.console import Console

from ssdlab.cli.store_open import db_path, open_db
from ssdlab.model.run import RunStatus
from ssdlab.store.listing import RunFilter, RunListing, list_run_listings
from ssdlab.store.run_rows import load_run
from ssdlab.store.test_files import leftover_test_files, mark_test_file_removed
from ssdlab.system.doctor import DoctorReport, reason_to_keep_test_file, run_doctor
from ssdlab.system.filetarget import is_test_file_name
from ssdlab.system.fio import remove_job_folder
from ssdlab.system.write_gate import Removal, remove_test_file

UNKNOWN_FILE = "not removed: no run of this store created it; remove it by hand if it is yours"


def _cleanup(args: argparse.Namespace) -> list[dict[str, object]]:
    """Remove the test files this store's finished runs left behind, each only while it is
    still the file ssdlab created. Files merely named like test files are listed, never
    removed: they may belong to another store's run, or to nobody ssdlab knows."""
    conn = open_db(args)
    done: list[dict[str, object]] = []
    for record in leftover_test_files(conn):
        in_use = reason_to_keep_test_file(record.path, load_run(conn, record.run_id))
        if in_use is not None:  # its run may still be alive, or a fio still writes to it
            kept = f"kept: {in_use}; run 'ssdlab doctor --cleanup' again once it has ended"
            done.append({"path": record.path, "run_id": record.run_id, "removed": kept})
            continue
        removal = remove_test_file(record.path, record.identity)
        if removal is not Removal.NOT_OURS:
            mark_test_file_removed(conn, record.file_id, time.time())
        done.append({"path": record.path, "run_id": record.run_id, "removed": removal.value})
    running = list_run_listings(conn, wanted=RunFilter(status=RunStatus.RUNNING))
    active = {r.target_path for r in running if isinstance(r, RunListing)}
    folder = Path(args.directory).expanduser().absolute()
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


def _print_job_folders(
    out: Console, report: DoctorReport, removed: list[dict[str, object]]
) -> None:
    gone = {str(item["path"]) for item in removed if item["removed"]}
    left = [f for f in report.job_folders if f.in_use is None and f.path not in gone]
    for folder in report.job_folders:
        if folder.path in gone:
            out.print(
                f"cleanup: {folder.path} (fio job folder removed)", highlight=False, soft_wrap=True
            )
        elif folder.in_use is not None:
            out.print(
                f"fio job folder {folder.path}: in use, {folder.in_use}",
                highlight=False,
                soft_wrap=True,
            )
    if left:
        out.print(
            f"fio job folders: {len(left)} left behind by ended ssdlab processes; "
            "'ssdlab doctor --cleanup' removes them",
            highlight=False,
        )


def cmd_doctor(args: argparse.Namespace, out: Console) -> int:
    report = run_doctor(args.directory)
    cleaned = _cleanup(args) if args.cleanup else None
    folders_removed = _cleanup_job_folders(report) if args.cleanup else []
    missing = [t for t in report.tools if not t.ok]
    if args.json:
        document = {
            "format": "ssdlab-doctor",
            "format_version": 1,
            **dataclasses.asdict(report),
            "database": str(db_path(args)),
            "cleanup": cleaned,
            "job_folders_removed": folders_removed if args.cleanup else None,
        }
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
        return 0 if report.tools[0].ok else 1
    for tool in report.tools:
        mark = "[green]ok[/green]" if tool.ok else "[red]--[/red]"
        where = f"{tool.version or ''} ({tool.path})" if tool.path else ""
        note = f" [red]{tool.note}[/red]" if tool.note else ""
        out.print(f"{mark} {tool.tool:<9} {where}{note}  [dim]for {tool.purpose}[/dim]")
    if missing:
        packages = " ".join(sorted({t.package for t in missing}))
        out.print(f"install what is missing: [bold]sudo apt-get install {packages}[/bold]")
    out.print(f"root: {'yes' if report.is_root else 'no (needed only for block devices)'}")
    out.print(
        f"directory {report.directory}: {report.filesystem or 'unknown filesystem'}",
        soft_wrap=True,
    )
    if report.direct_io_problem:
        hint = "; use --buffered here" if "O_DIRECT" in report.direct_io_problem else ""
        out.print(f"  O_DIRECT: [red]no[/red] — {report.direct_io_problem}{hint}")
    else:
        out.print("  O_DIRECT: [green]yes[/green]")
    out.print(f"loop devices: {report.loop_note}")
    out.print(f"run store: {db_path(args)}", highlight=False, soft_wrap=True)
    _print_job_folders(out, report, folders_removed)
    if cleaned is not None:
        if not cleaned:
            out.print("cleanup: no leftover test files")
        for item in cleaned:
            out.print(
                f"cleanup: {item['path']} ({item['removed']})", highlight=False, soft_wrap=True
            )
    return 0 if report.tools[0].ok else 1
