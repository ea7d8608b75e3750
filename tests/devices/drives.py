"""The guest's drives as the device tier names them, and small helpers for its tests."""

import json
from typing import Any

from tests.devices.guest_client import Guest, Result

NVME_CTRL = "/dev/nvme0"  # one controller, one namespace
NVME = "/dev/nvme0n1"
SHARED_CTRL = "/dev/nvme1"  # a controller in a subsystem with two namespaces
SHARED_NS1 = "/dev/nvme1n1"
SHARED_NS2 = "/dev/nvme1n2"
DB = "/tmp/ssdlab-tier.db"  # one store for the session, on the guest's tmpfs
UNIT_BYTES = 512_000  # one NVMe data unit


def disk_on(guest: Guest, bus: str) -> str:
    """The guest's sd disk on `bus` ("ata": the SATA disk, "virtio": the SCSI one), found by its
    sysfs path (sda and sdb depend on the order the drivers probed)."""
    listing = guest.run(["ls", "-l", "/sys/block"]).check().stdout
    for line in listing.splitlines():
        name, _, target = line.partition(" -> ")
        name = name.split()[-1] if name.split() else ""
        if name.startswith("sd") and f"/{bus}" in target:
            return f"/dev/{name}"
    raise AssertionError(f"no sd disk on {bus} in:\n{listing}")


def sata_disk(guest: Guest) -> str:
    return disk_on(guest, "ata")


def scsi_disk(guest: Guest) -> str:
    return disk_on(guest, "virtio")


def last_run_commands(guest: Guest) -> list[tuple[list[str], int | None]]:
    """The argv and exit code of every tool the store's last run called (its captures)."""
    query = (
        "SELECT argv_json, exit_code FROM captures "
        "WHERE run_id = (SELECT max(id) FROM runs) ORDER BY id"
    )
    rows = as_json(guest.run(["sqlite3", "-json", DB, query])) if DB else []
    return [(json.loads(row["argv_json"]), row["exit_code"]) for row in rows]


def as_json(result: Result) -> Any:
    result.check()
    return json.loads(result.stdout)


def health_json(guest: Guest, device: str) -> dict[str, Any]:
    doc: dict[str, Any] = as_json(guest.ssdlab("health", device, "--json", "--db", DB))
    return doc


def value(sample: dict[str, Any], metric: str) -> float | None:
    found: float | None = sample[metric]["value"]
    return found
