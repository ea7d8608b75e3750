"""The options of `ssdlab import` (handled by cli/imports.py). Kept apart from the handler so
that building the parser imports no handler."""

import argparse

from ssdlab.cli.common_options import STORE, Commands, json_output
from ssdlab.cli.latency_options import add_log_reading


def add_commands(commands: Commands) -> None:
    imported = commands.add_parser(
        "import",
        help="store a CrystalDiskMark/KDiskMark text export or fio JSON as a run",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab import CDM8-result.txt           CrystalDiskMark 6-9 'Save text' / copy\n"
        "  ssdlab import KDM_20260101120000.txt    KDiskMark's saved report\n"
        "  ssdlab import by-hand.json              fio --output-format=json output\n"
        "  ssdlab import job.json --logs 'job_*.log'   with the job's bw/iops/lat/clat/slat logs\n",
        parents=[json_output("print the stored run as JSON"), STORE],
    )
    imported.add_argument("file", help="the exported text or fio JSON")
    imported.add_argument(
        "--logs",
        action="append",
        metavar="GLOB",
        help="the fio job's log files (write_lat_log, write_bw_log, write_iops_log; quote the "
        "glob); stored with the run, their percentiles, histogram and series in its report "
        "(repeatable)",
    )
    add_log_reading(imported)
