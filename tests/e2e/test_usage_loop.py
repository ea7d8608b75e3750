"""Device usage and identity on real loop devices this test creates (root + losetup).

Every loop device, mount and swap made here is undone in fixture teardown; nothing else on
the machine is touched.
"""

import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
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

IMAGE_BYTES = 32 * 2**20


def _missing_capability() -> str | None:
    if os.geteuid() != 0:
        return "needs root to create loop devices"
    if shutil.which("losetup") is None:
        return "losetup is not installed"
    if not Path("/dev/loop-control").exists():
        return "the kernel offers no loop devices (/dev/loop-control missing)"
    return None


pytestmark = [
    pytest.mark.loop,
    pytest.mark.skipif(_missing_capability() is not None, reason=str(_missing_capability())),
]


def run(*argv: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr}")
    return done.stdout


def need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")


@dataclass
class Loop:
    path: str  # /dev/loopN
    name: str  # loopN
    image: Path


@dataclass
class LoopLab:
    """Makes loop devices over images in a temp dir and undoes everything it did."""

    folder: Path
    loops: list[Loop] = field(default_factory=list)
    mounts: list[Path] = field(default_factory=list)
    swaps: list[str] = field(default_factory=list)

    def loop(self, image_bytes: int = IMAGE_BYTES, *, partitions: bool = False) -> Loop:
        image = self.folder / f"disk{len(self.loops)}.img"
        with image.open("wb") as handle:
            handle.truncate(image_bytes)
        if partitions:
            write_mbr_with_one_partition(image, image_bytes)
        argv = ["losetup", "-f", "--show", *(["-P"] if partitions else []), str(image)]
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            pytest.skip(f"cannot create a loop device: {done.stderr.strip()}")
        path = done.stdout.strip()
        loop = Loop(path=path, name=Path(path).name, image=image)
        self.loops.append(loop)
        return loop

    def mount_new_ext4(self, device: str) -> Path:
        need("mkfs.ext4", "mount", "umount")
        run("mkfs.ext4", "-q", "-F", device)
        mount_point = self.folder / f"mnt{len(self.mounts)}"
        mount_point.mkdir()
        run("mount", device, str(mount_point))
        self.mounts.append(mount_point)
        return mount_point

    def swapon(self, device: str) -> None:
        need("mkswap", "swapon", "swapoff")
        run("mkswap", device)
        run("swapon", device)
        self.swaps.append(device)

    def undo(self) -> None:
        for device in reversed(self.swaps):
            subprocess.run(["swapoff", device], capture_output=True, check=False)
        for mount_point in reversed(self.mounts):
            done = subprocess.run(["umount", str(mount_point)], capture_output=True, check=False)
            if done.returncode != 0:
                subprocess.run(["umount", "-l", str(mount_point)], capture_output=True, check=False)
        for loop in reversed(self.loops):
            subprocess.run(["losetup", "-d", loop.path], capture_output=True, check=False)


def write_mbr_with_one_partition(image: Path, image_bytes: int) -> None:
    """An MS-DOS partition table with one Linux partition from sector 2048 to the end."""
    start, count = 2048, image_bytes // 512 - 2048
    entry = (
        bytes([0x00, 0xFE, 0xFF, 0xFF, 0x83, 0xFE, 0xFF, 0xFF])
        + start.to_bytes(4, "little")
        + count.to_bytes(4, "little")
    )
    with image.open("r+b") as handle:
        handle.seek(446)
        handle.write(entry)
        handle.seek(510)
        handle.write(b"\x55\xaa")


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[LoopLab]:
    made = LoopLab(tmp_path)
    try:
        yield made
    finally:
        made.undo()


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
