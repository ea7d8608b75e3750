"""What `ssdlab fleet deploy` reports: its JSON document (this ssdlab's version and build, the
wheels used, and per host its state, its venv, what ssdlab answered there, the tools it lacks
with the Debian packages that bring them, whether it runs as root, how long each step took),
and the rows and notes of its table."""

from ssdlab.fleet.deploy import FAILED, DeployReport, HostDeploy
from ssdlab.fleet.deploy_plan import install_hint

FORMAT = "ssdlab-fleet-deploy"
COLUMNS = ("host", "state", "ssdlab", "missing tools", "root")


def _tools_cell(host: HostDeploy) -> str:
    if host.facts_problem is not None:
        return "unknown"
    if host.state == FAILED:
        return ""
    return ", ".join(m.tool for m in host.missing) or "none"


def host_row(host: HostDeploy) -> tuple[str, ...]:
    """The host's row of the table, one cell per column of COLUMNS."""
    root = {True: "yes", False: "no", None: ""}[host.is_root]
    return (host.host, host.state, host.version or "", _tools_cell(host), root)


def deploy_notes(report: DeployReport) -> list[str]:
    """The lines under the table: the wheels, and per host why it failed, what it lacks and
    what to set in the inventory."""
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
        "format": FORMAT,
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
