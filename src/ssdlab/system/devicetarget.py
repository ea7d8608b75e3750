"""Block-device targets: identify the device, and check that writing to it is allowed."""

import errno
import os
import stat
from pathlib import Path

from ssdlab.errors import TargetError
from ssdlab.model.target import Target, TargetKind
from ssdlab.model.units import format_size
from ssdlab.plan.jobfile import check_fio_path
from ssdlab.plan.safety import check_write_allowed
from ssdlab.system.block import read_device_identity, resolve_block_device
from ssdlab.system.claims import device_busy_refusal
from ssdlab.system.usage import read_device_usage


def is_block_device_path(requested: str) -> bool:
    """Whether `requested` (after following symlinks) is a block device node."""
    try:
        return stat.S_ISBLK(os.stat(requested).st_mode)
    except OSError:
        return False


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
    warnings = []
    if identity.rotational:
        warnings.append(f"{node} reports itself as rotational (a hard disk, or unknown)")
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
