"""`ssdlab export`: one stored run as JSON, Markdown, CrystalDiskMark text or one of its CSV
tables, each as the record of its kind gives it."""

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ssdlab.app.runs import run_id_of, shown_document, stored_run
from ssdlab.errors import SsdlabError, UsageError
from ssdlab.model.plan import parse_test_shape
from ssdlab.model.profile import ProfilePlan, ProfileStep
from ssdlab.model.run import RunKind, RunRecord
from ssdlab.model.step import StepResult
from ssdlab.model.stored_run import StoredRun
from ssdlab.registry import kind_record
from ssdlab.registry.kind import KindRecord
from ssdlab.report.csv_tables import (
    StepShape,
    health_csv,
    series_csv,
    steady_state_bodies,
    steps_csv,
    windows_csv,
)
from ssdlab.report.document import Document, document_json, render_markdown
from ssdlab.report.export import export_csv
from ssdlab.report.quick import build_quick_report

FORMATS = ("json", "csv", "md", "cdm")
CSV_TABLES = ("passes", "steps", "series", "health", "windows")


@dataclass(frozen=True, slots=True)
class ExportRequest:
    run: str  # a run id, or 'last'
    format: str = "json"  # one of FORMATS
    table: str | None = None  # with csv: one of CSV_TABLES (None: the run's main table)


def export_run(conn: sqlite3.Connection, request: ExportRequest) -> str:
    """The text of the export; a format or table the run does not have is refused."""
    if request.format not in FORMATS:
        raise UsageError(f"--format {request.format}: export writes {', '.join(FORMATS)}")
    if request.table is not None and request.format != "csv":
        raise SsdlabError("--table chooses a CSV table: use it with --format csv")
    stored = stored_run(conn, run_id_of(conn, request.run))
    record = kind_record(stored.run)
    if request.format == "csv":
        return _csv(stored, record, request.table)
    own = record.parts().texts.get(request.format)
    if own is not None:
        return own(stored)
    document = shown_document(stored)
    if request.format == "json":
        return document_json(document)
    if request.format == "md":
        return render_markdown(document)
    raise SsdlabError(_cdm_only(request.format, document))


def _cdm_only(fmt: str, document: Document) -> str:
    """Why a run has no `fmt` export (CrystalDiskMark's text), and what it has."""
    run = next((value.split()[0] for label, value in document.headline if label == "run"), None)
    what = f"run {run} ({document.title})" if run else document.title
    return (
        f"--format {fmt} is CrystalDiskMark's text of a quick run (ssdlab quick, or an imported "
        f"CrystalDiskMark/KDiskMark result); {what} is not one: export it with --format json, "
        "md or csv"
    )


# --- CSV of any run: the tables of report/csv_tables.py ----------------------------------


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


def _plan_shapes(plan: ProfilePlan) -> dict[str, StepShape]:
    """Queue depth, threads and block size of every step of a stored plan."""
    steps = [*plan.steps, *plan.after]
    for loop in plan.loops:
        steps += [*loop.before, *loop.steps]
    return {step.key: _plan_shape(step) for step in steps}


def _label_shapes(steps: Sequence[StepResult]) -> dict[str, StepShape]:
    """The shape a quick test's label names ('SEQ1M Q8T1'); none for other labels."""
    shapes = {}
    for step in steps:
        try:
            shape = parse_test_shape(step.step_label)
        except ValueError:
            continue
        shapes[step.step_key] = StepShape(shape.iodepth, shape.numjobs, shape.block_size_bytes)
    return shapes


def csv_tables(stored: StoredRun, record: KindRecord) -> Mapping[str, Callable[[], str]]:
    """The CSV tables this run has (a table with no stored rows is left out)."""
    run, steps, samples = stored.run, stored.steps, stored.health
    run_id = run.run_id
    tables: dict[str, Callable[[], str]] = {}
    if record.passes:
        tables["passes"] = lambda: export_csv(build_quick_report(run, steps, samples))
    if steps:
        shapes = (
            _plan_shapes(stored.evidence.plan()) if record.plan_shapes else _label_shapes(steps)
        )
        tables["steps"] = lambda: steps_csv(run_id, steps, shapes)
    if any(step.series for step in steps):
        tables["series"] = lambda: series_csv(run_id, steps)
    if samples:
        tables["health"] = lambda: health_csv(run_id, samples)
    if steady_state_bodies(stored.findings):
        tables["windows"] = lambda: windows_csv(run_id, stored.findings)
    return tables


def _kind_name(run: RunRecord) -> str:
    return run.profile if run.kind is RunKind.PROFILE else run.kind


def _csv(stored: StoredRun, record: KindRecord, table: str | None) -> str:
    run = stored.run
    tables = csv_tables(stored, record)
    if not tables:
        raise SsdlabError(
            f"run {run.run_id} ({_kind_name(run)}) stored no rows to write as CSV; "
            "export it with --format json or md"
        )
    chosen = table or record.main_table
    if chosen not in tables:
        raise SsdlabError(
            f"run {run.run_id} ({_kind_name(run)}) has no {chosen} table; its CSV tables: "
            f"{', '.join(tables)} (--table NAME), or --format json or md"
        )
    return tables[chosen]()
