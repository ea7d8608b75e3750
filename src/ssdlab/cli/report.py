"""`ssdlab report` (runs as one HTML or Markdown file) and `ssdlab compare` (runs side by side,
with significance and `--fail-if` gates)."""

import argparse
import sqlite3
import sys
from pathlib import Path

from rich.console import Console

from ssdlab.analysis.compare import (
    Comparison,
    MeasuredTest,
    MetricSamples,
    check_fail_rules,
    compare_runs,
    measured_tests,
    parse_fail_rule,
)
from ssdlab.analysis.run_metrics import PTS_WINDOW_ROUNDS, kept_figure, with_kept_figure
from ssdlab.cli.documents import load_runs, report_parts, report_provenance, run_metrics
from ssdlab.cli.render import print_document
from ssdlab.cli.store_access import known_spec_sheets, open_db, run_id_arg
from ssdlab.errors import UsageError
from ssdlab.model.run import RunRecord
from ssdlab.model.units import format_size
from ssdlab.parse.fio_histogram import clat_bins_by_capture
from ssdlab.report.compare import build_compare_document
from ssdlab.report.csv_tables import compare_csv
from ssdlab.report.document import Document, Section, document_json, render_markdown
from ssdlab.report.html import markdown_chart_image, render_html, render_markdown_report
from ssdlab.store.captures import load_fio_outputs
from ssdlab.store.steps import load_step_results
from ssdlab.system.pdf import print_pdf
from ssdlab.system.write_gate import check_output_path, write_output

REGRESSION_EXIT = 4


# what `report -o FILE` writes, by the file's suffix
SUFFIXES = {".html": "html", ".htm": "html", ".md": "md", ".markdown": "md", ".pdf": "pdf"}


def _format(args: argparse.Namespace) -> str:
    """html, md or pdf: from the suffix of -o FILE (an unknown one refused), else --format,
    else html. Without -o, refused when stdout is a terminal (`-o -` prints anyway)."""
    output = args.output
    if output is None and sys.stdout.isatty():
        raise UsageError(
            "report: stdout is a terminal, and the report is a whole HTML or Markdown file; "
            "write it with -o report.html (or -o - to print it anyway)"
        )
    if output is None or output == "-":
        return str(args.format or "html")
    suffix = Path(output).suffix.lower()
    fmt = SUFFIXES.get(suffix)
    if fmt is None:
        known = ", ".join(SUFFIXES)
        raise UsageError(
            f"report -o {output}: the suffix {suffix or '(none)'} names no report format; "
            f"give a file ending in one of {known} (or -o - for stdout)"
        )
    if args.format and args.format != fmt:
        raise UsageError(
            f"report -o {output} is {fmt} by its suffix but --format is {args.format}; "
            "leave out --format or change the suffix"
        )
    return fmt


def _write(args: argparse.Namespace, text: str, fmt: str, out: Console) -> None:
    """The report to stdout (no -o, or -o -), to a file, or printed to PDF by Chromium."""
    if args.output is None or args.output == "-":
        sys.stdout.write(text)
    elif fmt == "pdf":
        printed = print_pdf(text, args.output)
        out.print(
            f"wrote {args.output} ({format_size(printed.size_bytes)}, {printed.pages} pages)",
            highlight=False,
            soft_wrap=True,  # a path is copied whole: never broken at the terminal's width
        )
    else:
        write_output(args.output, text, "-o")
        wrote = f"wrote {args.output} ({len(text.encode()):,} bytes)"
        out.print(wrote, highlight=False, soft_wrap=True)


def cmd_report(args: argparse.Namespace, out: Console) -> int:
    fmt = _format(args)
    if args.output not in (None, "-"):
        check_output_path(args.output, "-o")  # refused before any work
    conn = open_db(args)
    runs = load_runs(conn, [run_id_arg(conn, text) for text in args.runs])
    parts = report_parts(conn, runs, known_spec_sheets(conn))
    title = args.title or (
        f"ssdlab report: run {runs[0].run_id}"
        if len(runs) == 1
        else f"ssdlab report: runs {', '.join(str(r.run_id) for r in runs)}"
    )
    front: tuple[Section, ...] = ()
    if len(runs) > 1 and len({_family(r) for r in runs}) == 1:
        front = _comparison(conn, runs, args.threshold, args.alpha, []).sections
    provenance = report_provenance(runs)
    if fmt == "md":
        text = render_markdown_report(title, parts, front=front, provenance=provenance)
    else:
        text = render_html(
            title, parts, front=front, provenance=provenance, interactive=fmt != "pdf"
        )
    _write(args, text, fmt, out)
    return 0


