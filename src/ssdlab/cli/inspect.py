"""`ssdlab runs`, `show` and `export`: stored runs, read back."""

import argparse
import json
import sys
import time

from rich.console import Console
from rich.table import Table

from ssdlab.errors import SsdlabError, UsageError
from ssdlab.report.document import Document, document_json, render_markdown
from ssdlab.report.export import EXPORTERS, export_json
from ssdlab.report.quick import QuickReport, build_quick_report
from ssdlab.store import runs as store
from ssdlab.system.write_gate import write_output

from .profiles import PROFILES, document_builder_of
from .render import print_document, print_quick_report
from .store_access import load_profile_results, open_db, run_health, run_id_arg


def _load_report(args: argparse.Namespace) -> QuickReport:
    conn = open_db(args)
    run_id = run_id_arg(conn, args.run)
    run = store.load_run(conn, run_id)
    if run is None:
        raise UsageError(f"there is no run {run_id} in the store; 'ssdlab runs' lists them")
    return build_quick_report(run, store.load_step_results(conn, run_id), run_health(conn, run_id))


def cmd_runs(args: argparse.Namespace, out: Console) -> int:
    conn = open_db(args)
    listed = store.list_run_rows(conn, args.limit)
    if args.json:
        rows = [
            {"id": r.run_id, "unreadable": r.problem}
            if isinstance(r, store.UnreadableRun)
            else {
                "id": r.run_id,
                "kind": r.kind,
                "preset": r.preset,
                "status": r.status.value,
                "status_reason": r.status_reason,
                "target": r.target_path,
                "started_at_s": r.started_at_s,
                "ended_at_s": r.ended_at_s,
            }
            for r in listed
        ]
        sys.stdout.write(
            json.dumps({"format": "ssdlab-runs", "format_version": 1, "runs": rows}, indent=2)
            + "\n"
        )
        return 0
    if not listed:
        out.print("no runs stored yet; start one with 'ssdlab quick'")
        return 0
    table = Table(title="stored runs")
    for column in ("id", "started", "kind", "preset", "status", "target"):
        table.add_column(column)
    for r in listed:
        if isinstance(r, store.UnreadableRun):
            table.add_row(str(r.run_id), "", "", "", "unreadable", r.problem)
            continue
        table.add_row(
            str(r.run_id),
            time.strftime("%Y-%m-%d %H:%M", time.localtime(r.started_at_s)),
            r.kind,
            r.preset or "",
            r.status.value,
            r.target_path,
        )
    out.print(table)
    for r in listed:
        if isinstance(r, store.UnreadableRun):
            out.print(
                f"run {r.run_id}: unreadable row — {r.problem}; the other runs are intact",
                highlight=False,
                markup=False,
            )
    return 0


def _profile_document(args: argparse.Namespace) -> Document | None:
    """The report of a profile run (None for a quick run)."""
    conn = open_db(args)
    run = store.load_run(conn, run_id_arg(conn, args.run))
    if run is not None and run.kind == "sim":  # simulated drives (ssdlab sim)
        from .sim import sim_document

        return sim_document(conn, run)
    if run is None or run.kind != "profile":
        return None
    if run.profile not in PROFILES:
        raise SsdlabError(f"run {run.run_id} is a {run.profile} run, which this ssdlab cannot show")
    return document_builder_of(run.profile)(load_profile_results(conn, run.run_id))


def _print_jobs(args: argparse.Namespace, out: Console, run_id: int) -> None:
    conn = open_db(args)
    for capture_id, _tool, text in store.load_capture_inputs(conn, run_id):
        out.print(f"\n### capture {capture_id}", highlight=False)
        out.print(text, highlight=False, markup=False)


def cmd_show(args: argparse.Namespace, out: Console) -> int:
    document = _profile_document(args)
    if document is not None:
        if args.json:
            sys.stdout.write(document_json(document))
            return 0
        print_document(out, document)
        if args.jobs:
            _print_jobs(args, out, int(document.data["run"]["id"]))
        return 0
    report = _load_report(args)
    if args.json:
        sys.stdout.write(export_json(report))
        return 0
    print_quick_report(out, report)
    if args.jobs:
        _print_jobs(args, out, report.run.run_id)
    return 0


def cmd_export(args: argparse.Namespace, out: Console) -> int:
    document = _profile_document(args)
    if document is not None:
        if args.format not in ("json", "md"):
            raise UsageError(
                f"--format {args.format} is for quick runs; profile runs export as json or md"
            )
        text = document_json(document) if args.format == "json" else render_markdown(document)
    else:
        text = EXPORTERS[args.format](_load_report(args))
    if args.output:
        write_output(args.output, text, "-o")
        out.print(f"wrote {args.output}", highlight=False)
    else:
        sys.stdout.write(text)
    return 0
