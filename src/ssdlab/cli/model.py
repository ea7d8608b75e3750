"""`ssdlab model fit RUN…` (app/model_fit.py), `model predict MODEL WORKLOAD` and `model
verify MODEL RUN` (app/model_predict.py): stored as runs, printed as their tables or as
JSON."""

import argparse
import sys
from typing import TYPE_CHECKING

from ssdlab.app.model_fit import FitOutcome, FitRequest, fit_runs
from ssdlab.app.model_predict import (
    ModelOutcome,
    PredictRequest,
    RatingRequest,
    VerifyRequest,
    predict_model,
    verify_model,
)
from ssdlab.cli.render import emit_document
from ssdlab.cli.store_open import open_db

if TYPE_CHECKING:  # rich is imported when the console is first used
    from rich.console import Console


def _rating(args: argparse.Namespace) -> RatingRequest:
    return RatingRequest(args.daily, args.tbw, args.dwpd, args.warranty_years, args.pe_cycles)


def cmd_model(args: argparse.Namespace, out: "Console") -> int:
    argv = tuple(sys.argv[1:])
    conn = open_db(args)
    outcome: ModelOutcome | FitOutcome
    if args.model_action == "predict":
        outcome = predict_model(
            conn,
            PredictRequest(
                args.model,
                args.workload,
                args.span,
                _rating(args),
                argv,
                args.assume_spare,
                args.fill,
            ),
        )
    elif args.model_action == "verify":
        outcome = verify_model(
            conn, VerifyRequest(args.model, args.run, _rating(args), argv, args.assume_spare)
        )
    else:
        outcome = fit_runs(conn, FitRequest(tuple(args.runs), argv))
    if emit_document(out, outcome.document, plots=None, as_json=args.json):
        out.print(f"stored as run {outcome.run_id}", highlight=False)
    return 0
