"""`ssdlab report` (runs as one HTML or Markdown file) and `ssdlab compare` (runs side by side,
with significance and `--fail-if` gates)."""

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ssdlab.app.compare import Compared, CompareRequest, compare_stored
from ssdlab.app.report import ReportRequest, build_report, chart_library, report_provenance
from ssdlab.cli.render import print_document
from ssdlab.cli.store_open import open_db
from ssdlab.errors import UsageError
from ssdlab.model.units import format_size
from ssdlab.report.csv_tables import compare_csv
from ssdlab.report.document import Document, document_json, render_markdown
from ssdlab.report.html import markdown_chart_image, render_html
from ssdlab.system.pdf import print_pdf
from ssdlab.system.write_gate import check_output_path, write_output

if TYPE_CHECKING:  # rich is imported when the console is first used
    from rich.console import Console

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


def _write(args: argparse.Namespace, text: str, fmt: str, out: "Console") -> None:
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


def request_from(args: argparse.Namespace) -> ReportRequest:
    """The report asked for; its format and output are refused before any work."""
    fmt = _format(args)
    if args.output not in (None, "-"):
        check_output_path(args.output, "-o")  # refused before any work
    return ReportRequest(
        tuple(args.runs),
        format=fmt,
        title=args.title,
        threshold_pct=args.threshold,
        alpha=args.alpha,
    )


def cmd_report(args: argparse.Namespace, out: "Console") -> int:
    request = request_from(args)
    text = build_report(open_db(args), request)
    _write(args, text, request.format, out)
    return 0


# what `compare -o FILE` writes when --format is left at term, by the file's suffix
COMPARE_SUFFIXES = {**SUFFIXES, ".json": "json", ".csv": "csv"}


def file_format(command: str, output: str, formats: Mapping[str, str]) -> str:
    """The format `command -o output` writes, by the file's suffix (one of `formats`)."""
    suffix = Path(output).suffix.lower()
    fmt = formats.get(suffix)
    if fmt is None:
        raise UsageError(
            f"{command} -o {output}: the suffix {suffix or '(none)'} names no format; give a "
            f"file ending in one of {', '.join(formats)}"
        )
    return fmt


def _compare_format(given: str, output: str | None) -> str:
    """--format; a terminal layout is never written to a file: `-o x.html` is HTML."""
    if given != "term" or output in (None, "-"):
        return given
    writable = {s: f for s, f in COMPARE_SUFFIXES.items() if f != "pdf"}
    try:
        return file_format("compare", output, writable)
    except UsageError as error:
        raise UsageError(f"{error}, or --format") from error


def cmd_compare(args: argparse.Namespace, out: "Console") -> int:
    request = CompareRequest(
        tuple(args.runs),
        threshold_pct=args.threshold,
        alpha=args.alpha,
        fail_if=tuple(args.fail_if or ()),
    )
    conn = open_db(args)
    fmt = "json" if args.json else _compare_format(args.format, args.output)
    compared = compare_stored(conn, request)
    document = compared.document
    if fmt == "term":
        print_document(out, document)
    else:
        text = _compare_text(compared, fmt)
        if args.output:
            write_output(args.output, text, "-o")
            out.print(f"wrote {args.output}", highlight=False, soft_wrap=True)
        else:
            sys.stdout.write(text)
    for failure in compared.failures:
        print(
            f"ssdlab: regression: run {failure['run']} {failure['metric']} breaks "
            f"{failure['rule']}",
            file=sys.stderr,
        )
    return REGRESSION_EXIT if compared.failures else 0


def _compare_text(compared: Compared, fmt: str) -> str:
    if fmt == "csv":
        return compare_csv(compared.document.data)
    return document_text(compared.document, fmt, report_provenance(compared.runs))


def document_text(document: Document, fmt: str, provenance: Sequence[tuple[str, str]] = ()) -> str:
    """A document as a file: json, md (its charts as SVG images) or html (one page, its
    sections up front, charts drawn by the page)."""
    if fmt == "json":
        return document_json(document)
    if fmt == "md":  # charts as SVG data: images, like the Markdown report
        images = {chart.key: markdown_chart_image(chart) for chart in document.charts}
        return render_markdown(document, chart_links=images)
    return render_html(
        document.title, [], front=document.sections, provenance=provenance, bundle=chart_library
    )
