"""systemd units for `--print-systemd-unit` (`endure`, `watch`): the command a unit runs, its
words quoted as systemd reads them, and the unit of a watch. One place, so every printed unit
quotes alike."""

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from ssdlab.errors import UsageError

PRINT_OPTION = "--print-systemd-unit"


def systemd_quote(word: str) -> str:
    """One ExecStart word as systemd reads it: specifiers (%) and variables ($) escaped, and
    double quotes around anything with white space, quotes or backslashes."""
    word = word.replace("%", "%%").replace("$", "$$")
    if word and not any(c in word for c in " \t\"'\\;"):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def unit_command(argv: Sequence[str], database: Path, *, ensure: Sequence[str] = ()) -> list[str]:
    """This ssdlab command as a unit runs it: without --print-systemd-unit, with each flag of
    `ensure` added when missing, with --db named, by this Python interpreter."""
    words = [a for a in argv if a != PRINT_OPTION]
    if any(ord(c) < 32 or ord(c) == 127 for word in words for c in word):
        raise UsageError(
            "an argument has a line break or control character, which a systemd unit cannot "
            "hold; choose a target path without them"
        )
    words += [flag for flag in ensure if flag not in words]
    if "--db" not in words and not any(w.startswith("--db=") for w in words):
        words += ["--db", str(database)]
    return [sys.executable, "-m", "ssdlab", *words]


def exec_lines(command: Sequence[str]) -> str:
    """The [Service] lines that run `command` from the current folder."""
    return (
        f"WorkingDirectory={systemd_quote(os.getcwd())}\n"
        f"ExecStart={' '.join(systemd_quote(w) for w in command)}\n"
    )


def watch_unit(argv: Sequence[str], database: Path, target: str) -> str:
    """A long-running service that runs the watch `argv` of `target` (its series' name); it
    continues its series after a restart."""
    command = unit_command(argv, database)
    return (
        "# ssdlab watch as a systemd service. Install with:\n"
        "#   ssdlab watch ... --print-systemd-unit > /etc/systemd/system/ssdlab-watch.service\n"
        "#   systemctl daemon-reload && systemctl enable --now ssdlab-watch.service\n"
        "# One long-running process samples every --every; after a crash or a reboot it\n"
        "# continues the same series, and the alerts it stored do not fire again.\n"
        "[Unit]\n"
        f"Description=ssdlab health watch of {target}\n"
        "After=local-fs.target\n"
        "\n"
        "[Service]\n"
        "Type=simple\n" + exec_lines(command) + "KillSignal=SIGINT\n"
        "TimeoutStopSec=120\n"
        "Restart=on-failure\n"
        "RestartSec=60\n"
        "RestartPreventExitStatus=2\n"
        "\n"
        "[Install]\n"
        "WantedBy=multi-user.target\n"
    )
