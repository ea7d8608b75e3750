"""The command line's side of a run session: progress on stderr, and what a second signal
says before it ends the process at once."""

import argparse
import functools
import os
import sys

from ssdlab.cli.progress import make_progress
from ssdlab.cli.store_open import db_path, open_db
from ssdlab.runner.session import Edges, RunSession


def hard_exit(advice: str) -> None:
    """A second signal: say what is left and how to go on, then end at once."""
    sys.stderr.write(f"\nssdlab: stopped at once; {advice}\n")
    os._exit(130)


def notice(text: str) -> None:
    """A line on stderr outside the progress display (a --start-at wait)."""
    sys.stderr.write(f"ssdlab: {text}\n")
    sys.stderr.flush()


def session_for(args: argparse.Namespace) -> RunSession:
    """The run session of a command: the store named by --db, progress on stderr."""
    edges = Edges(
        progress=functools.partial(make_progress, sys.stderr), hard_exit=hard_exit, notice=notice
    )
    return RunSession(db_path(args), functools.partial(open_db, args), edges)
