"""The options of `ssdlab conformance` (handled by cli/conformance.py)."""

import argparse

from ssdlab.cli.common_options import STORE, Commands, json_output

EPILOG = """\
examples:
  ssdlab conformance /dev/nvme0
  ssdlab conformance /dev/nvme0 --run 12 --run 15 --html conformance.html
  ssdlab conformance --from smart-add-log.json --from id-ctrl.txt --from smartctl-x.json
  ssdlab conformance --from c0-page.txt --from c3-page.bin --json

--from takes what smartctl and nvme-cli print: smartctl -x -j, nvme smart-log -o json,
nvme id-ctrl (-o json or text), nvme ocp smart-add-log / latency-monitor-log -o json, and
the OCP C0h/C3h pages from nvme get-log (hex dump, or the 512 bytes -b writes).
--run takes stored `ssdlab run qos` runs (CTO-3, TRIM-6/7, App. A.2.1) and any run whose
passes read the drive's temperature each second (TTHROTTLE-5, -7, -11).
exit status: 0 when no requirement fails, 4 when one does (as 'compare --fail-if').
every check and its source: docs/conformance.md
"""


def add_commands(commands: Commands) -> None:
    parser = commands.add_parser(
        "conformance",
        help="OCP Datacenter NVMe SSD requirements checked by ID, with their evidence",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=EPILOG,
        parents=[json_output("print the report as JSON"), STORE],
    )
    parser.add_argument("device", nargs="?", help="an NVMe device to read now (read-only)")
    parser.add_argument(
        "--from",
        dest="files",
        action="append",
        default=[],
        metavar="FILE",
        help="a saved smartctl or nvme-cli output of the drive (repeat for several)",
    )
    parser.add_argument(
        "--run",
        dest="runs",
        action="append",
        default=[],
        metavar="ID",
        help="a stored run (an id or 'last'): a qos run's verdicts answer CTO-3, TRIM-6/7 and "
        "App. A.2.1, the temperatures its passes read TTHROTTLE-5/7/11 (repeat for several)",
    )
    parser.add_argument(
        "--html", dest="output", metavar="FILE", help="also write the report as one HTML file"
    )
