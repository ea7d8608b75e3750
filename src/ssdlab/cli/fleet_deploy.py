"""`ssdlab fleet deploy INVENTORY`: this ssdlab installed on every node from wheels made here
(nodes need no network), and the system tools each node lacks (fleet/deploy.py); here its
table and notes, or its JSON document (fleet/deploy_document.py). And `ssdlab fleet wheels
DIR`, those wheels in a folder for the collection's deploy playbook (fleet/wheel_folder.py)."""

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ssdlab.cli.fleet import ProgressLines, reach_from
from ssdlab.fleet.deploy import FAILED, INSTALLED, DeployReport, DeployRequest, deploy_fleet
from ssdlab.fleet.deploy_document import COLUMNS, deploy_document, deploy_notes, host_row
from ssdlab.fleet.wheel_folder import WheelsRequest, wheels_document, write_wheels

STATE_STYLE = {INSTALLED: "green", FAILED: "red"}


def cmd_fleet_deploy(args: argparse.Namespace, out: Console) -> int:
    wheels = Path(args.wheels).expanduser() if args.wheels else None
    request = DeployRequest(reach_from(args), wheels, force=args.force)
    report = deploy_fleet(request, ProgressLines(Console(stderr=True, soft_wrap=True)))
    if args.json:
        sys.stdout.write(json.dumps(deploy_document(report), indent=2) + "\n")
    else:
        print_report(out, report)
    return 1 if report.failed else 0


def print_report(out: Console, report: DeployReport) -> None:
    table = Table(title=f"ssdlab {report.version} ({report.build})", title_justify="left")
    for column in COLUMNS:
        table.add_column(column, no_wrap=column in ("host", "ssdlab"))
    for host in report.hosts:
        name, state, *cells = (escape(cell) for cell in host_row(host))
        style = STATE_STYLE.get(host.state, "")
        table.add_row(name, f"[{style}]{state}[/{style}]" if style else state, *cells)
    out.print(table)
    for line in deploy_notes(report):
        out.print(escape(line), highlight=False, soft_wrap=True)


def cmd_fleet_wheels(args: argparse.Namespace, out: Console) -> int:
    progress = Console(stderr=True, soft_wrap=True)
    found = write_wheels(
        WheelsRequest(Path(args.dir).expanduser()),
        lambda text: progress.print(escape(text), highlight=False),
    )
    if args.json:
        sys.stdout.write(json.dumps(wheels_document(found), indent=2) + "\n")
        return 0
    out.print(
        escape(
            f"{len(found.names)} wheels, {found.size / 2**20:.1f} MiB, install ssdlab "
            f"{found.wheels.version} ({found.wheels.build}) in {found.folder}"
        ),
        highlight=False,
        soft_wrap=True,
    )
    out.print(
        escape(
            "deploy them: ansible-playbook -i INVENTORY ssdlab.bench.deploy "
            f"-e ssdlab_wheels={found.folder}"
        ),
        highlight=False,
        soft_wrap=True,
    )
    return 0
