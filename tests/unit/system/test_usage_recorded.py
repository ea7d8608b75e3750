"""system/usage.py (and plan/safety.py's verdict) on the recorded trees in tests/data/sysfs."""

import shutil
from pathlib import Path

import pytest

from ssdlab.errors import SafetyRefusal
from ssdlab.model.target import DeviceUsage
from ssdlab.plan.safety import check_write_allowed, refusal_reasons
from ssdlab.system.usage import find_device_usage

TREES = Path(__file__).resolve().parents[2] / "data" / "sysfs"
ON_SDA1 = (8, 1)  # where / (and, unless a case says otherwise, the database) lives


def usage_of(
    tree: Path,
    name: str,
    *,
    root_majmin: tuple[int, int] | None = ON_SDA1,
    database_majmin: tuple[int, int] | None = ON_SDA1,
    mountinfo_text: str | None = None,
    dev_root: Path | None = None,
) -> DeviceUsage:
    return find_device_usage(
        name,
        sysfs_root=tree / "sys",
        mountinfo_text=mountinfo_text or (tree / "proc" / "self" / "mountinfo").read_text(),
        swaps_text=(tree / "proc" / "swaps").read_text(),
        root_majmin=root_majmin,
        database_majmin=database_majmin,
        dev_root=dev_root or tree / "dev",
    )


def test_sata_disk_with_root_and_swap_partitions() -> None:
    usage = usage_of(TREES / "sata_root", "sda")
    assert usage == DeviceUsage(
        name="sda",
        mounts=(("sda1", "/"),),
        swaps=("sda2",),
        backs_root=("sda1",),
        holds_database=("sda1",),
    )
    assert refusal_reasons(usage) == (
        "/dev/sda1 (partition of /dev/sda) is mounted at / — unmount it first",
        "/dev/sda2 (partition of /dev/sda) is active swap — swapoff it first",
        "/dev/sda1 (partition of /dev/sda) backs / (the running system) — choose another device",
        "/dev/sda1 (partition of /dev/sda) holds the ssdlab database — use --db elsewhere",
    )


def test_a_single_partition_is_judged_on_its_own() -> None:
    assert usage_of(TREES / "sata_root", "sda2", database_majmin=None) == DeviceUsage(
        name="sda2", swaps=("sda2",)
    )


def test_nvme_partition_under_lvm_holds_the_database_through_dm() -> None:
    usage = usage_of(TREES / "nvme_lvm", "nvme0n1", database_majmin=(253, 0))
    assert usage == DeviceUsage(
        name="nvme0n1",
        holders=(("nvme0n1p1", "dm-0"),),
        holds_database=("nvme0n1p1",),
    )
    assert refusal_reasons(usage, database_path="/home/u/.local/share/ssdlab/ssdlab.db") == (
        "/dev/nvme0n1p1 (partition of /dev/nvme0n1) is held by dm-0 "
        "(device-mapper/LVM/md/bcache) — remove the holder first",
        "/dev/nvme0n1p1 (partition of /dev/nvme0n1) holds the ssdlab database "
        "(/home/u/.local/share/ssdlab/ssdlab.db) — use --db elsewhere",
    )


def test_root_on_lvm_is_found_through_the_stack() -> None:
    usage = usage_of(TREES / "nvme_lvm", "nvme0n1", root_majmin=(253, 0), database_majmin=None)
    assert usage.backs_root == ("nvme0n1p1",)


def test_the_dm_device_itself_is_mounted_through_its_mapper_name() -> None:
    usage = usage_of(TREES / "nvme_lvm", "dm-0", database_majmin=(253, 0))
    assert usage == DeviceUsage(name="dm-0", mounts=(("dm-0", "/home"),), holds_database=("dm-0",))


def test_md_member_partition_is_held_and_nothing_else() -> None:
    usage = usage_of(TREES / "md_member", "sdb")
    assert usage == DeviceUsage(name="sdb", holders=(("sdb1", "md0"),))
    assert refusal_reasons(usage) == (
        "/dev/sdb1 (partition of /dev/sdb) is held by md0 (device-mapper/LVM/md/bcache) — "
        "remove the holder first",
    )


def test_md_member_holds_a_database_stored_on_the_array() -> None:
    usage = usage_of(TREES / "md_member", "sdb", database_majmin=(9, 0))
    assert usage.holds_database == ("sdb1",)


