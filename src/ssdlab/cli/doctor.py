"""`ssdlab doctor` (app/doctor.py): what is installed and possible here; `--cleanup` removes
leftover test files."""

import argparse
import functools
import json
import sys
from typing import TYPE_CHECKING

from ssdlab.app.doctor import DoctorOutcome, DoctorRequest, examine
from ssdlab.cli.store_open import db_path, open_db

if TYPE_CHECKING:  # rich is imported when the console is first used
    from rich.console import Console


def _print_job_folders(out: "Console", outcome: DoctorOutcome) -> None:
    folders = outcome.report.job_folders
    gone = {str(item["path"]) for item in outcome.folders_removed if item["removed"]}
    left = [f for f in folders if f.in_use is None and f.path not in gone]
    for folder in folders:
        if folder.path in gone:
            text = f"cleanup: {folder.path} (fio job folder removed)"
            out.print(text, highlight=False, soft_wrap=True)
        elif folder.in_use is not None:
            text = f"fio job folder {folder.path}: in use, {folder.in_use}"
            out.print(text, highlight=False, soft_wrap=True)
    if left:
        out.print(
            f"fio job folders: {len(left)} left behind by ended ssdlab processes; "
            f"{outcome.cleanup_hint} removes them",
            highlight=False,
            markup=False,
        )


def _print_report(out: "Console", outcome: DoctorOutcome) -> None:
    report = outcome.report
    for tool in report.tools:
        mark = "[green]ok[/green]" if tool.ok else "[red]--[/red]"
        where = f"{tool.version or ''} ({tool.path})" if tool.path else ""
        note = f" [red]{tool.note}[/red]" if tool.note else ""
        out.print(f"{mark} {tool.tool:<9} {where}{note}  [dim]for {tool.purpose}[/dim]")
    missing = [t for t in report.tools if not t.ok]
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
    out.print(f"run store: {outcome.database}", highlight=False, soft_wrap=True)


def cmd_doctor(args: argparse.Namespace, out: "Console") -> int:
    request = DoctorRequest(db_path(args), args.directory, args.cleanup)
    outcome = examine(functools.partial(open_db, args), request)
    if args.json:
        sys.stdout.write(json.dumps(outcome.document, indent=2) + "\n")
        return 0 if outcome.ok else 1
    _print_report(out, outcome)
    _print_job_folders(out, outcome)
    if outcome.cleaned is not None:
        if not outcome.cleaned:
            out.print("cleanup: no leftover test files")
        for item in outcome.cleaned:
            text = f"cleanup: {item['path']} ({item['removed']})"
            out.print(text, highlight=False, soft_wrap=True, markup=False)
    return 0 if outcome.ok else 1
