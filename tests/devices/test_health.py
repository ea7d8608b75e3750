"""`ssdlab health` on every emulated drive: NVMe through its controller and its namespaces,
SATA (AHCI) and SCSI (virtio-SCSI)."""

from tests.devices.drives import (
    NVME,
    NVME_CTRL,
    SHARED_CTRL,
    SHARED_NS1,
    SHARED_NS2,
    health_json,
    sata_disk,
    scsi_disk,
    value,
)
from tests.devices.guest_client import Guest

SAME_DRIVE = (
    "host_written_bytes",
    "host_read_bytes",
    "wear_used_pct",
    "available_spare_pct",
    "power_cycles",
    "critical_warning",
    "media_errors",
)


def test_controller_and_namespace_read_as_one_drive(guest: Guest) -> None:
    by_namespace = health_json(guest, NVME)["sample"]
    by_controller = health_json(guest, NVME_CTRL)["sample"]
    assert by_controller["identity"]["serial"] == "SSDLABNVME0"
    for key in ("protocol", "model", "serial", "firmware", "capacity_bytes"):
        assert by_controller["identity"][key] == by_namespace["identity"][key], key
    for metric in SAME_DRIVE:
        assert value(by_controller, metric) == value(by_namespace, metric), metric
    assert by_namespace["verdict"] == by_controller["verdict"] == "PASSED"


def test_namespaces_of_a_shared_controller_read_the_controller(guest: Guest) -> None:
    """Health is the drive's (the controller's log, NSID FFFFFFFFh), whichever node names it:
    a write to one namespace shows in the health of the other and of the controller."""
    guest.run(
        ["fio", "--name=w", f"--filename={SHARED_NS2}", "--rw=write", "--bs=64k", "--size=4m",
         "--direct=1", "--ioengine=psync"]
    ).check()  # fmt: skip
    samples = [health_json(guest, node)["sample"] for node in (SHARED_CTRL, SHARED_NS1, SHARED_NS2)]
    serials = {s["identity"]["serial"] for s in samples}
    assert serials == {"SSDLABNVME1"}
    # the controller is both namespaces: its capacity is theirs together
    assert samples[0]["identity"]["capacity_bytes"] == 2 * 128 * 2**20
    written = {value(s, "host_written_bytes") for s in samples}
    assert len(written) == 1, written
    assert (written.pop() or 0) >= 4 * 2**20


def test_sata_disk_health(guest: Guest) -> None:
    sample = health_json(guest, sata_disk(guest))["sample"]
    assert sample["identity"]["protocol"] == "ATA"
    assert sample["identity"]["serial"] == "SSDLABSATA0"
    # QEMU's ATA disk has fixed SMART attributes and no writes counter: unknown, not 0
    assert value(sample, "host_written_bytes") is None
    assert value(sample, "nand_written_bytes") is None


def test_scsi_disk_health(guest: Guest) -> None:
    sample = health_json(guest, scsi_disk(guest))["sample"]
    assert sample["identity"]["protocol"] == "SCSI"
    assert sample["identity"]["serial"] == "SSDLABSCSI0"
    assert value(sample, "host_written_bytes") is None
    assert value(sample, "temperature_c") != 0  # no temperature page: unknown, not 0 °C
