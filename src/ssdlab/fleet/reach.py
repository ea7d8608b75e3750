"""Which hosts a fleet command works on and how it reaches them: the Ansible inventory (with
`--limit`), at most `--parallel` hosts at once, each given `--connect-timeout` to answer; and
the fleet commands a hint names for those same hosts."""

from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import UsageError
from ssdlab.model.fleet import FleetHost
from ssdlab.model.next_command import CommandContext, FleetHosts, fleet_command
from ssdlab.system.inventory import read_inventory
from ssdlab.system.ssh import SshSettings


@dataclass(frozen=True, slots=True)
class FleetReach:
    inventory: Path  # as given, `~` expanded
    limit: str | None  # an Ansible host pattern
    parallel: int  # hosts worked on at once
    connect_timeout_s: int


def fleet_hosts(reach: FleetReach) -> tuple[FleetHost, ...]:
    """The inventory's hosts (--limit applied)."""
    return read_inventory(reach.inventory, reach.limit)


def ssh_settings(reach: FleetReach) -> SshSettings:
    """--parallel and --connect-timeout, checked."""
    if reach.parallel < 1:
        raise UsageError("--parallel must be at least 1")
    if reach.connect_timeout_s < 1:
        raise UsageError("--connect-timeout must be at least 1 second")
    return SshSettings(connect_timeout_s=reach.connect_timeout_s, parallel=reach.parallel)


def fleet_hint(
    reach: FleetReach, action: str, *words: str, context: CommandContext | None = None
) -> str:
    """The fleet command a message tells the user to run next, for the same hosts (and, for
    an action that uses one, the same store)."""
    hosts = FleetHosts(str(reach.inventory.absolute()), reach.limit)
    return fleet_command(context or CommandContext(), hosts, action, *words)
