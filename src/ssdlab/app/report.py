"""`ssdlab report`: stored runs of any kind as one HTML or Markdown file, each run's document
as its kind lays it out, with the fio job files it ran and where it came from; runs of one
family are compared up front."""

import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ssdlab import __version__
from ssdlab.app.compare import comparison_document, same_family
from ssdlab.app.runs import run_document, stored_runs
from ssdlab.app.spec_sheets import known_spec_sheets
from ssdlab.model.run import RunRecord
from ssdlab.model.spec import SpecSheet
from ssdlab.model.step import StepResult
from ssdlab.model.stored_run import StoredRun
from ssdlab.model.units import format_time
from ssdlab.registry import kind_record
from ssdlab.report.chart_spec import BUNDLE_GLOBALS, bundle_version, javascript_bundle
from ssdlab.report.document import Section
from ssdlab.report.html import ReportPart, render_html, render_markdown_report
from ssdlab.system.chart_bundle import bundle_file_name, cache_folder, cached_bundle

REPORT_FORMATS = ("html", "md", "pdf")  # pdf: the HTML as it prints, without scripts


@dataclass(frozen=True, slots=True)
class ReportRequest:
    runs: tuple[str, ...]  # run ids, or 'last'
    format: str = "html"  # one of REPORT_FORMATS
    title: str | None = None  # None: 'ssdlab report: run 3' or 'ssdlab report: runs 3, 7'
    threshold_pct: float = 5.0  # the comparison up front: smallest change called a difference
    alpha: float = 0.05  # and the significance level of Welch's t-test


def build_report(conn: sqlite3.Connection, request: ReportRequest) -> str:
    """The report as one HTML file (for `pdf`: the static HTML that is printed) or Markdown."""
    stored = stored_runs(conn, request.runs)
    runs = [s.run for s in stored]
    parts = report_parts(stored, known_spec_sheets(conn))
    title = request.title or (
        f"ssdlab report: run {runs[0].run_id}"
        if len(runs) == 1
        else f"ssdlab report: runs {', '.join(str(r.run_id) for r in runs)}"
    )
    front: tuple[Section, ...] = ()
    if len(runs) > 1 and same_family(stored):
        front = comparison_document(stored, request.threshold_pct, request.alpha, ()).sections
    provenance = report_provenance(runs)
    if request.format == "md":
        return render_markdown_report(title, parts, front=front, provenance=provenance)
    return render_html(
        title,
        parts,
        front=front,
        provenance=provenance,
        interactive=request.format != "pdf",
        bundle=chart_library,
    )


def chart_library() -> str:
    """The HTML page's chart library: built by vl-convert once per version, then read from the
    cache folder (system/chart_bundle.py)."""
    name = bundle_file_name(bundle_version(), BUNDLE_GLOBALS)
    return cached_bundle(name, javascript_bundle, cache_folder())


def report_parts(stored: Sequence[StoredRun], specs: Sequence[SpecSheet] = ()) -> list[ReportPart]:
    return [
        ReportPart(
            anchor=f"run-{s.run.run_id}",
            document=run_document(s, specs),
            job_files=job_files(s),
            provenance=provenance(s.run),
        )
        for s in stored
    ]


def _step_name(step: StepResult, passes: bool, repeated: bool) -> str:
    """A run of passes' test and pass ('SEQ1M Q8T1 read, pass 2'), or a profile step's label
    (and its round when the step is repeated: 'randwrite-4k iteration, round 3')."""
    if not passes:
        return f"{step.step_label}, round {step.round_index}" if repeated else step.step_label
    which = "warm-up" if step.round_index == 0 else f"pass {step.round_index}"
    return f"{step.step_label} {step.direction}, {which}"


def _capture_name(tool: str, text: str) -> str:
    """A capture no step result names: the test file's preparation, or its tool's job."""
    first = text.partition("\n")[0]
    if first.startswith(";") and "prepare" in first:
        return "test file preparation"
    return f"{tool} job (no result stored)"


def job_files(stored: StoredRun) -> tuple[tuple[str, str], ...]:
    """The run's fio job files, each distinct text once, named by the test that ran it
    ('SEQ1M Q8T1 read, pass 1, and 2 more runs of it')."""
    passes = kind_record(stored.run).passes
    keys = Counter(s.step_key for s in stored.steps)
    steps = {
        s.capture_id: _step_name(s, passes, keys[s.step_key] > 1)
        for s in stored.steps
        if s.capture_id is not None
    }
    seen: dict[str, list[str]] = {}
    for job in stored.evidence.job_inputs():
        name = steps.get(job.capture_id) or _capture_name(job.tool, job.text)
        seen.setdefault(job.text, []).append(name)
    files = []
    for text, names in seen.items():
        more = len(names) - 1
        runs = f", and {more} more run{'s' if more > 1 else ''} of it" if more else ""
        files.append((f"{names[0]}{runs}", text))
    return tuple(files)


def _when(ts: float | None) -> str:
    return "—" if ts is None else format_time(ts)


def provenance(run: RunRecord) -> tuple[tuple[str, str], ...]:
    env = run.environment
    rows = [
        ("run id", str(run.run_id)),
        ("kind", run.kind),
        ("profile", f"{run.profile} version {run.profile_version}"),
        ("started", _when(run.started_at_s)),
        ("ended", _when(run.ended_at_s)),
    ]
    source = run.settings.get("source_tool")
    if source:
        rows.append(("imported from", f"{source} ({run.target_path})"))
    else:
        rows.append(("host", run.host))
    rows.append(("recorded by", f"ssdlab {env.get('ssdlab_version') or 'version unknown'}"))
    if env.get("fio_version"):
        rows.append(("fio", str(env["fio_version"])))
    if env.get("kernel"):
        rows.append(("kernel", str(env["kernel"])))
    return tuple(rows)


def report_provenance(runs: Sequence[RunRecord]) -> tuple[tuple[str, str], ...]:
    return (
        ("written by", f"ssdlab {__version__}"),
        ("runs", ", ".join(str(r.run_id) for r in runs)),
        ("profiles", ", ".join(sorted({f"{r.profile} v{r.profile_version}" for r in runs}))),
    )
