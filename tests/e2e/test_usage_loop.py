"""Device usage and identity on real loop devices this test creates (root + losetup).

Every loop device, mount and swap made here is undone in fixture teardown; nothing else on
the machine is touched.
"""

from pathlib import Path

import pytest

from ssdlab.errors import SafetyRefusal
from ssdlab.plan.safety import check_write_allowed, refusal_reasons
from ssdlab.system.block import (
    block_device_of_path,
    partitions_of,
    read_device_identity,
    resolve_block_device,
)
from ssdlab.system.usage import read_device_usage
from tests.e2e.conftest import IMAGE_BYTES, LoopLab, needs_loop

pytestmark = [pytest.mark.loop, needs_loop]


def test_a_mounted_loop_device_is_reported_mounted(lab: LoopLab) -> None:
    loop = lab.loop()
    mount_point = lab.mount_new_ext4(loop.path)
    usage = read_device_usage(loop.name, None)
    assert usage.mounts == ((loop.name, str(mount_point)),)
    assert refusal_reasons(usage) == (
        f"{loop.path} is mounted at {mount_point} — unmount it first",
    )
    with pytest.raises(SafetyRefusal, match="unmount it first"):
        check_write_allowed(loop.path, loop.path, loop.path, usage)


def test_a_loop_device_with_active_swap_is_reported_as_swap(lab: LoopLab) -> None:
    loop = lab.loop()
    lab.swapon(loop.path)
    usage = read_device_usage(loop.name, None)
    assert usage.swaps == (loop.name,)
    assert usage.mounts == ()
    assert refusal_reasons(usage) == (f"{loop.path} is active swap — swapoff it first",)


def test_a_symlink_to_a_mounted_loop_device_resolves_and_is_reported(
    lab: LoopLab, tmp_path: Path
) -> None:
    loop = lab.loop()
    mount_point = lab.mount_new_ext4(loop.path)
    link = tmp_path / "by-id-link"
    link.symlink_to(loop.path)
    name = resolve_block_device(str(link))
    assert name == loop.name
    assert read_device_usage(name, None).mounts == ((loop.name, str(mount_point)),)


def test_a_loop_device_holding_the_database_is_reported(lab: LoopLab) -> None:
    loop = lab.loop()
    mount_point = lab.mount_new_ext4(loop.path)
    database = mount_point / "not" / "yet" / "ssdlab.db"  # nearest existing parent is used
    usage = read_device_usage(loop.name, str(database))
    assert usage.holds_database == (loop.name,)
    assert f"{loop.path} holds the ssdlab database ({database}) — use --db elsewhere" in (
        refusal_reasons(usage, database_path=str(database))
    )
    assert block_device_of_path(str(mount_point)) == loop.name


def test_an_unused_loop_device_is_allowed_and_identified(lab: LoopLab, tmp_path: Path) -> None:
    loop = lab.loop()
    usage = read_device_usage(loop.name, str(tmp_path / "ssdlab.db"))
    assert refusal_reasons(usage) == ()
    check_write_allowed(loop.path, loop.path, loop.path, usage)
    with pytest.raises(SafetyRefusal, match=f"repeat the device: --destroy-data {loop.path}$"):
        check_write_allowed(loop.path, None, None, usage)
    identity = read_device_identity(loop.name)
    assert identity.transport == "loop"
    assert identity.backing_file == str(loop.image.resolve())
    assert identity.capacity_bytes == IMAGE_BYTES
    assert identity.logical_block_bytes == 512
    assert identity.path == loop.path
    assert identity.model is None  # a loop device has no model: None, not ""


def test_resolving_the_device_node_gives_its_kernel_name(lab: LoopLab) -> None:
    loop = lab.loop()
    assert resolve_block_device(loop.path) == loop.name


def test_a_mounted_partition_of_a_loop_device_is_reported(lab: LoopLab) -> None:
    loop = lab.loop(partitions=True)
    partitions = partitions_of(loop.name)
    if not partitions:
        pytest.skip(
            "the kernel found no partition on the loop device (built without MS-DOS partition "
            "table support?)"
        )
    assert partitions == (f"{loop.name}p1",)
    mount_point = lab.mount_new_ext4(f"/dev/{partitions[0]}")
    usage = read_device_usage(loop.name, None)
    assert usage.mounts == ((partitions[0], str(mount_point)),)
    assert refusal_reasons(usage) == (
        f"/dev/{partitions[0]} (partition of {loop.path}) is mounted at {mount_point} — "
        "unmount it first",
    )
    partition = read_device_identity(partitions[0])
    assert partition.capacity_bytes == IMAGE_BYTES - 2048 * 512
    assert partition.transport == "loop"
