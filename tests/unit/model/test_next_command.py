import shlex
from pathlib import Path

from ssdlab.model.next_command import CommandContext, next_command


def test_the_default_store_needs_no_db() -> None:
    assert next_command(CommandContext(), ("resume", "3")) == "'ssdlab resume 3'"


def test_another_store_and_the_device_are_carried_and_quoted() -> None:
    hint = next_command(
        CommandContext(db=Path("/srv/lab runs/ssdlab.db")),
        ("resume", "7"),
        destroy_data="/dev/nvme0n1",
    )
    assert hint.startswith('"')
    assert hint.endswith('"')
    assert shlex.split(hint[1:-1]) == [
        "ssdlab",
        "resume",
        "7",
        "--destroy-data",
        "/dev/nvme0n1",
        "--db",
        "/srv/lab runs/ssdlab.db",
    ]
