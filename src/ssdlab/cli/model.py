"""`ssdlab model fit RUN…` (app/model_fit.py): a drive model fitted to stored runs, stored as
a run, printed as its table of parameters or as JSON."""

import argparse
import sys

from rich.console import Console

from ssdlab.app.model_fit import FitRequest, fit_runs
from ssdlab.cli.render import emit_document
from ssdlab.cli.store_open import open_db


def cmd_model(args: argparse.Namespace, out: Console) -> int:
    outcome = fit_runs(open_db(args), FitRequest(tuple(args.runs), tuple(sys.argv[1:])))
    if emit_document(out, outcome.document, plots=None, as_json=args.json):
        out.print(f"stored as run {outcome.run_id}", highlight=False)
    return 0
