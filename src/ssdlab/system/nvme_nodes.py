"""NVMe controllers as device nodes: /dev/nvme0 (a character device) beside its namespaces'
block devices (/dev/nvme0n1).

People read a drive's health through its controller (`smartctl -a /dev/nvme0`); ssdlab accepts
the controller wherever it only reads (health, wear, watch) and describes it as the same drive
as its namespaces: model, serial and firmware from the controller's sysfs directory
(``/sys/class/nvme/nvmeN``), the attributes a namespace's ``device`` link leads to. Writes
always need a namespace's block device.

Under native NVMe multipath (every kernel with CONFIG_NVME_MULTIPATH, the default), a namespace
block device is named by its *subsystem*, not its controller, and its ``device`` link leads to
the subsystem (``/sys/class/nvme-subsystem/nvme-subsysN``), which lists its controllers: the
numbers in nvme1n1 and nvme1 need not be the same controller's. The namespaces of a controller
are found through those links, never through the names.
"""

import os
import re
import stat
from pathlib import Path

from ssdlab.errors import TargetError
from ssdlab.model.target import DeviceIdentity
from ssdlab.system.block import (
    SYSFS_ROOT,
    read_device_identity,
    read_sysfs_identity_text,
    resolve_block_device,
)

_CONTROLLER = re.compile(r"^nvme\d+$")
_NAMESPACE = re.compile(r"^nvme\d+n\d+$")


def nvme_controller_of(path: str, sysfs_root: Path = SYSFS_ROOT) -> str | None:
    """The kernel name of the NVMe controller whose character device ``path`` is (nvme0 for
    /dev/nvme0, symlinks followed); None for anything else."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISCHR(info.st_mode):
        return None
    return controller_of_devnum(os.major(info.st_rdev), os.minor(info.st_rdev), sysfs_root)


def controller_of_devnum(major: int, minor: int, sysfs_root: Path = SYSFS_ROOT) -> str | None:
    """The NVMe controller that character device major:minor is, by sysfs (``dev/char``, and
    ``class/nvme`` listing the same directory); None for any other character device, such as a
    namespace's generic node (ng0n1)."""
    try:
        directory = (sysfs_root / "dev" / "char" / f"{major}:{minor}").resolve(strict=True)
    except OSError:
        return None
    name = directory.name
    if not _CONTROLLER.match(name):
        return None
    try:
        listed = (sysfs_root / "class" / "nvme" / name).resolve(strict=True)
    except OSError:
        return None
    return name if listed == directory else None


def is_drive_path(path: str, sysfs_root: Path = SYSFS_ROOT) -> bool:
    """Whether ``path`` names a drive to read: a block device or an NVMe controller."""
    try:
        if stat.S_ISBLK(os.stat(path).st_mode):
            return True
    except OSError:
        return False
    return nvme_controller_of(path, sysfs_root) is not None


def controller_namespaces(controller: str, sysfs_root: Path = SYSFS_ROOT) -> tuple[str, ...]:
    """The block devices of the controller's namespaces (nvme0n1, …), found through each
    namespace's ``device`` link: the controller itself, or a subsystem that lists it."""
    try:
        directory = (sysfs_root / "class" / "nvme" / controller).resolve(strict=True)
    except OSError:
        return ()
    found = []
    block = sysfs_root / "class" / "block"
    try:
        names = sorted(entry.name for entry in block.iterdir())
    except OSError:
        return ()
    for name in names:
        if not _NAMESPACE.match(name):
            continue
        try:
            parent = (block / name / "device").resolve(strict=True)
        except OSError:
            continue
        if parent == directory or _lists_controller(parent, controller, directory):
            found.append(name)
    return tuple(found)


def _lists_controller(subsystem: Path, controller: str, directory: Path) -> bool:
    entry = subsystem / controller
    try:
        return entry.is_symlink() and entry.resolve(strict=True) == directory
    except OSError:
        return False


def controller_capacity_bytes(controller: str, sysfs_root: Path = SYSFS_ROOT) -> int | None:
    """The capacity of the controller's namespaces together (sysfs ``size`` of each, in
    512-byte sectors); None when it has none or a size cannot be read."""
    names = controller_namespaces(controller, sysfs_root)
    sizes = [read_device_identity(name, sysfs_root).capacity_bytes for name in names]
    if not sizes or any(size is None for size in sizes):
        return None
    return sum(size for size in sizes if size is not None)


def controller_write_refusal(path: str, sysfs_root: Path = SYSFS_ROOT) -> str | None:
    """Why a write test cannot run on ``path`` when it is an NVMe controller (its namespaces
    hold the data, and fio writes to a block device), naming them; None for anything else."""
    controller = nvme_controller_of(path, sysfs_root)
    if controller is None:
        return None
    return controller_refusal_text(path, controller, sysfs_root)


def controller_refusal_text(path: str, controller: str, sysfs_root: Path = SYSFS_ROOT) -> str:
    """The sentence of controller_write_refusal for ``controller`` named as ``path``."""
    namespaces = controller_namespaces(controller, sysfs_root)
    named = ", ".join(f"/dev/{name}" for name in namespaces) or "none is attached now"
    return (
        f"{path} is an NVMe controller; a test runs on one of its namespaces' block devices "
        f"({named}), named as the target and again with --destroy-data"
    )


def read_controller_identity(controller: str, sysfs_root: Path = SYSFS_ROOT) -> DeviceIdentity:
    """The controller as a drive: the model, serial and firmware its namespaces show."""
    directory = sysfs_root / "class" / "nvme" / controller
    if not directory.exists():
        raise TargetError(f"/dev/{controller} is not an NVMe controller known to the kernel")
    return DeviceIdentity(
        name=controller,
        path=f"/dev/{controller}",
        model=read_sysfs_identity_text(directory / "model"),
        serial=read_sysfs_identity_text(directory / "serial"),
        firmware=read_sysfs_identity_text(directory / "firmware_rev"),
        capacity_bytes=controller_capacity_bytes(controller, sysfs_root),
        transport="nvme",
    )


def read_drive_identity(path: str, sysfs_root: Path = SYSFS_ROOT) -> DeviceIdentity:
    """What sysfs says about the drive at ``path``: a block device, or an NVMe controller."""
    controller = nvme_controller_of(path, sysfs_root)
    if controller is not None:
        return read_controller_identity(controller, sysfs_root)
    return read_device_identity(resolve_block_device(path, sysfs_root), sysfs_root)
