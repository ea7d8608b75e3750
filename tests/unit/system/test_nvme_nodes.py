"""NVMe controllers as drives (system/nvme_nodes.py), on the sysfs of the device tier's guest:
one controller with one namespace (nvme0), one in a subsystem with two (nvme1, multipath
naming: its namespaces' ``device`` links lead to the subsystem)."""

import json
import os
from pathlib import Path

import pytest

from ssdlab.system.block import read_device_identity
from ssdlab.system.nvme_nodes import (
    controller_capacity_bytes,
    controller_namespaces,
    controller_of_devnum,
    controller_refusal_text,
    controller_write_refusal,
    is_drive_path,
    read_controller_identity,
)
from tests.conftest import ROOT

RECORDED = ROOT / "tests" / "data" / "devices" / "sysfs-nvme.json"
MiB = 2**20


@pytest.fixture(scope="module")
def sysfs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The recorded entries laid out as a tree: files with their text, links as recorded."""
    root = tmp_path_factory.mktemp("sys")
    entries = json.loads(RECORDED.read_text())
    for name, entry in sorted(entries.items()):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if "link" in entry:
            os.symlink(entry["link"], path)
        else:
            path.write_text(entry["text"])
    return root


def test_controllers_by_their_character_device_numbers(sysfs: Path) -> None:
    assert controller_of_devnum(245, 0, sysfs) == "nvme0"
    assert controller_of_devnum(245, 1, sysfs) == "nvme1"
    assert controller_of_devnum(244, 0, sysfs) is None  # a namespace's generic node, ng0n1
    assert controller_of_devnum(1, 3, sysfs) is None


def test_namespaces_found_through_links_not_names(sysfs: Path) -> None:
    assert controller_namespaces("nvme0", sysfs) == ("nvme0n1",)
    # the heads under the subsystem; the per-path nodes nvme1c1n1/nvme1c1n2 are not drives
    assert controller_namespaces("nvme1", sysfs) == ("nvme1n1", "nvme1n2")
    assert controller_namespaces("nvme9", sysfs) == ()


def test_controller_reads_as_the_drive_its_namespaces_show(sysfs: Path) -> None:
    for controller, namespace in (("nvme0", "nvme0n1"), ("nvme1", "nvme1n2")):
        drive = read_controller_identity(controller, sysfs)
        seen = read_device_identity(namespace, sysfs)
        assert (drive.model, drive.serial, drive.firmware) == (
            seen.model,
            seen.serial,
            seen.firmware,
        )
        assert drive.transport == seen.transport == "nvme"
        assert drive.path == f"/dev/{controller}"
    assert read_controller_identity("nvme1", sysfs).serial == "SSDLABNVME1"


def test_controller_capacity_is_its_namespaces_together(sysfs: Path) -> None:
    assert controller_capacity_bytes("nvme0", sysfs) == 384 * MiB
    assert controller_capacity_bytes("nvme1", sysfs) == 2 * 128 * MiB
    assert controller_capacity_bytes("nvme9", sysfs) is None


def test_only_block_devices_and_nvme_controllers_are_drives(tmp_path: Path) -> None:
    assert not is_drive_path("/dev/null")  # a character device, not a controller
    assert not is_drive_path(str(tmp_path))
    assert not is_drive_path(str(tmp_path / "missing"))


def test_a_write_to_a_controller_names_its_namespaces(sysfs: Path) -> None:
    assert controller_write_refusal("/dev/null", sysfs) is None
    assert controller_write_refusal("/nonexistent", sysfs) is None
    text = controller_refusal_text("/dev/nvme1", "nvme1", sysfs)
    assert "/dev/nvme1 is an NVMe controller" in text
    assert "(/dev/nvme1n1, /dev/nvme1n2)" in text
