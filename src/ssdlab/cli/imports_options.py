"""The options of `ssdlab import` (handled by cli/imports.py). Kept apart from the handler so
that building the parser imports no handler."""

import argparse

from ssdlab.cli.common_options import STORE, Commands, json_output
from ssdlab.cli.latency_options import add_log_reading

MAX_IDENTITY_CHARS = 200


def identity_text(text: str) -> str:
    """A model, serial or firmware as typed: printable, not empty, of a sensible length."""
    value = text.strip()
    if not value or len(value) > MAX_IDENTITY_CHARS or not value.isprintable():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a drive's model, serial or firmware: give 1 to "
            f"{MAX_IDENTITY_CHARS} printable characters"
        )
    return value


def add_commands(commands: Commands) -> None:
    imported = commands.add_parser(
        "import",
        help="store a CrystalDiskMark/KDiskMark/AS SSD text export, an Iometer results file "
        "or fio JSON as a run",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab import CDM8-result.txt           CrystalDiskMark 6-9 'Save text' / copy\n"
        "  ssdlab import KDM_20260101120000.txt    KDiskMark's saved report\n"
        "  ssdlab import AS-SSD-result.txt         AS SSD Benchmark's copied results\n"
        "  ssdlab import results.csv               Iometer's results file\n"
        "  ssdlab import by-hand.json              fio --output-format=json output (also as a "
        "client)\n"
        "  ssdlab import cdm.txt --model 'Samsung SSD 970 EVO 500GB'   name the drive\n"
        "  ssdlab import job.json --logs 'job_*.log'   with the job's bw/iops/lat/clat/slat logs\n",
        parents=[json_output("print the stored run as JSON"), STORE],
    )
    imported.add_argument("file", help="the exported text, Iometer results file or fio JSON")
    for option, what in (
        ("--model", "the drive's model, as it reports it (matches spec sheets)"),
        ("--serial", "the drive's serial number"),
        ("--firmware", "the drive's firmware version"),
    ):
        imported.add_argument(
            option,
            metavar="TEXT",
            type=identity_text,
            help=f"{what}; sets or corrects what the file says",
        )
    imported.add_argument(
        "--logs",
        action="append",
        metavar="GLOB",
        help="the fio job's log files (write_lat_log, write_bw_log, write_iops_log; quote the "
        "glob); stored with the run, their percentiles, histogram and series in its report "
        "(repeatable)",
    )
    add_log_reading(imported)
