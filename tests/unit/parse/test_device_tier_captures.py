"""smartctl's real output from the device tier's guest (tests/data/devices, README there)."""

import json

from ssdlab.parse.smartctl_json import normalise_smartctl
from tests.conftest import ROOT

DATA = ROOT / "tests" / "data" / "devices"


def _doc(name: str) -> dict[str, object]:
    doc: dict[str, object] = json.loads((DATA / name).read_text())
    return doc


def test_scsi_disk_without_a_temperature_page_has_no_temperature() -> None:
    """smartctl 7.3 prints temperature.current 0 (trip 0) for QEMU's SCSI disk, which has no
    Temperature or Informational Exceptions page: unknown, not 0 °C."""
    sample = normalise_smartctl(_doc("smartctl-x-j-scsi-virtio.json"))
    assert sample.identity.protocol == "SCSI"
    assert sample.temperature_c.value is None


def test_sata_disk_keeps_its_temperature() -> None:
    sample = normalise_smartctl(_doc("smartctl-x-j-sata-ahci.json"))
    assert sample.temperature_c.value == 31
    assert sample.host_written_bytes.value is None  # QEMU's fixed attributes count no writes


def test_controller_and_namespace_give_the_same_counters() -> None:
    """smartctl reads the SMART/Health log with NSID FFFFFFFFh through either node; only the
    capacity is the namespace's (the controller's is filled from sysfs, system/health.py)."""
    controller = normalise_smartctl(_doc("smartctl-x-j-nvme0-controller.json"))
    namespace = normalise_smartctl(_doc("smartctl-x-j-nvme0n1.json"))
    assert controller.identity.serial == namespace.identity.serial == "SSDLABNVME0"
    assert controller.identity.capacity_bytes is None
    assert namespace.identity.capacity_bytes == 384 * 2**20
    for metric in ("host_written_bytes", "host_read_bytes", "temperature_c", "critical_warning"):
        assert getattr(controller, metric).value == getattr(namespace, metric).value, metric
    assert namespace.host_written_bytes.value == 9 * 512_000  # 4 MiB written: 9 units