def _comparison(
    conn: sqlite3.Connection,
    runs: list[RunRecord],
    threshold: float,
    alpha: float,
    rules: list[str],
) -> Document:
    """The comparison document of `runs` against the first; bad or unmatched rules refused."""
    baseline = runs[0]

    def metrics(run: RunRecord) -> tuple[MetricSamples, ...]:
        # an import kept one figure per test (CrystalDiskMark: the best pass): say which
        kept = kept_figure(run.kind, run.profile, run.settings.get("source_tool"), run.preset)
        return with_kept_figure(run_metrics(conn, run), kept)

    base_metrics = metrics(baseline)
    comparisons: list[Comparison] = [
        compare_runs(
            baseline.run_id,
            base_metrics,
            other.run_id,
            metrics(other),
            threshold_pct=threshold,
            alpha=alpha,
        )
        for other in runs[1:]
    ]
    parsed = []
    for rule in rules:
        try:
            parsed.append(parse_fail_rule(rule))
        except ValueError as error:
            raise UsageError(str(error)) from None
    breaches, unmatched = check_fail_rules(comparisons, parsed)
    if unmatched:
        keys = sorted({c.key for comp in comparisons for c in comp.changes})
        raise UsageError(
            f"--fail-if {unmatched[0]} matches no metric of these runs; "
            f"they have: {', '.join(keys[:12])}{' …' if len(keys) > 12 else ''}"
        )
    return build_compare_document(
        runs, comparisons, breaches, [_measured_tests(conn, run) for run in runs]
    )


def _measured_tests(conn: sqlite3.Connection, run: RunRecord) -> tuple[MeasuredTest, ...]:
    """What the compare charts draw of a run: its tests' passes, per-second series and the
    json+ latency bins of its fio outputs (PTS: the last five rounds, as compared)."""
    window = PTS_WINDOW_ROUNDS if run.profile.startswith("pts-") else None
    bins = clat_bins_by_capture(load_fio_outputs(conn, run.run_id))
    return measured_tests(load_step_results(conn, run.run_id), bins, window=window)


def _family(run: RunRecord) -> str:
    """Runs compare when they ran the same tests: quick runs, CrystalDiskMark/KDiskMark imports
    and imported fio jobs all key their tests as 'rnd4k-q32t1-read'."""
    return "quick" if run.profile in ("quick", "fio") else run.profile


# what `compare -o FILE` writes when --format is left at term, by the file's suffix
COMPARE_SUFFIXES = {**SUFFIXES, ".json": "json", ".csv": "csv"}


def _compare_format(given: str, output: str | None) -> str:
    """--format; a terminal layout is never written to a file: `-o x.html` is HTML."""
    if given != "term" or output in (None, "-"):
        return given
    suffix = Path(output).suffix.lower()
    fmt = COMPARE_SUFFIXES.get(suffix)
    if fmt is None or fmt == "pdf":
        known = ", ".join(s for s, f in COMPARE_SUFFIXES.items() if f != "pdf")
        raise UsageError(
            f"compare -o {output}: the suffix {suffix or '(none)'} names no format; give a "
            f"file ending in one of {known}, or --format"
        )
    return fmt


def cmd_compare(args: argparse.Namespace, out: Console) -> int:
    conn = open_db(args)
    runs = load_runs(conn, [run_id_arg(conn, text) for text in args.runs])
    if len(runs) < 2:
        raise UsageError("compare needs at least two runs: ssdlab compare A B [C ...]")
    profiles = {_family(r) for r in runs}
    if len(profiles) > 1:
        listed = ", ".join(f"run {r.run_id} is {r.profile}" for r in runs)
        raise UsageError(f"compare runs of the same profile; {listed}")
    fmt = "json" if args.json else _compare_format(args.format, args.output)
    document = _comparison(conn, runs, args.threshold, args.alpha, args.fail_if or [])
    if fmt == "json":
        text = document_json(document)
    elif fmt == "md":  # charts as SVG data: images, like the Markdown report
        images = {chart.key: markdown_chart_image(chart) for chart in document.charts}
        text = render_markdown(document, chart_links=images)
    elif fmt == "csv":
        text = compare_csv(document.data)
    elif fmt == "html":
        text = render_html(
            document.title, [], front=document.sections, provenance=report_provenance(runs)
        )
    else:
        text = ""
    if fmt == "term":
        print_document(out, document)
    elif args.output:
        write_output(args.output, text, "-o")
        out.print(f"wrote {args.output}", highlight=False, soft_wrap=True)
    else:
        sys.stdout.write(text)
    failures = document.data.get("failures")
    if isinstance(failures, list) and failures:
        for failure in failures:
            print(
                f"ssdlab: regression: run {failure['run']} {failure['metric']} breaks "
                f"{failure['rule']}",
                file=sys.stderr,
            )
        return REGRESSION_EXIT
    return 0