def test_clean_disk_has_no_reasons_and_may_be_written_when_named_again() -> None:
    usage = usage_of(TREES / "clean", "sdc")
    assert usage == DeviceUsage(name="sdc")
    assert refusal_reasons(usage) == ()
    check_write_allowed("/dev/sdc", "/dev/sdc", "/dev/sdc", usage)
    with pytest.raises(SafetyRefusal, match="--destroy-data /dev/sdc"):
        check_write_allowed("/dev/sdc", None, None, usage)


@pytest.mark.parametrize(
    ("case", "name"), [("sata_root", "sda"), ("nvme_lvm", "nvme0n1"), ("md_member", "sdb")]
)
def test_every_busy_recorded_disk_is_refused_even_with_destroy_data(case: str, name: str) -> None:
    usage = usage_of(TREES / case, name, database_majmin=None)
    with pytest.raises(SafetyRefusal, match=f"refusing to write to /dev/{name}: "):
        check_write_allowed(f"/dev/{name}", f"/dev/{name}", f"/dev/{name}", usage)


def test_usb_btrfs_partition_is_found_by_its_mount_source() -> None:
    # btrfs shows the anonymous 0:45 in mountinfo, so only "/dev/sdd1" names the device.
    usage = usage_of(TREES / "usb", "sdd")
    assert usage == DeviceUsage(name="sdd", mounts=(("sdd1", "/media/user/T7 Shield"),))
    assert refusal_reasons(usage) == (
        "/dev/sdd1 (partition of /dev/sdd) is mounted at /media/user/T7 Shield — unmount it first",
    )


def test_a_mount_source_given_as_a_symlink_is_resolved(tmp_path: Path) -> None:
    dev = tmp_path / "dev"
    (dev / "disk" / "by-label").mkdir(parents=True)
    (dev / "disk" / "by-label" / "T7").symlink_to("../../sdd1")
    mountinfo = (TREES / "usb" / "proc" / "self" / "mountinfo").read_text()
    mountinfo = mountinfo.replace("btrfs /dev/sdd1 ", "btrfs /dev/disk/by-label/T7 ")
    assert "/dev/disk/by-label/T7" in mountinfo
    usage = usage_of(TREES / "usb", "sdd", mountinfo_text=mountinfo, dev_root=dev)
    assert usage.mounts == (("sdd1", "/media/user/T7 Shield"),)


def test_a_similar_name_is_not_a_match() -> None:
    mountinfo = "21 1 0:45 / /x rw - btrfs /dev/sdd10 rw\n22 1 0:46 / /y rw - btrfs /dev/sd rw\n"
    usage = usage_of(TREES / "usb", "sdd", mountinfo_text=mountinfo)
    assert usage.mounts == ()


def test_a_two_level_stack_is_followed_to_the_database(tmp_path: Path) -> None:
    """dm-1 (say LUKS) on dm-0 (LVM) on nvme0n1p1: the database on dm-1 is still found."""
    tree = tmp_path / "nvme_lvm"
    shutil.copytree(TREES / "nvme_lvm", tree, symlinks=True)
    sys_root = tree / "sys"
    dm0 = sys_root / "devices" / "virtual" / "block" / "dm-0"
    dm1 = dm0.parent / "dm-1"
    (dm1 / "slaves").mkdir(parents=True)
    (dm1 / "dev").write_text("253:1\n")
    (dm1 / "size").write_text("1000\n")
    (dm0 / "holders").mkdir(exist_ok=True)
    (dm0 / "holders" / "dm-1").symlink_to("../../dm-1")
    (dm1 / "slaves" / "dm-0").symlink_to("../../dm-0")
    (sys_root / "class" / "block" / "dm-1").symlink_to("../../devices/virtual/block/dm-1")
    usage = usage_of(tree, "nvme0n1", root_majmin=(253, 1), database_majmin=(253, 1))
    assert usage.holders == (("nvme0n1p1", "dm-0"),)  # direct holders only
    assert usage.backs_root == ("nvme0n1p1",)
    assert usage.holds_database == ("nvme0n1p1",)


def test_unknown_root_and_database_are_not_reasons() -> None:
    usage = usage_of(TREES / "sata_root", "sda", root_majmin=None, database_majmin=None)
    assert usage.backs_root == ()
    assert usage.holds_database == ()
