"""What every node of a fleet can do: reachable, ssdlab, fio and smartctl versions, root,
O_DIRECT where its targets are, and its clock against this machine's; and which differences
between the nodes would change the results.

`ssdlab fleet doctor` asks through Ansible: the doctor playbook of ssdlab's collection
(ssdlab.bench), `--parallel` hosts at once, its results read from the collection's callback.
The node's clock is read by the collection's ssdlab_clock action, on this machine, between two
readings of this machine's clock (the shortest of three round trips), so the offset is good to
half of one short ssh round trip. `fleet run` reads its nodes' checks from run.yml's check
play with `played_check` (fleet/run_play.py); `fleet load` checks its nodes over ssdlab's own
ssh connections, which it goes on using (check_host)."""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ssdlab import __version__
from ssdlab.analysis.fleet import mismatches
from ssdlab.fleet.play_hosts import (
    event_message,
    first_failure,
    host_events,
    play_host,
    run_fleet_play,
)
from ssdlab.fleet.reach import FleetReach, fleet_hint, fleet_hosts, ssh_settings
from ssdlab.model.fleet import FleetHost, HostCheck, Mismatch
from ssdlab.system.ansible_play import PlayEvent, PlayOutcome, last_words
from ssdlab.system.ssh import SshSettings, run_remote

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
    """`ssdlab fleet doctor`: every node's facts through the collection's doctor playbook,
    and what differs between them."""
    hosts = fleet_hosts(request.reach)
    settings = ssh_settings(request.reach)
    inventory = {
        host.name: play_host(host, settings) | {"ssdlab_targets": list(host.targets)}
        for host in hosts
    }
    outcome = run_fleet_play("doctor.yml", inventory, settings, FACTS_TIMEOUT_S, ("show",))
    deploy = fleet_hint(request.reach, "deploy")
    checks = tuple(played_check(host, outcome, deploy) for host in hosts)
    return FleetDoctor(checks, tuple(mismatches(checks, __version__)))


def played_check(host: FleetHost, outcome: PlayOutcome, deploy: str) -> HostCheck:
    """A node's check from its results in the doctor play: its facts and its clock, or why
    not (Ansible's reason when it could not reach the node)."""
    events = host_events(outcome, host.name)
    failed = first_failure(events)
    facts = _result(events, "ssdlab_facts")
    if failed is not None and failed.event == "unreachable":
        said = event_message(failed)
        return HostCheck(host.name, reachable=False, problem=f"ssh failed: {said}")
    if failed is not None and failed.action.endswith("ssdlab_facts"):
        if failed.fields.get("ssdlab_missing"):
            return _without_ssdlab(host, failed.fields.get("tools"), deploy)
        rc = failed.fields.get("rc")
        status = f"exit {rc}" if isinstance(rc, int) else "failed"
        return HostCheck(host.name, True, problem=f"ssdlab {status}: {event_message(failed)}")
    if facts is None or not isinstance(facts.fields.get("facts"), Mapping):
        return HostCheck(host.name, True, problem=f"no facts: {last_words(outcome)}")
    clock = _result(events, "ssdlab_clock")
    reading = clock.fields.get("clock") if clock is not None else None
    offset, uncertainty = _clock(reading if isinstance(reading, Mapping) else {})
    return host_check_from_facts(host.name, facts.fields["facts"], offset, uncertainty)


def _result(events: Sequence[PlayEvent], action: str) -> PlayEvent | None:
    return next((e for e in events if e.action.endswith(action) and e.event == "ok"), None)


def _clock(reading: Mapping[str, Any]) -> tuple[float | None, float | None]:
    offset, uncertainty = reading.get("offset_s"), reading.get("uncertainty_s")
    if isinstance(offset, int | float) and isinstance(uncertainty, int | float):
        return float(offset), float(uncertainty)
    return None, None


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
        return _without_ssdlab(host, _versions_over_ssh(host, settings), deploy)
    if result.returncode != 0:
        return HostCheck(host.name, reachable=True, problem=f"ssdlab {result.failure()}")
    try:
        facts = json.loads(result.text)
    except json.JSONDecodeError:
        return HostCheck(host.name, True, problem="ssdlab node facts printed no JSON")
    # the node's time against the midpoint of the round trip that brought its facts
    node_time = facts.get("time_s")
    midpoint = (result.started_at_s + result.ended_at_s) / 2
    offset = node_time - midpoint if isinstance(node_time, int | float) else None
    return host_check_from_facts(
        host.name, facts, offset, (result.ended_at_s - result.started_at_s) / 2
    )


def host_check_from_facts(
    name: str,
    facts: Mapping[str, Any],
    clock_offset_s: float | None,
    clock_uncertainty_s: float | None,
) -> HostCheck:
    """A node's check from its `node facts` document and its clock's offset, good to
    `clock_uncertainty_s`."""
    tools = facts.get("tools") or {}
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
        clock_offset_s=clock_offset_s,
        clock_uncertainty_s=clock_uncertainty_s if clock_offset_s is not None else None,
        missing_tools=tuple(sorted(name for name, found in tools.items() if not found)),
    )


def _text(value: object) -> str | None:
    return str(value) if value is not None else None


def _tool_version(tools: Mapping[str, Any], name: str) -> str | None:
    found = tools.get(name)
    if not isinstance(found, Mapping):
        return None
    version = found.get("version")
    return str(version) if version is not None else None


def _versions_over_ssh(host: FleetHost, settings: SshSettings) -> dict[str, str | None]:
    """The first line of fio's and smartctl's --version on a node without ssdlab."""
    versions: dict[str, str | None] = {}
    for tool in ("fio", "smartctl"):
        found = run_remote(host, [tool, "--version"], settings, timeout_s=FACTS_TIMEOUT_S)
        first = found.text.strip().splitlines()[:1] if found.ok else []
        versions[tool] = first[0] if first else None
    return versions


def _without_ssdlab(host: FleetHost, tools: object, deploy: str) -> HostCheck:
    """The row of a node that has no ssdlab: what fio and smartctl it has (`tools`: tool →
    the first line of its --version, None where missing)."""
    found = tools if isinstance(tools, Mapping) else {}
    versions = {tool: _text(found.get(tool)) for tool in ("fio", "smartctl")}
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
