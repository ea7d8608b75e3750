"""`ssdlab quick`: the request from the options, the run (app/start.py), its result printed.
`ssdlab plan quick` is `plan`'s (cli/run.py)."""

import argparse
from typing import TYPE_CHECKING

from ssdlab.app.run_plan import QUICK
from ssdlab.app.start import StartRequest, prepare_run, start_run
from ssdlab.cli.profile_setup import start_request
from ssdlab.cli.run_session import print_result, session_for

if TYPE_CHECKING:  # rich is imported when the console is first used
    from rich.console import Console


def request_from(args: argparse.Namespace) -> StartRequest:
    return start_request(args, QUICK)


def cmd_quick(args: argparse.Namespace, out: "Console") -> int:
    request = request_from(args)
    session = session_for(args)
    planned = prepare_run(session, request)
    if planned.reads_only_device and not args.json:
        out.print(
            f"[dim]read-only tests on {planned.target.path}; blocks never written may read "
            "back faster than real data[/dim]",
            highlight=False,
        )
    return print_result(args, out, start_run(session, request, planned))
