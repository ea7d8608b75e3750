"""What every node of a fleet can do: reachable, ssdlab, fio and smartctl versions, root,
O_DIRECT where its targets are, and its clock against this machine's; and which differences
between the nodes would change the results."""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ssdlab import __version__
from ssdlab.analysis.fleet import mismatches
from ssdlab.fleet.reach import FleetReach, fleet_hint, fleet_hosts, ssh_settings
from ssdlab.model.fleet import FleetHost, HostCheck, Mismatch, RemoteResult
from ssdlab.system.ssh import SshSettings, multiplexed, on_every_host, run_remote

FACTS_TIMEOUT_S = 60.0


@dataclass(frozen=True, slots=True)
class DoctorRequest:
    reach: FleetReach


@dataclass(frozen=True, slots=True)
class FleetDoctor:
    checks: tuple[HostCheck, ...]  # one per host, in inventory order
    mismatches: tuple[Mismatch, ...]  # against this ssdlab and between the hosts

    @property
    def ready(self) -> bool:
        """Every host can take part and nothing differs that would change the results."""
        usable = all(check.usable for check in self.checks)
        return usable and not any(m.changes_results for m in self.mismatches)


def doctor_fleet(request: DoctorRequest) -> FleetDoctor:
    """`ssdlab fleet doctor`: every node's facts, and what differs between them."""
    hosts = fleet_hosts(request.reach)
    with multiplexed(ssh_settings(request.reach)) as ssh:
        checks = check_fleet(hosts, ssh, fleet_hint(request.reach, "deploy"))
    return FleetDoctor(checks, tuple(mismatches(checks, __version__)))


def facts_words(host: FleetHost) -> list[str]:
    """The node command that answers with its facts, asked about its targets' folders."""
    words = [*host.command, "node", "facts"]
    if host.db is not None:
        words += ["--db", host.db]
    for target in host.targets:
        words += ["--target", target]
        if not target.startswith("/dev/"):
            words += ["--directory", target]
    return words


def check_host(host: FleetHost, settings: SshSettings, deploy: str) -> HostCheck:
    """Ask one node for its facts; a node without ssdlab is asked for fio and smartctl alone
    (`deploy`: the command that installs ssdlab there)."""
    result = run_remote(host, facts_words(host), settings, timeout_s=FACTS_TIMEOUT_S)
    if result.error is not None or result.returncode == 255:
        return HostCheck(host.name, reachable=False, problem=result.failure())
    if result.returncode == 127:
        return _without_ssdlab(host, settings, deploy)
    if result.returncode != 0:
        return HostCheck(host.name, reachable=True, problem=f"ssdlab {result.failure()}")
    try:
        facts = json.loads(result.text)
    except json.JSONDecodeError:
        return HostCheck(host.name, True, problem="ssdlab node facts printed no JSON")
    return host_check_from_facts(host.name, facts, result)


def host_check_from_facts(name: str, facts: Mapping[str, Any], result: RemoteResult) -> HostCheck:
    """A node's check from its `node facts` document and the round trip that brought it."""
    tools = facts.get("tools") or {}
    midpoint = (result.started_at_s + result.ended_at_s) / 2
    node_time = facts.get("time_s")
    return HostCheck(
        name,
        reachable=True,
        hostname=facts.get("hostname"),
        ssdlab_version=facts.get("ssdlab_version"),
        python=facts.get("python"),
        fio_version=_tool_version(tools, "fio"),
        smartctl_version=_tool_version(tools, "smartctl"),
        nvme_version=_tool_version(tools, "nvme"),
        is_root=facts.get("is_root"),
        direct_io=dict(facts.get("direct_io") or {}),
        clock_offset_s=node_time - midpoint if isinstance(node_time, int | float) else None,
        clock_uncertainty_s=(result.ended_at_s - result.started_at_s) / 2,
        missing_tools=tuple(sorted(name for name, found in tools.items() if not found)),
    )


def _tool_version(tools: Mapping[str, Any], name: str) -> str | None:
    found = tools.get(name)
    if not isinstance(found, Mapping):
        return None
    version = found.get("version")
    return str(version) if version is not None else None


def _without_ssdlab(host: FleetHost, settings: SshSettings, deploy: str) -> HostCheck:
    versions: dict[str, str | None] = {}
    for tool in ("fio", "smartctl"):
        found = run_remote(host, [tool, "--version"], settings, timeout_s=FACTS_TIMEOUT_S)
        first = found.text.strip().splitlines()[:1] if found.ok else []
        versions[tool] = first[0] if first else None
    command = " ".join(host.command)
    return HostCheck(
        host.name,
        reachable=True,
        problem=f"'{command}' is not found there: install it with {deploy}, or set "
        "ssdlab_command in the inventory",
        fio_version=versions["fio"],
        smartctl_version=versions["smartctl"],
        missing_tools=tuple(tool for tool, version in versions.items() if version is None),
    )


def check_fleet(
    hosts: Sequence[FleetHost], settings: SshSettings, deploy: str
) -> tuple[HostCheck, ...]:
    """Every node's check, at most `settings.parallel` at once; a node that fails or hangs is
    reported in its own row."""
    found = on_every_host(hosts, lambda host: check_host(host, settings, deploy), settings.parallel)
    return tuple(found[host.name] for host in hosts)
