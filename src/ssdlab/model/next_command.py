"""The next command ssdlab tells a user to run, written so that it works when copied: quoted
for a POSIX shell, with the store it must read (`--db`, when it is not the default store), the
device it may erase (`--destroy-data`, when the run needs it) and, for a fleet command, the
hosts it worked on (the inventory and `--limit`)."""

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# the `ssdlab fleet` actions that read or write this machine's store (they take --db)
FLEET_STORE_ACTIONS = frozenset({"run", "collect", "compare", "load"})


@dataclass(frozen=True, slots=True)
class CommandContext:
    """What every hint of one command needs to carry: the store the command used when it is
    not the default one (None: the default store, so no --db is needed)."""

    db: Path | None = None


@dataclass(frozen=True, slots=True)
class FleetHosts:
    """The hosts a fleet command worked on, as its options named them: the inventory (an
    absolute path, so that the hint works from any folder) and `--limit`'s pattern."""

    inventory: str
    limit: str | None = None


def next_command(
    context: CommandContext,
    words: Sequence[str],
    *,
    destroy_data: str | None = None,
) -> str:
    """`'ssdlab WORDS… [--destroy-data DEV] [--db PATH]'`: the exact line to copy, set off by
    single quotes as ssdlab's messages set off commands (by double quotes when a word of it
    needs quoting itself). `words` are the command's words after `ssdlab`: ("resume", "3")."""
    argv = ["ssdlab", *words]
    if destroy_data is not None:
        argv += ["--destroy-data", destroy_data]
    if context.db is not None:
        argv += ["--db", str(context.db)]
    line = shlex.join(argv)
    return f'"{line}"' if "'" in line else f"'{line}'"


def fleet_command(
    context: CommandContext, hosts: FleetHosts | None, action: str, *words: str
) -> str:
    """`'ssdlab fleet ACTION [INVENTORY [--limit PATTERN]] WORDS… [--db PATH]'`: a fleet
    command for the same hosts (None: an action that takes no inventory, `compare`), with the
    store only for the actions that use one (`fleet status --db` would be refused)."""
    argv = ["fleet", action]
    if hosts is not None:
        argv.append(hosts.inventory)
        if hosts.limit:
            argv += ["--limit", hosts.limit]
    store = context if action in FLEET_STORE_ACTIONS else CommandContext()
    return next_command(store, [*argv, *words])
