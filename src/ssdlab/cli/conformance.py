"""`ssdlab conformance` (app/conformance.py): the OCP Datacenter NVMe SSD requirements a drive
meets, fails or leaves undecided, by requirement ID, on the terminal, as JSON or as HTML."""

import argparse
import sys

from rich.console import Console
from rich.markup import escape

from ssdlab.app.conformance import ConformanceRequest, check_conformance
from ssdlab.app.report import chart_library
from ssdlab.cli.run_session import REGRESSION_EXIT
from ssdlab.cli.store_open import db_path
from ssdlab.cli.terminal_tables import print_rule
from ssdlab.report.document import Document, document_json
from ssdlab.report.html import ReportPart, render_html
from ssdlab.system.write_gate import write_output

FAILED_EXIT = REGRESSION_EXIT  # a requirement fails: 4, as a --fail-if gate
_STYLE = {"pass": "green", "fail": "bold red", "inconclusive": "yellow", "not checkable": "dim"}


def _line(out: Console, text: str, style: str = "") -> None:
    out.print(escape(text), style=style, highlight=False, soft_wrap=False)


def print_conformance(out: Console, document: Document) -> None:
    """The document as blocks, one per requirement (ID, verdict, title and section, then the
    reason and the evidence indented under it): a table of six columns of sentences reads
    badly in a terminal. Every string is text, never markup."""
    print_rule(out, document.title)
    for label, value in document.headline:
        _line(out, f"{label}: {value}", "dim")
    for sentence in document.verdict:
        _line(out, f"» {sentence}", "bold")
    for section in document.sections:
        out.print()
        _line(out, section.title, "bold underline")
        for table in section.tables:
            for requirement, title, where, verdict, evidence, why in table.rows:
                out.print(
                    f"[bold]{escape(requirement)}[/bold]  "
                    f"[{_STYLE.get(verdict, '')}]{escape(verdict)}[/]  "
                    f"{escape(title)} [dim]({escape(where)})[/dim]",
                    highlight=False,
                )
                _line(out, f"    why: {why}")
                if evidence != "—":
                    _line(out, f"    evidence: {evidence}", "dim")
        for label, value in section.facts:
            _line(out, f"{label} {value}")
        for note in section.notes:
            _line(out, f"  • {note}", "dim")


def request_from(args: argparse.Namespace) -> ConformanceRequest:
    return ConformanceRequest(args.device, tuple(args.files), tuple(args.runs), db_path(args))


def cmd_conformance(args: argparse.Namespace, out: Console) -> int:
    outcome = check_conformance(request_from(args))
    document = outcome.document
    if args.output:
        page = render_html(
            document.title, [ReportPart("conformance", document)], bundle=chart_library
        )
        write_output(args.output, page, "--html")
    if args.json:
        sys.stdout.write(document_json(document))
    else:
        print_conformance(out, document)
        if args.output:
            out.print(f"HTML report written to {args.output}", highlight=False)
    return FAILED_EXIT if outcome.failed else 0
