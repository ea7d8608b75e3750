"""`ssdlab conformance` (app/conformance.py): the OCP Datacenter NVMe SSD requirements a drive
meets, fails or leaves undecided, by requirement ID, on the terminal, as JSON or as HTML."""

import argparse
import sys

from rich.console import Console

from ssdlab.app.conformance import ConformanceRequest, check_conformance
from ssdlab.cli.render import print_document
from ssdlab.cli.run_session import REGRESSION_EXIT
from ssdlab.cli.store_open import db_path
from ssdlab.report.document import document_json
from ssdlab.report.html import ReportPart, render_html
from ssdlab.system.write_gate import write_output

FAILED_EXIT = REGRESSION_EXIT  # a requirement fails: 4, as a --fail-if gate


def request_from(args: argparse.Namespace) -> ConformanceRequest:
    return ConformanceRequest(args.device, tuple(args.files), tuple(args.runs), db_path(args))


def cmd_conformance(args: argparse.Namespace, out: Console) -> int:
    outcome = check_conformance(request_from(args))
    document = outcome.document
    if args.output:
        page = render_html(document.title, [ReportPart("conformance", document)])
        write_output(args.output, page, "--html")
    if args.json:
        sys.stdout.write(document_json(document))
    else:
        print_document(out, document)
        if args.output:
            out.print(f"HTML report written to {args.output}", highlight=False)
    return FAILED_EXIT if outcome.failed else 0
