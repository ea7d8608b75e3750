"""Block-device targets: identify the device, and check that writing to it is allowed."""

import dataclasses
import errno
import os
import stat
from pathlib import Path

from ssdlab.errors import TargetError
from ssdlab.model.target import DeviceIdentity, Target, TargetKind
from ssdlab.model.units import format_size
from ssdlab.plan.jobfile import check_fio_path
from ssdlab.plan.safety import check_write_allowed
from ssdlab.system.block import SYSFS_ROOT, read_device_identity, resolve_block_device
from ssdlab.system.claims import device_busy_refusal
from ssdlab.system.filetarget import read_filesystem
from ssdlab.system.usage import read_device_usage


def is_block_device_path(requested: str) -> bool:
    """Whether `requested` (after following symlinks) is a block device node."""
    try:
        return stat.S_ISBLK(os.stat(requested).st_mode)
    except OSError:
        return False


MEMORY_FILESYSTEMS = ("tmpfs", "ramfs", "devtmpfs")


def _loop_direct_io(name: str, sysfs_root: Path) -> bool | None:
    """Whether the loop driver opens its backing file with O_DIRECT (``loop/dio``)."""
    try:
        text = (sysfs_root / "class" / "block" / name / "loop" / "dio").read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return {"1": True, "0": False}.get(text)


def _backing_fs_type(backing: str) -> str | None:
    """The filesystem type holding a loop's backing file, None when it cannot be told."""
    try:
        return read_filesystem(Path(backing).parent).fs_type
    except OSError:
        return None


def device_warnings(
    node: str, identity: DeviceIdentity, sysfs_root: Path = SYSFS_ROOT
) -> list[str]:
    """What a reader of the numbers must know about the device itself. A loop device is not
    a drive: on a regular file without direct I/O its reads and writes go through the page
    cache (it measures memory); it is never called rotational."""
    if identity.transport != "loop" and not identity.name.startswith("loop"):
        if identity.rotational:
            return [f"{node} reports itself as rotational (a hard disk, or unknown)"]
        return []
    backing = identity.backing_file
    if backing is None:
        return []
    fs_type = _backing_fs_type(backing)
    if fs_type in MEMORY_FILESYSTEMS:
        return [
            f"{node} is a loop device on {backing}, a file on {fs_type}: this measures "
            "memory, not a drive"
        ]
    try:
        regular = stat.S_ISREG(os.stat(backing).st_mode)
    except OSError:
        regular = True  # gone or unreadable: judge by the loop driver's own setting
    if not regular:
        return [f"{node} is a loop device on {backing}: the numbers are that device's"]
    if _loop_direct_io(identity.name, sysfs_root) is False:
        return [
            f"{node} is a loop device on the regular file {backing} without direct I/O "
            "(loop/dio is 0): its I/O goes through the page cache, so this measures memory, "
            "not a drive"
        ]
    return [
        f"{node} is a loop device on the regular file {backing}: the numbers include its "
        "filesystem and are not a drive's own"
    ]


def with_loop_warnings(target: Target) -> Target:
    """A file target on a filesystem whose device is a loop device: the loop's warnings added
    (a file on a loop over a regular file without direct I/O measures memory too)."""
    device = target.device
    if target.kind is not TargetKind.FILE or device is None:
        return target
    if device.transport != "loop" and not device.name.startswith("loop"):
        return target
    extra = tuple(w for w in device_warnings(device.path, device) if w not in target.warnings)
    return dataclasses.replace(target, warnings=(*target.warnings, *extra)) if extra else target


def resolve_device_target(requested: str, size_bytes: int) -> Target:
    name = resolve_block_device(requested)
    identity = read_device_identity(name)
    node = os.path.realpath(requested)
    check_fio_path(node)
    capacity = identity.capacity_bytes
    if capacity is not None and capacity < size_bytes:
        raise TargetError(
            f"{node} holds {format_size(capacity)}, less than the {format_size(size_bytes)} "
            "test size; choose a smaller --size"
        )
    warnings = device_warnings(node, identity)
    return Target(
        kind=TargetKind.DEVICE,
        path=node,
        size_bytes=size_bytes,
        requested=requested,
        created_file=False,
        direct_io=True,
        device=identity,
        warnings=tuple(warnings),
    )


def check_device_writes(target: Target, destroy_data: str | None, database_path: Path) -> None:
    """Raise SafetyRefusal unless the user named this device with --destroy-data and nothing
    uses it. Runs before anything is opened for writing.

    Last of all the device is opened read-only with O_EXCL, which the kernel refuses (EBUSY)
    while anything holds it: this also catches users that mountinfo and holders/ do not show,
    such as ZFS pool members or the second device of a multi-device btrfs.
    """
    if target.device is None:
        raise TargetError(f"{target.path} has no device identity")
    usage = read_device_usage(target.device.name, str(database_path))
    resolved = (
        os.path.realpath(destroy_data) if destroy_data and os.path.exists(destroy_data) else None
    )
    check_write_allowed(
        target.path, destroy_data, resolved, usage, database_path=str(database_path)
    )
    try:
        fd = os.open(target.path, os.O_RDONLY | os.O_EXCL)
    except OSError as error:
        if error.errno == errno.EBUSY:
            raise device_busy_refusal(target.path) from error
        raise TargetError(f"cannot open {target.path}: {error.strerror}") from error
    os.close(fd)
