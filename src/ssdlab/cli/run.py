"""`ssdlab run PROFILE TARGET`, `ssdlab plan PROFILE TARGET` and `ssdlab resume RUN`: each the
request from the options, the application (app/start.py, app/plan_jobs.py, app/resume.py),
the result printed. `run endurance` is cli/endure.py's."""

import argparse
import functools
from typing import TYPE_CHECKING

from ssdlab.app.endurance import ENDURANCE
from ssdlab.app.plan_jobs import planned_jobs
from ssdlab.app.resume import resume_run
from ssdlab.app.start import StartRequest, prepare_run, start_run
from ssdlab.cli.endure import start_endurance
from ssdlab.cli.jobs import print_plan
from ssdlab.cli.profile_setup import plan_request, resume_request, start_request
from ssdlab.cli.run_session import print_result, session_for
from ssdlab.cli.store_open import open_db

if TYPE_CHECKING:  # rich is imported when the console is first used
    from rich.console import Console


def request_from(args: argparse.Namespace) -> StartRequest:
    return start_request(args, args.profile)


def cmd_run(args: argparse.Namespace, out: "Console") -> int:
    request = request_from(args)
    if request.profile == ENDURANCE:
        return start_endurance(args, out, request)
    session = session_for(args)
    planned = prepare_run(session, request)
    return print_result(args, out, start_run(session, request, planned))


def cmd_plan(args: argparse.Namespace, _out: "Console") -> int:
    planned = planned_jobs(plan_request(args), functools.partial(open_db, args))
    return print_plan(planned, as_json=args.json)


def cmd_resume(args: argparse.Namespace, out: "Console") -> int:
    """Continue a stopped run where it stopped (a cut-short round runs again)."""
    return print_result(args, out, resume_run(session_for(args), resume_request(args, args.run)))
