"""The next command ssdlab tells a user to run, written so that it works when copied: quoted
for a POSIX shell, with the store it must read (`--db`, when it is not the default store) and
the device it may erase (`--destroy-data`, when the run needs it)."""

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class CommandContext:
    """What every hint of one command needs to carry: the store the command used when it is
    not the default one (None: the default store, so no --db is needed)."""

    db: Path | None = None


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
