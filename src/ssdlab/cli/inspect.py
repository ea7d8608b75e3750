"""`ssdlab runs`, `show` and `export`: stored runs, read back."""

import argparse
import sqlite3
import sys
from collections.abc import Callable

from rich.console import Console
from rich.markup import escape

from ssdlab.cli.documents import HEALTH_PROFILES, run_baseline, sim_document
from ssdlab.cli.render import print_document, print_quick_report
from ssdlab.cli.runs import local_minute as _date
from ssdlab.cli.store_access import (
    load_profile_results,
    open_db,
    run_health,
    run_id_arg,
    stored_run,
)
from ssdlab.errors import SsdlabError
from ssdlab.model.plan import parse_test_shape
from ssdlab.model.profile import ProfileStep
from ssdlab.model.run import RunKind, RunRecord
from ssdlab.model.step import StepResult
from ssdlab.registry import profile_record, profile_records
from ssdlab.report.csv_tables import (
    StepShape,
    health_csv,
    series_csv,
    steady_state_bodies,
    steps_csv,
    windows_csv,
)
from ssdlab.report.document import Document, document_json, render_markdown
from ssdlab.report.export import EXPORTERS, export_csv
from ssdlab.report.quick import QuickReport, build_quick_report
from ssdlab.report.quick_document import baseline_lines, quick_json
from ssdlab.runner.sim import SWEEP_PROFILE
from ssdlab.store.captures import load_capture_inputs
from ssdlab.store.findings import load_findings
from ssdlab.store.profile_runs import profile_plan_of
from ssdlab.store.run_rows import load_run
from ssdlab.store.steps import load_step_results
from ssdlab.system.write_gate import write_output


def _load_report(args: argparse.Namespace) -> QuickReport:
    conn = open_db(args)
    run_id = run_id_arg(conn, args.run)
    run = stored_run(conn, run_id)
    return build_quick_report(run, load_step_results(conn, run_id), run_health(conn, run_id))


def _profile_document(args: argparse.Namespace) -> Document | None:
    """The report of a profile run (None for a quick run)."""
    conn = open_db(args)
    run = load_run(conn, run_id_arg(conn, args.run))
    if run is not None and run.kind is RunKind.SIM:  # simulated drives (ssdlab sim)
        return sim_document(conn, run)
    if run is None or run.kind is not RunKind.PROFILE:
        return None
    if run.profile not in profile_records():
        raise SsdlabError(f"run {run.run_id} is a {run.profile} run, which this ssdlab cannot show")
    return profile_record(run.profile).build_document(load_profile_results(conn, run.run_id))


def _print_jobs(args: argparse.Namespace, out: Console, run_id: int) -> None:
    conn = open_db(args)
    for capture_id, _tool, text in load_capture_inputs(conn, run_id):
        out.print(f"\n### capture {capture_id}", highlight=False)
        out.print(text, highlight=False, markup=False)


def _when(started_at_s: object, ended_at_s: object) -> str:
    """'started 2026-11-26 07:10, ended 2026-11-26 07:12 (local time)'."""
    started = _date(float(started_at_s)) if isinstance(started_at_s, int | float) else "n/a"
    ended = _date(float(ended_at_s)) if isinstance(ended_at_s, int | float) else "not recorded"
    return f"started {started}, ended {ended} (local time)"


def origin_line(run: RunRecord) -> str:
    """'run 4 on host lab-3 (node n3.example, collected 2026-11-26 12:40 local time), uuid
    …': where a run was made; the node and the collect only for a collected run."""
    where = f"run {run.run_id} on host {run.host}"
    if run.collected_at_s is not None:
        where += (
            f" (node {run.node_host or 'not recorded'}, collected "
            f"{_date(run.collected_at_s)} local time)"
        )
    return f"{where}, uuid {run.uuid}"


def _print_run_lines(out: Console, run: RunRecord) -> None:
    """The lines under a shown run: when it ran, and where (host, uuid, the collect)."""
    out.print(
        f"run {run.run_id}: {_when(run.started_at_s, run.ended_at_s)}",
        highlight=False,
        markup=False,
    )
    out.print(origin_line(run), highlight=False, markup=False)


def cmd_show(args: argparse.Namespace, out: Console) -> int:
    document = _profile_document(args)
    if document is not None:
        if args.json:
            sys.stdout.write(document_json(document))
            return 0
        print_document(out, document)
        conn = open_db(args)
        run = load_run(conn, run_id_arg(conn, args.run))
        if run is not None:
            _print_run_lines(out, run)
        if args.jobs:
            _print_jobs(args, out, int(document.data["run"]["id"]))
        return 0
    report = _load_report(args)
    baseline = run_baseline(open_db(args), report.run.run_id)
    if args.json:
        sys.stdout.write(quick_json(report, baseline))
        return 0
    print_quick_report(out, report)
    for line in baseline_lines(baseline) if baseline is not None else ():
        out.print(escape(line), highlight=False)
    _print_run_lines(out, report.run)
    if args.jobs:
        _print_jobs(args, out, report.run.run_id)
    return 0


def _quick_only_format(fmt: str, document: Document) -> str:
    """Why a profile run has no `fmt` export (CrystalDiskMark's text), and what it has."""
    run = next((value.split()[0] for label, value in document.headline if label == "run"), None)
    what = f"run {run} ({document.title})" if run else document.title
    return (
        f"--format {fmt} is CrystalDiskMark's text of a quick run (ssdlab quick, or an imported "
        f"CrystalDiskMark/KDiskMark result); {what} is not one: export it with --format json, "
        "md or csv"
    )


