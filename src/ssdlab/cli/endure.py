"""`ssdlab run endurance TARGET` (with `--continue` and `--print-systemd-unit`) and `ssdlab
status RUN`: a days-long write loop that survives crashes, and where it stands. `ssdlab
endure` and `ssdlab endure --resume RUN`, the spellings before, still work for this release,
each with a line saying what to type instead."""

import argparse
import shlex
import sys
from typing import TYPE_CHECKING

from ssdlab.app.endurance import ENDURANCE, StatusRequest, endurance_status
from ssdlab.app.resume import continuing, resume_run
from ssdlab.app.run_outcome import command_context
from ssdlab.app.start import StartRequest, continued_run, prepare_run, start_run
from ssdlab.cli.profile_setup import resume_request, start_request
from ssdlab.cli.rating import rating_given
from ssdlab.cli.render import emit_document
from ssdlab.cli.run_session import notice, print_result, session_for
from ssdlab.cli.store_open import db_path, open_db
from ssdlab.cli.systemd import exec_lines, unit_command
from ssdlab.errors import UsageError
from ssdlab.model.run import RunStatus

if TYPE_CHECKING:  # rich is imported when the console is first used
    from rich.console import Console

RUN_ENDURANCE = ("run", "endurance")


def cmd_endure(args: argparse.Namespace, out: "Console") -> int:
    """The spellings before `run endurance` and `resume`: they do what those do."""
    if args.resume and args.print_systemd_unit:
        raise UsageError("--print-systemd-unit describes a new run; leave out --resume")
    if args.resume:
        notice("'ssdlab endure --resume RUN' is deprecated and goes in the next release; use "
               "'ssdlab resume RUN'")  # fmt: skip
        return print_result(
            args, out, resume_run(session_for(args), resume_request(args, args.resume))
        )
    notice("'ssdlab endure' is deprecated and goes in the next release; use "
           "'ssdlab run endurance'")  # fmt: skip
    return start_endurance(args, out, start_request(args, ENDURANCE))


def start_endurance(args: argparse.Namespace, out: "Console", request: StartRequest) -> int:
    """A new endurance run; with --continue, the unfinished one with these settings on this
    target, resumed (or nothing, when it is complete); or its systemd unit."""
    if args.print_systemd_unit:
        if request.start_at is not None:
            raise UsageError(
                "--print-systemd-unit describes a run that restarts after a reboot; a start time "
                "would be past by then, so leave out --start-at"
            )
        sys.stdout.write(systemd_unit(sys.argv[1:], args))  # verbatim: no wrapping
        return 0
    session = session_for(args)
    found = continued_run(session, request) if args.continue_run else None
    if found is not None and found.status is RunStatus.COMPLETE:
        out.print(f"run {found.run_id} is complete: {found.status_reason or 'done'}")
        return 0
    if found is not None:
        return print_result(args, out, resume_run(session, continuing(request, found.run_id)))
    planned = prepare_run(session, request)
    return print_result(args, out, start_run(session, request, planned))


def cmd_status(args: argparse.Namespace, out: "Console") -> int:
    """Where an endurance run stands: the same document its report shows, read from the store
    (it may be running right now: the store is read, never written)."""
    request = StatusRequest(args.run, rating_given(args), command_context(db_path(args)))
    document = endurance_status(open_db(args), request)
    emit_document(out, document, plots=args.plots, as_json=args.json)
    return 0


def run_endurance_words(argv: list[str]) -> list[str]:
    """`argv` with the command spelled `run endurance` (`endure` was its spelling before)."""
    at = 0
    while at < len(argv) and argv[at].startswith("--width"):
        at += 1 if "=" in argv[at] else 2
    if argv[at : at + 1] == ["endure"]:
        return [*argv[:at], *RUN_ENDURANCE, *argv[at + 1 :]]
    return list(argv)


def systemd_unit(argv: list[str], args: argparse.Namespace) -> str:
    """A unit that runs this endurance run as a service: `--continue` starts it the first time
    and resumes it after a crash or a reboot; a safety stop (exit 5) is not restarted."""
    command = unit_command(run_endurance_words(argv), db_path(args), ensure=("--continue",))
    return (
        "# ssdlab endurance run as a systemd service. Install with:\n"
        "#   ssdlab run endurance ... --print-systemd-unit > "
        "/etc/systemd/system/ssdlab-endure.service\n"
        "#   systemctl daemon-reload && systemctl enable --now ssdlab-endure.service\n"
        "# Follow it with: ssdlab status last" + (f" --db {shlex.quote(str(db_path(args)))}") + "\n"
        "[Unit]\n"
        f"Description=ssdlab endurance run on {args.target}\n"
        "After=local-fs.target\n"
        "\n"
        "[Service]\n"
        "Type=simple\n" + exec_lines(command) + "KillSignal=SIGINT\n"
        "TimeoutStopSec=300\n"
        "Restart=on-failure\n"
        "RestartSec=30\n"
        "RestartPreventExitStatus=2 3 5\n"
        "\n"
        "[Install]\n"
        "WantedBy=multi-user.target\n"
    )
