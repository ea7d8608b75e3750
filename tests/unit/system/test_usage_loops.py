"""Loop devices stacked on a target (tests/data/sysfs/loop_stack): they register no holder and
claim nothing, so only their loop/backing_file shows that writing the target rewrites them."""

import os
import shutil
from pathlib import Path

import pytest

from ssdlab.errors import SafetyRefusal
from ssdlab.model.target import DeviceUsage, LoopBacking
from ssdlab.plan.safety import check_write_allowed, refusal_reasons
from ssdlab.system.usage import find_device_usage

TREE = Path(__file__).resolve().parents[2] / "data" / "sysfs" / "loop_stack"
INNER = (("loop9", "/mnt/inner"),)  # loop9, on loop8 on loop7 on nvme0n1p1, is mounted
STACK_7 = LoopBacking("nvme0n1p1", "loop7", above=("loop8", "loop9"), mounts=INNER)


def usage_of(
    name: str,
    tree: Path = TREE,
    *,
    root_majmin: tuple[int, int] | None = (8, 1),
    database_majmin: tuple[int, int] | None = None,
) -> DeviceUsage:
    return find_device_usage(
        name,
        sysfs_root=tree / "sys",
        mountinfo_text=(tree / "proc" / "self" / "mountinfo").read_text(),
        swaps_text=(tree / "proc" / "swaps").read_text(),
        root_majmin=root_majmin,
        database_majmin=database_majmin,
        dev_root=tree / "dev",
    )


def test_a_partition_backing_a_three_level_loop_stack_is_refused_naming_every_loop() -> None:
    usage = usage_of("nvme0n1p1")
    assert usage == DeviceUsage(name="nvme0n1p1", backs_loops=(STACK_7,))
    assert refusal_reasons(usage) == (
        "/dev/nvme0n1p1 is the backing file of /dev/loop7 (with /dev/loop8, /dev/loop9 stacked "
        "on it) (/dev/loop9 is mounted at /mnt/inner) — unmount and detach them first: "
        "umount /mnt/inner; losetup -d /dev/loop9 /dev/loop8 /dev/loop7",
    )
    with pytest.raises(SafetyRefusal, match="refusing to write to /dev/nvme0n1p1: "):
        check_write_allowed("/dev/nvme0n1p1", "/dev/nvme0n1p1", "/dev/nvme0n1p1", usage)


def test_a_loop_backing_an_unmounted_loop_is_refused_with_the_briefest_advice() -> None:
    usage = usage_of("loop8")
    assert usage.backs_loops == (LoopBacking("loop8", "loop9", mounts=INNER),)
    loop9 = usage_of("loop9")
    assert loop9.backs_loops == ()
    # loop9 itself is mounted; and writing it writes loop8, which is fine as far as loop8 goes
    assert loop9.mounts == INNER
    plain = usage_of("loop7").backs_loops[0]
    assert plain == LoopBacking("loop7", "loop8", above=("loop9",), mounts=INNER)
    unmounted = DeviceUsage(name="loop7", backs_loops=(LoopBacking("loop7", "loop8"),))
    assert refusal_reasons(unmounted) == (
        "/dev/loop7 is the backing file of /dev/loop8 — detach it first: losetup -d /dev/loop8",
    )


def test_the_whole_disk_is_refused_for_every_loop_on_it_or_its_partitions() -> None:
    usage = usage_of("nvme0n1")
    assert usage.mounts == (("nvme0n1p3", "/data"),)
    assert usage.backs_loops == (
        LoopBacking("nvme0n1", "loop10"),
        STACK_7,
        LoopBacking("nvme0n1p3", "loop11"),
    )
    reasons = refusal_reasons(usage)
    assert reasons[1] == (
        "/dev/nvme0n1 is the backing file of /dev/loop10 — detach it first: losetup -d /dev/loop10"
    )
    assert reasons[2].startswith(
        "/dev/nvme0n1p1 (partition of /dev/nvme0n1) is the backing file of /dev/loop7 "
    )


def test_a_loop_on_the_whole_disk_over_a_partitions_bytes_backs_that_partition_only() -> None:
    usage = usage_of("nvme0n1p2")
    assert usage == DeviceUsage(
        name="nvme0n1p2", backs_loops=(LoopBacking("nvme0n1p2", "loop10", through="nvme0n1"),)
    )
    assert refusal_reasons(usage) == (
        "/dev/nvme0n1p2 lies within /dev/nvme0n1, the backing file of /dev/loop10 — detach it "
        "first: losetup -d /dev/loop10",
    )
    # loop10 starts after nvme0n1p1 ends: p1 is backed by loop7 only
    assert [b.loop for b in usage_of("nvme0n1p1").backs_loops] == ["loop7"]