def cmd_export(args: argparse.Namespace, out: Console) -> int:
    if args.table is not None and args.format != "csv":
        raise SsdlabError("--table chooses a CSV table: use it with --format csv")
    document = None if args.format == "csv" else _profile_document(args)
    if args.format == "csv":
        text = _export_csv(args)
    elif document is not None:
        if args.format not in ("json", "md"):
            raise SsdlabError(_quick_only_format(args.format, document))
        text = document_json(document) if args.format == "json" else render_markdown(document)
    else:
        report = _load_report(args)
        baseline = run_baseline(open_db(args), report.run.run_id)
        text = (
            quick_json(report, baseline)
            if args.format == "json"
            else EXPORTERS[args.format](report)
        )
    if args.output:
        write_output(args.output, text, "-o")
        out.print(f"wrote {args.output}", highlight=False, soft_wrap=True)
    else:
        sys.stdout.write(text)
    return 0


# --- CSV of any run: the tables of report/csv_tables.py, read from the store --------------

CSV_TABLES = ("passes", "steps", "series", "health", "windows")


def _int_of(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def _job_option(step: ProfileStep, name: str) -> object:
    """An option of the step's fio job: its own section's, else the [global] one."""
    if step.job is None:
        return None
    options = [*step.job.global_options, *(o for _, sec in step.job.sections for o in sec)]
    found = [value for key, value in options if key == name]
    return found[-1] if found else None


def _plan_shape(step: ProfileStep) -> StepShape:
    def first(*values: object) -> int | None:
        return next((n for n in map(_int_of, values) if n is not None), None)

    return StepShape(
        queue_depth=first(step.param("iodepth"), _job_option(step, "iodepth")),
        threads=first(step.param("threads"), _job_option(step, "numjobs")),
        block_size_bytes=first(step.param("block_size_bytes")),
    )


def _plan_shapes(run: RunRecord) -> dict[str, StepShape]:
    """Queue depth, threads and block size of every step of a profile run's stored plan."""
    plan = profile_plan_of(run)
    steps = [*plan.steps, *plan.after]
    for loop in plan.loops:
        steps += [*loop.before, *loop.steps]
    return {step.key: _plan_shape(step) for step in steps}


def _label_shapes(steps: list[StepResult]) -> dict[str, StepShape]:
    """The shape a quick test's label names ('SEQ1M Q8T1'); none for other labels."""
    shapes = {}
    for step in steps:
        try:
            shape = parse_test_shape(step.step_label)
        except ValueError:
            continue
        shapes[step.step_key] = StepShape(shape.iodepth, shape.numjobs, shape.block_size_bytes)
    return shapes


def _default_table(run: RunRecord) -> str:
    """A run kind's main table: the passes of a quick run, the health series of a health run,
    the intervals of a simulated drive, the steps of everything else."""
    if run.profile in HEALTH_PROFILES:
        return "health"
    if run.kind in (RunKind.QUICK, RunKind.IMPORT, RunKind.FLEET_LOAD):
        return "passes"
    if run.kind is RunKind.SIM and run.profile != SWEEP_PROFILE:
        return "series"
    return "steps"


def _csv_tables(conn: sqlite3.Connection, run: RunRecord) -> dict[str, Callable[[], str]]:
    """The CSV tables this run has (a table with no stored rows is left out)."""
    run_id = run.run_id
    steps = load_step_results(conn, run_id)
    samples = run_health(conn, run_id)
    findings = {f.name: f.body for f in load_findings(conn, run_id)}
    tables: dict[str, Callable[[], str]] = {}
    if (
        run.kind in (RunKind.QUICK, RunKind.IMPORT, RunKind.FLEET_LOAD)
        and run.profile not in HEALTH_PROFILES
    ):
        tables["passes"] = lambda: export_csv(build_quick_report(run, steps, samples))
    if steps:
        shapes = _plan_shapes(run) if run.kind is RunKind.PROFILE else _label_shapes(steps)
        tables["steps"] = lambda: steps_csv(run_id, steps, shapes)
    if any(step.series for step in steps):
        tables["series"] = lambda: series_csv(run_id, steps)
    if samples:
        tables["health"] = lambda: health_csv(run_id, samples)
    if steady_state_bodies(findings):
        tables["windows"] = lambda: windows_csv(run_id, findings)
    return tables


def _export_csv(args: argparse.Namespace) -> str:
    conn = open_db(args)
    run_id = run_id_arg(conn, args.run)
    run = stored_run(conn, run_id)
    tables = _csv_tables(conn, run)
    if not tables:
        raise SsdlabError(
            f"run {run_id} ({_kind_name(run)}) stored no rows to write as CSV; "
            "export it with --format json or md"
        )
    table = args.table or _default_table(run)
    if table not in tables:
        raise SsdlabError(
            f"run {run_id} ({_kind_name(run)}) has no {table} table; its CSV tables: "
            f"{', '.join(tables)} (--table NAME), or --format json or md"
        )
    return tables[table]()


def _kind_name(run: RunRecord) -> str:
    return run.profile if run.kind is RunKind.PROFILE else run.kind
