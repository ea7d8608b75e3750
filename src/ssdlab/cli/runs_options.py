"""The options of `ssdlab runs` (handled by cli/runs.py). Kept apart from the handler so that
building the parser imports no handler."""

import argparse

from ssdlab.cli.arg_types import int_arg, positive_int_arg
from ssdlab.cli.common_options import STORE, Commands, json_output


def add_commands(commands: Commands) -> None:
    runs = commands.add_parser(
        "runs",
        help="list stored runs: profile, target, date, status",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab runs --profile quick              quick runs (any preset)\n"
        "  ssdlab runs --profile pts-iops --since 2026-01-01\n"
        "  ssdlab runs --target /dev/nvme0n1        runs on one device (or a folder's files)\n"
        "  ssdlab runs --host lab-3                 runs collected from one lab node\n"
        "  ssdlab runs --drive S4EVNX0N123456       runs on one drive (model or serial)\n"
        "  ssdlab runs --limit 50 --before 1200     the 50 runs older than run 1200\n",
        parents=[json_output(), STORE],
    )
    runs.add_argument(
        "--limit", type=positive_int_arg, default=50, help="how many, newest first (default 50)"
    )
    runs.add_argument(
        "--offset",
        type=int_arg,
        default=0,
        metavar="N",
        help="skip the N newest runs that match (the next page: --offset 50)",
    )
    runs.add_argument(
        "--before",
        type=positive_int_arg,
        metavar="ID",
        help="only runs older than run ID (the next page: the last id listed)",
    )
    runs.add_argument(
        "--profile",
        metavar="NAME",
        help="only runs of this kind or profile: quick, pts-iops, cache, endurance, sim, "
        "import, health, ...",
    )
    runs.add_argument(
        "--since",
        metavar="DATE",
        help="only runs started on or after DATE (YYYY-MM-DD or YYYY-MM-DDTHH:MM, UTC)",
    )
    runs.add_argument(
        "--target",
        metavar="PATH",
        help="only runs on this device or file, or on test files in this folder",
    )
    runs.add_argument(
        "--host",
        metavar="NAME",
        help="only runs of this host (a collected run's host is its node's name in the fleet "
        "inventory)",
    )
    runs.add_argument(
        "--drive",
        metavar="MODEL_OR_SERIAL",
        help="only runs on the drive of this model or serial number",
    )
    runs.add_argument(
        "--status",
        choices=("running", "complete", "failed", "interrupted"),
        help="only runs with this status",
    )
