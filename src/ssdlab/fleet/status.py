"""`ssdlab fleet status`: where every node's runs stand, as each node's `ssdlab node status`
says (running and recent runs; an endurance run's iterations, WAF and days to end of life)."""

import json
from dataclasses import dataclass, field

from ssdlab.fleet.reach import FleetReach, fleet_hosts, ssh_settings
from ssdlab.model.fleet import FleetHost
from ssdlab.system.ssh import multiplexed, on_every_host, run_remote

STATUS_TIMEOUT_S = 120.0


@dataclass(frozen=True, slots=True)
class StatusRequest:
    reach: FleetReach


@dataclass(frozen=True, slots=True)
class FleetStatus:
    statuses: dict[str, dict[str, object]] = field(default_factory=dict)  # host → node status
    problems: dict[str, str] = field(default_factory=dict)  # host → why it gave none


def status_words(host: FleetHost) -> list[str]:
    return [*host.command, "node", "status", *(["--db", host.db] if host.db else [])]


def fleet_status(request: StatusRequest) -> FleetStatus:
    hosts = fleet_hosts(request.reach)
    with multiplexed(ssh_settings(request.reach)) as ssh:
        found = on_every_host(
            hosts,
            lambda h: run_remote(h, status_words(h), ssh, timeout_s=STATUS_TIMEOUT_S),
            ssh.parallel,
        )
    status = FleetStatus()
    for host in hosts:
        result = found[host.name]
        try:
            if not result.ok:
                raise ValueError(result.failure())
            status.statuses[host.name] = json.loads(result.text)
        except ValueError as error:
            status.problems[host.name] = str(error)
    return status
