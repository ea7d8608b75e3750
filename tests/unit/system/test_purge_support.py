"""Reading which purge a drive offers from nvme id-ctrl and hdparm -I output."""

import shutil
from pathlib import Path

import pytest

from ssdlab.model.target import DeviceIdentity, Target, TargetKind
from ssdlab.system.purge import (
    ata_security_erase_ready,
    nvme_format_all_namespaces,
    nvme_format_supported,
    read_purge_support,
)
from tests.unit.system.replay import ReplayRunner

# The Security section as hdparm 9.x prints it (tabs and the trailing space included).
SECURITY = (
    "\t   *\tData Set Management TRIM supported (limit 8 blocks)\n"
    "Security: \n"
    "\tMaster password revision code = 65534\n"
    "\t\tsupported\n"
    "\t{enabled}\tenabled\n"
    "\tnot\tlocked\n"
    "\t{frozen}\tfrozen\n"
    "\tnot\texpired: security count\n"
    "\t\tsupported: enhanced erase\n"
    "\t2min for SECURITY ERASE UNIT. 2min for ENHANCED SECURITY ERASE UNIT.\n"
    "Logical Unit WWN Device Identifier: 5001b448bbc61f38\n"
    "\tNAA\t\t: 5\n"
    "Checksum: correct\n"
)


def _security(enabled: bool, frozen: bool) -> str:
    return SECURITY.format(enabled="" if enabled else "not", frozen="" if frozen else "not")


@pytest.mark.parametrize(
    ("enabled", "frozen", "ready"),
    [(False, False, True), (False, True, False), (True, False, False)],
)
def test_ata_erase_needs_no_password_and_no_freeze(
    enabled: bool, frozen: bool, ready: bool
) -> None:
    assert ata_security_erase_ready(_security(enabled, frozen)) is ready


def test_no_security_section_is_unknown_not_false() -> None:
    assert ata_security_erase_ready("/dev/sdz:\n\nATA device\n") is None
    unsupported = SECURITY.replace("\t\tsupported\n", "\tnot\tsupported\n", 1)
    assert ata_security_erase_ready(unsupported.format(enabled="not", frozen="not")) is False


def test_nvme_format_is_oacs_bit_1() -> None:
    assert nvme_format_supported('{"oacs": 23}') is True  # 0b10111
    assert nvme_format_supported('{"oacs": 5}') is False
    assert nvme_format_supported('{"vid": 1}') is None
    assert nvme_format_supported("not json") is None


def _target(transport: str) -> Target:
    device = DeviceIdentity("sdz", "/dev/sdz", transport=transport, discard_max_bytes=2**31)
    return Target(TargetKind.DEVICE, "/dev/sdz", 2**30, "/dev/sdz", device=device)


def test_read_purge_support_asks_the_right_tool(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/sbin/{name}")
    hdparm = tmp_path / "hdparm.txt"
    hdparm.write_text(_security(enabled=False, frozen=False))
    runner = ReplayRunner([("hdparm -I", 0, hdparm)])
    support, captures = read_purge_support(_target("sata"), runner)
    assert support.ata_security_erase is True
    assert support.discard is True
    assert runner.calls == [("hdparm", "-I", "/dev/sdz")]
    assert len(captures) == 1

    idctrl = tmp_path / "id-ctrl.json"
    idctrl.write_text('{"oacs": 6}')
    runner = ReplayRunner([("id-ctrl", 0, idctrl)])
    support, _ = read_purge_support(_target("nvme"), runner)
    assert support.nvme_format_erase is True
    assert support.ata_security_erase is None

    support, captures = read_purge_support(_target("loop"), ReplayRunner([]))
    assert (support.nvme_format_erase, support.ata_security_erase, support.scsi_format) == (
        False,
        False,
        False,
    )
    assert captures == ()


TREES = Path(__file__).resolve().parents[2] / "data" / "sysfs"


def test_a_partition_target_names_its_whole_drive(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """On the recorded nvme_lvm machine: nvme0n1p1 is a partition of nvme0n1, whose Format
    NVM would erase all of it; nvme0n1 itself is a whole drive."""
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/sbin/{name}")
    idctrl = tmp_path / "id-ctrl.json"
    idctrl.write_text('{"oacs": 6}')
    sysfs = TREES / "nvme_lvm" / "sys"

    def target(name: str) -> Target:
        device = DeviceIdentity(name, f"/dev/{name}", transport="nvme", discard_max_bytes=2**31)
        return Target(TargetKind.DEVICE, f"/dev/{name}", 2**30, f"/dev/{name}", device=device)

    runner = ReplayRunner([("id-ctrl", 0, idctrl)])
    partition, _ = read_purge_support(target("nvme0n1p1"), runner, sysfs)
    assert partition.whole_drive == "nvme0n1"
    assert partition.nvme_format_erase is True
    whole, _ = read_purge_support(target("nvme0n1"), runner, sysfs)
    assert whole.whole_drive is None


def test_format_nvm_attributes_say_whether_a_format_erases_every_namespace() -> None:
    assert nvme_format_all_namespaces('{"oacs": 6, "fna": 0}') is False
    assert nvme_format_all_namespaces('{"fna": 1}') is True  # format applies to all
    assert nvme_format_all_namespaces('{"fna": 6}') is True  # secure erase applies to all
    assert nvme_format_all_namespaces('{"fna": 4}') is False  # crypto erase support only
    assert nvme_format_all_namespaces('{"oacs": 6}') is None
    assert nvme_format_all_namespaces("[]") is None


@pytest.mark.parametrize(("fna", "others"), [(0, ()), (2, ("nvme0n2",)), (None, ("nvme0n2",))])
def test_other_namespaces_are_named_unless_the_controller_formats_one_alone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fna: int | None, others: tuple[str, ...]
) -> None:
    """nvme_lvm with a second namespace nvme0n2 added: a format of nvme0n1 (or of its
    partition's drive) erases nvme0n2 too when FNA says so or cannot be read."""
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/sbin/{name}")
    tree = tmp_path / "nvme_lvm"
    shutil.copytree(TREES / "nvme_lvm", tree, symlinks=True)
    sysfs = tree / "sys"
    (sysfs / "block" / "nvme0n2").symlink_to("../devices/pci0000:00/nvme0n2")
    (sysfs / "block" / "nvme10n1").symlink_to("../devices/pci0000:00/nvme10n1")  # not a sibling
    idctrl = tmp_path / "id-ctrl.json"
    idctrl.write_text('{"oacs": 6}' if fna is None else f'{{"oacs": 6, "fna": {fna}}}')
    for name in ("nvme0n1", "nvme0n1p1"):
        device = DeviceIdentity(name, f"/dev/{name}", transport="nvme", discard_max_bytes=2**31)
        target = Target(TargetKind.DEVICE, f"/dev/{name}", 2**30, f"/dev/{name}", device=device)
        support, _ = read_purge_support(target, ReplayRunner([("id-ctrl", 0, idctrl)]), sysfs)
        assert support.nvme_other_namespaces == others
