"""`ssdlab fleet status`: where every node's runs stand, as each node's `ssdlab node status`
says (running and recent runs; an endurance run's iterations, WAF and days to end of life).

Asked through Ansible: the status playbook of ssdlab's collection (ssdlab.bench), `--parallel`
hosts at once, each node's document read from the collection's callback; a node that is down
or fails is a problem of its own, with Ansible's reason."""

from collections.abc import Mapping
from dataclasses import dataclass, field

from ssdlab.fleet.play_hosts import (
    event_message,
    first_failure,
    host_events,
    play_host,
    run_fleet_play,
)
from ssdlab.fleet.reach import FleetReach, fleet_hosts, ssh_settings
from ssdlab.system.ansible_play import PlayOutcome, last_words

STATUS_TIMEOUT_S = 120.0


@dataclass(frozen=True, slots=True)
class StatusRequest:
    reach: FleetReach


@dataclass(frozen=True, slots=True)
class FleetStatus:
    statuses: dict[str, dict[str, object]] = field(default_factory=dict)  # host → node status
    problems: dict[str, str] = field(default_factory=dict)  # host → why it gave none


def fleet_status(request: StatusRequest) -> FleetStatus:
    hosts = fleet_hosts(request.reach)
    settings = ssh_settings(request.reach)
    inventory = {host.name: play_host(host, settings) for host in hosts}
    outcome = run_fleet_play("status.yml", inventory, settings, STATUS_TIMEOUT_S, ("show",))
    status = FleetStatus()
    for host in hosts:
        found = node_status(host.name, outcome)
        if isinstance(found, str):
            status.problems[host.name] = found
        else:
            status.statuses[host.name] = found
    return status


def node_status(host: str, outcome: PlayOutcome) -> dict[str, object] | str:
    """A host's `node status` document from the play, or why there is none, in one line."""
    events = host_events(outcome, host)
    failed = first_failure(events)
    if failed is not None:
        if failed.event == "unreachable":
            return f"ssh failed: {event_message(failed)}"
        rc = failed.fields.get("rc")
        said = f"exit {rc}" if isinstance(rc, int) else "node status failed"
        return f"{said}: {event_message(failed)}"
    answered = next((e for e in events if e.action.endswith("ssdlab_status")), None)
    document = answered.fields.get("status") if answered is not None else None
    if not isinstance(document, Mapping):
        return f"no status: {last_words(outcome)}"
    return dict(document)
