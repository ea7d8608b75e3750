"""ssdlab's entry point: parse arguments, run one command, turn errors into exit codes.

quick / plan     cli/quick.py    target → plan → fio → store → result table
runs/show/export cli/inspect.py  stored runs read back and exported
doctor           cli/doctor.py   tools, privileges, O_DIRECT, loop devices, cleanup
"""

import argparse
import sys
from collections.abc import Callable, Sequence

from rich.console import Console

from ssdlab.errors import SsdlabError, UsageError

from .args import build_parser
from .doctor import cmd_doctor
from .health import cmd_health, cmd_watch, cmd_wear
from .inspect import cmd_export, cmd_runs, cmd_show
from .quick import cmd_plan, cmd_quick

Command = Callable[[argparse.Namespace, Console], int]
COMMANDS: dict[str, Command] = {
    "quick": cmd_quick,
    "plan": cmd_plan,
    "runs": cmd_runs,
    "show": cmd_show,
    "export": cmd_export,
    "doctor": cmd_doctor,
    "health": cmd_health,
    "wear": cmd_wear,
    "watch": cmd_watch,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    out = Console(highlight=False, soft_wrap=False)
    try:
        return COMMANDS[args.command](args, out)
    except UsageError as error:
        parser.print_usage(sys.stderr)
        print(f"ssdlab: error: {error}", file=sys.stderr)
        return error.exit_code
    except SsdlabError as error:
        print(f"ssdlab: error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("ssdlab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