def test_a_loop_on_a_mounted_partition_is_refused_as_writing_through_to_it() -> None:
    usage = usage_of("loop11")
    assert usage.backing == ("loop11", "nvme0n1p3")
    assert usage.backing_usage == DeviceUsage(name="nvme0n1p3", mounts=(("nvme0n1p3", "/data"),))
    assert refusal_reasons(usage) == (
        "/dev/loop11 writes through to its backing file /dev/nvme0n1p3, which is in use: "
        "/dev/nvme0n1p3 is mounted at /data — unmount it first",
    )
    # and the partition itself: mounted, and the backing file of loop11
    assert usage_of("nvme0n1p3").backs_loops == (LoopBacking("nvme0n1p3", "loop11"),)


def test_a_loop_in_a_stack_is_refused_through_every_level_below_it() -> None:
    """loop9 on loop8 on loop7 on nvme0n1p1: nothing else uses loop8, loop7 or the partition,
    so writing loop9 (were it not mounted) only rewrites what the user named."""
    usage = usage_of("loop9")
    assert usage.backing == ("loop9", "loop8")
    inner = usage.backing_usage
    assert inner is not None
    assert inner.backs_loops == ()
    assert inner.backing == ("loop8", "loop7")
    assert refusal_reasons(usage) == ("/dev/loop9 is mounted at /mnt/inner — unmount it first",)


def test_root_on_a_loop_stacked_on_the_target_is_found_through_the_stack() -> None:
    usage = usage_of("nvme0n1", root_majmin=(7, 9), database_majmin=(7, 9))
    assert usage.backs_root == ("nvme0n1p1",)
    assert usage.holds_database == ("nvme0n1p1",)


def test_a_detached_loop_and_an_unrelated_loop_are_not_reasons() -> None:
    assert refusal_reasons(usage_of("loop14")) == ()
    assert usage_of("loop10").backing_usage == DeviceUsage(
        name="nvme0n1",
        mounts=(("nvme0n1p3", "/data"),),
        backs_loops=(STACK_7, LoopBacking("nvme0n1p3", "loop11")),
    )


def _tree_with_images(tmp_path: Path, twelve: str, thirteen: str) -> Path:
    tree = tmp_path / "loop_stack"
    shutil.copytree(TREE, tree, symlinks=True)
    for minor, path in ((12, twelve), (13, thirteen)):
        (tree / "sys" / "devices" / "virtual" / "block" / f"loop{minor}" / "loop").joinpath(
            "backing_file"
        ).write_text(path + "\n")
    return tree


def test_two_loops_on_one_image_refuse_each_other(tmp_path: Path) -> None:
    image = tmp_path / "disk.img"
    image.write_bytes(b"\0" * 4096)
    tree = _tree_with_images(tmp_path, str(image), str(image))
    usage = usage_of("loop12", tree)
    assert usage.shares_backing == (LoopBacking("loop12", "loop13", backing_path=str(image)),)
    assert usage.backing is None
    assert usage.backing_usage is None
    assert refusal_reasons(usage) == (
        f"/dev/loop12 and /dev/loop13 are attached to the same file ({image}) — writing to one "
        "rewrites the other; detach it first: losetup -d /dev/loop13",
    )
    assert [b.loop for b in usage_of("loop13", tree).shares_backing] == ["loop12"]


def test_the_same_file_under_another_name_is_the_same_file(tmp_path: Path) -> None:
    image = tmp_path / "disk.img"
    image.write_bytes(b"\0" * 4096)
    os.link(image, tmp_path / "hardlink.img")
    (tmp_path / "symlink.img").symlink_to(image)
    tree = _tree_with_images(
        tmp_path, str(tmp_path / "hardlink.img"), str(tmp_path / "symlink.img")
    )
    assert [b.loop for b in usage_of("loop12", tree).shares_backing] == ["loop13"]


def test_loops_on_different_or_vanished_files_do_not_share(tmp_path: Path) -> None:
    first, second = tmp_path / "a.img", tmp_path / "b.img"
    first.write_bytes(b"a")
    second.write_bytes(b"b")
    assert usage_of("loop12", _tree_with_images(tmp_path, str(first), str(second))) == (
        DeviceUsage(name="loop12")
    )
    gone = f"{tmp_path / 'gone.img'} (deleted)"
    assert usage_of("loop12", _tree_with_images(tmp_path / "x", gone, gone)) == (
        DeviceUsage(name="loop12")
    )


def test_a_loop_stacked_on_the_target_loop_and_sharing_its_file_is_named(tmp_path: Path) -> None:
    """The shared loop has a stack of its own: the advice detaches it from the top down."""
    image = tmp_path / "disk.img"
    image.write_bytes(b"\0" * 4096)
    tree = _tree_with_images(tmp_path, str(image), str(image))
    loop8 = tree / "sys" / "devices" / "virtual" / "block" / "loop8" / "loop" / "backing_file"
    loop8.write_text("/dev/loop13\n")
    (shared,) = usage_of("loop12", tree).shares_backing
    assert shared == LoopBacking(
        "loop12", "loop13", above=("loop8", "loop9"), mounts=INNER, backing_path=str(image)
    )
    assert refusal_reasons(DeviceUsage(name="loop12", shares_backing=(shared,)))[0].endswith(
        "umount /mnt/inner; losetup -d /dev/loop9 /dev/loop8 /dev/loop13"
    )
