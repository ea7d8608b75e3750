"""The options of `ssdlab endure` (the spelling of `run endurance` and, with --resume, of
`resume` before; kept for this release) and `ssdlab status` (handled by cli/endure.py): the
endurance profile's option table and the run's controls. Kept apart from the handlers so that
building the parser imports no handler."""

import argparse

from ssdlab.cli.common_options import (
    START_AT,
    STORE,
    Commands,
    add_profile_parser,
    add_rating,
    json_output,
)
from ssdlab.cli.run_options import add_endurance_controls
from ssdlab.registry import profile_record


def add_commands(commands: Commands) -> None:
    endure = add_profile_parser(
        commands,
        "endure",
        profile_record("endurance").spec,
        "deprecated: 'ssdlab run endurance' (and 'ssdlab resume RUN' for --resume); goes in "
        "the next release",
        parents=[json_output("print the result as JSON"), STORE, START_AT],
    )
    endure.add_argument(
        "--resume",
        metavar="RUN",
        help="deprecated: 'ssdlab resume RUN'; continue a stopped endurance run (an id, or 'last')",
    )
    endure.add_argument(
        "--keep", action="store_true", help="keep the test file after a complete run"
    )
    endure.add_argument(
        "--plots", metavar="DIR", help="also write the report's charts here as SVG and PNG"
    )
    add_endurance_controls(endure)

    status = commands.add_parser(
        "status",
        help="where an endurance run stands (while it runs, or after)",
        description="Host vs NAND writes, WAF so far and over the last hours, the wear rate, "
        "the projected days and TBW to end of life with how sure they are, iteration times "
        "and the progress towards each stop condition, read from the store.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n  ssdlab status last\n  ssdlab status 12 --json\n"
        "  ssdlab status 12 --tbw 600TB --plots plots/\n",
        parents=[json_output("print the status as JSON"), STORE],
    )
    status.add_argument("run", nargs="?", default="last", help="run id, or 'last' (default)")
    status.add_argument(
        "--plots", metavar="DIR", help="also write the status charts here as SVG and PNG"
    )
    add_rating(status)
