"""`ssdlab fleet deploy INVENTORY`: this ssdlab installed on every node from wheels made here
(nodes need no network), and the system tools each node lacks."""

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ssdlab.cli.fleet import ProgressLines, fleet_hosts, ssh_settings
from ssdlab.fleet.deploy import FAILED, INSTALLED, DeployOptions, DeployReport, HostDeploy, deploy
from ssdlab.fleet.deploy_plan import install_hint

STATE_STYLE = {INSTALLED: "green", FAILED: "red"}


def cmd_fleet_deploy(args: argparse.Namespace, out: Console) -> int:
    hosts = fleet_hosts(args)
    options = DeployOptions(
        settings=ssh_settings(args),
        wheels=Path(args.wheels).expanduser() if args.wheels else None,
        force=bool(getattr(args, "force", False)),
    )
    report = deploy(hosts, options, ProgressLines(Console(stderr=True, soft_wrap=True)))
    if args.json:
        sys.stdout.write(json.dumps(deploy_document(report), indent=2) + "\n")
    else:
        print_report(out, report)
    return 1 if report.failed else 0


def _host_document(host: HostDeploy) -> dict[str, object]:
    return {
        "host": host.host,
        "state": host.state,
        "reason": host.reason,
        "venv": host.venv,
        "ssdlab_version": host.version,
        "missing_tools": [{"tool": m.tool, "package": m.package} for m in host.missing],
        "install_tools": install_hint(host.missing),
        "is_root": host.is_root,
        "facts_problem": host.facts_problem,
        "ssdlab_command": host.ssdlab_command,
        "copied_bytes": host.copied_bytes,
        "seconds": host.seconds,
    }


def deploy_document(report: DeployReport) -> dict[str, object]:
    wheels = report.wheels
    return {
        "format": "ssdlab-fleet-deploy",
        "format_version": 1,
        "ssdlab_version": report.version,
        "build": report.build,
        "wheels": None
        if wheels is None
        else {
            "folder": str(wheels.ssdlab.parent),
            "files": list(wheels.names),
            "bytes": wheels.size,
            "from_cache": wheels.cached and not wheels.given,
            "given": wheels.given,
            "seconds": round(wheels.seconds, 3),
        },
        "hosts": [_host_document(host) for host in report.hosts],
    }


def _tools_cell(host: HostDeploy) -> str:
    if host.facts_problem is not None:
        return "unknown"
    if host.state == FAILED:
        return ""
    return ", ".join(m.tool for m in host.missing) or "none"


def _root_cell(host: HostDeploy) -> str:
    return {True: "yes", False: "no", None: ""}[host.is_root]


def print_report(out: Console, report: DeployReport) -> None:
    table = Table(title=f"ssdlab {report.version} ({report.build})", title_justify="left")
    for column in ("host", "state", "ssdlab", "missing tools", "root"):
        table.add_column(column, no_wrap=column in ("host", "ssdlab"))
    for host in report.hosts:
        style = STATE_STYLE.get(host.state, "")
        table.add_row(
            escape(host.host),
            f"[{style}]{host.state}[/{style}]" if style else host.state,
            escape(host.version or ""),
            escape(_tools_cell(host)),
            _root_cell(host),
        )
    out.print(table)
    for line in _notes(report):
        out.print(escape(line), highlight=False, soft_wrap=True)


def _notes(report: DeployReport) -> list[str]:
    lines = []
    if report.wheels is not None:
        wheels = report.wheels
        how = "from the cache" if wheels.cached else f"made in {wheels.seconds:.0f} s"
        how = "given with --wheels" if wheels.given else how
        lines.append(
            f"wheels: {len(wheels.files)} files, {wheels.size / 2**20:.1f} MiB ({how}, "
            f"{wheels.ssdlab.parent})"
        )
    for host in report.hosts:
        if host.reason is not None:
            lines.append(f"{host.host}: failed: {host.reason}")
        if host.facts_problem is not None:
            lines.append(f"{host.host}: {host.facts_problem}")
        hint = install_hint(host.missing)
        if hint is not None:
            lines.append(f"{host.host}: lacks {', '.join(m.tool for m in host.missing)}: {hint}")
        if host.ssdlab_command is not None and host.state != FAILED:
            lines.append(f"{host.host}: in the inventory, set {host.ssdlab_command}")
    return lines
