"""The options of `ssdlab show` and `ssdlab export` (handled by cli/inspect.py). Kept apart
from the handlers so that building the parser imports no handler."""

import argparse

from ssdlab.cli.common_options import STORE, Commands, json_output


def add_commands(commands: Commands) -> None:
    show = commands.add_parser("show", help="show one stored run", parents=[json_output(), STORE])
    show.add_argument("run", help="run id, or 'last'")
    show.add_argument("--jobs", action="store_true", help="also print the fio job files")

    export = commands.add_parser(
        "export",
        help="export a run as json, csv, md or cdm (CrystalDiskMark text)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab export last --format md -o result.md\n"
        "  ssdlab export 12 --format csv -o sweep.csv       the run's main table\n"
        "  ssdlab export 14 --format csv --table health    another of its tables\n"
        "CSV tables (docs/export.md): passes (quick runs), steps (one row per stored step:\n"
        "sweep points, PTS rounds, endurance iterations, sim points, fleet hosts), series (one\n"
        "row per log interval), health (one row per health sample), windows (PTS steady state).",
        parents=[STORE],
    )
    export.add_argument("run", help="run id, or 'last'")
    export.add_argument(
        "--format", choices=("json", "csv", "md", "cdm"), default="json", help="default json"
    )
    export.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    export.add_argument(
        "--table",
        choices=("passes", "steps", "series", "health", "windows"),
        help="with --format csv: which table (default: the run's main one: passes for quick "
        "runs, health for health runs, series for a simulated drive, steps for the rest)",
    )
