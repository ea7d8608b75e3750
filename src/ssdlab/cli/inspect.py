"""`ssdlab show` and `ssdlab export`: one stored run read back, as its kind shows it."""

import argparse
import sys
from typing import TYPE_CHECKING

from ssdlab.app.export import ExportRequest, export_run
from ssdlab.app.show import ShownRun, ShowRequest, show_run
from ssdlab.cli.render import print_document
from ssdlab.cli.runs import minute
from ssdlab.cli.store_open import open_db
from ssdlab.model.run import RunRecord
from ssdlab.report.document import document_json
from ssdlab.system.write_gate import write_output

if TYPE_CHECKING:  # rich is imported when the console is first used
    from rich.console import Console


def _when(started_at_s: object, ended_at_s: object) -> str:
    """'started 2026-11-26 07:10 UTC, ended 2026-11-26 07:12 UTC'."""
    started = minute(float(started_at_s)) if isinstance(started_at_s, int | float) else "n/a"
    ended = minute(float(ended_at_s)) if isinstance(ended_at_s, int | float) else "not recorded"
    return f"started {started}, ended {ended}"


def origin_line(run: RunRecord) -> str:
    """'run 4 on host lab-3 (node n3.example, collected 2026-11-26 12:40 UTC), uuid
    …': where a run was made; the node and the collect only for a collected run."""
    where = f"run {run.run_id} on host {run.host}"
    if run.collected_at_s is not None:
        where += (
            f" (node {run.node_host or 'not recorded'}, collected {minute(run.collected_at_s)})"
        )
    return f"{where}, uuid {run.uuid}"


def _print_shown(out: "Console", shown: ShownRun) -> None:
    """The document, then when and where the run was made, then its job files if asked."""
    run = shown.run
    print_document(out, shown.document)
    when = f"run {run.run_id}: {_when(run.started_at_s, run.ended_at_s)}"
    out.print(when, highlight=False, markup=False)
    out.print(origin_line(run), highlight=False, markup=False)
    for job in shown.jobs:
        out.print(f"\n### capture {job.capture_id}", highlight=False)
        out.print(job.text, highlight=False, markup=False)


def cmd_show(args: argparse.Namespace, out: "Console") -> int:
    shown = show_run(open_db(args), ShowRequest(args.run, jobs=args.jobs and not args.json))
    if args.json:
        sys.stdout.write(document_json(shown.document))
    else:
        _print_shown(out, shown)
    return 0


def cmd_export(args: argparse.Namespace, out: "Console") -> int:
    request = ExportRequest(args.run, args.format, args.table)
    text = export_run(open_db(args), request)
    if args.output:
        write_output(args.output, text, "-o")
        out.print(f"wrote {args.output}", highlight=False, soft_wrap=True)
    else:
        sys.stdout.write(text)
    return 0
