import shlex
from pathlib import Path

from ssdlab.model.next_command import CommandContext, FleetHosts, fleet_command, next_command


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


def test_a_fleet_command_names_the_inventory_limit_and_store() -> None:
    hint = fleet_command(
        CommandContext(db=Path("/srv/central.db")),
        FleetHosts("/srv/lab.ini", "rack1:!node3"),
        "collect",
    )
    assert hint.startswith('"')
    assert shlex.split(hint[1:-1]) == [
        "ssdlab",
        "fleet",
        "collect",
        "/srv/lab.ini",
        "--limit",
        "rack1:!node3",
        "--db",
        "/srv/central.db",
    ]


def test_a_fleet_action_without_a_store_gets_no_db() -> None:
    hint = fleet_command(
        CommandContext(db=Path("/srv/central.db")), FleetHosts("/srv/lab.ini"), "status"
    )
    assert hint == "'ssdlab fleet status /srv/lab.ini'"


def test_fleet_compare_takes_no_inventory() -> None:
    hint = fleet_command(CommandContext(db=Path("/srv/c.db")), None, "compare", "--kind", "cache")
    assert hint == "'ssdlab fleet compare --kind cache --db /srv/c.db'"
