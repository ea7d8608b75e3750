"""The command line's side of a run: the session's edges (progress on stderr, and what a
second signal says before it ends the process at once), and a run's result printed."""

import argparse
import functools
import os
import sys
from typing import TYPE_CHECKING

from ssdlab.app.run_outcome import RunResult
from ssdlab.cli.progress import make_progress
from ssdlab.cli.render import emit_document
from ssdlab.cli.store_open import db_path, open_db
from ssdlab.runner.session import Edges, RunSession

if TYPE_CHECKING:  # rich is imported when the console is first used
    from rich.console import Console

REGRESSION_EXIT = 4  # --fail-on-regression, as 'compare --fail-if'


def hard_exit(advice: str) -> None:
    """A second signal: say what is left and how to go on, then end at once."""
    sys.stderr.write(f"\nssdlab: stopped at once; {advice}\n")
    os._exit(130)


def notice(text: str) -> None:
    """A line on stderr outside the progress display (a --start-at wait, a deprecation)."""
    sys.stderr.write(f"ssdlab: {text}\n")
    sys.stderr.flush()


def session_for(args: argparse.Namespace) -> RunSession:
    """The run session of a command: the store named by --db, progress on stderr."""
    edges = Edges(
        progress=functools.partial(make_progress, sys.stderr), hard_exit=hard_exit, notice=notice
    )
    return RunSession(db_path(args), functools.partial(open_db, args), edges)


def print_result(args: argparse.Namespace, out: "Console", result: RunResult) -> int:
    """The run's document (as JSON with --json, its charts written with --plots), where it is
    stored; then the run's problem raised, or the exit code."""
    if emit_document(out, result.document, plots=getattr(args, "plots", None), as_json=args.json):
        kept = f"; test file kept at {result.kept_file}" if result.kept_file else ""
        region = f" ({result.region})" if result.region else ""
        where = f"stored as run {result.run_id} in {result.database}{kept}{region}"
        out.print(where, highlight=False, soft_wrap=True)
    if result.problem is not None:
        raise result.problem
    return REGRESSION_EXIT if result.regressed else 0
