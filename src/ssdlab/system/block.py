"""Block devices as sysfs describes them: names, partitions, holders, identity.

Every function takes ``sysfs_root`` (default /sys) so tests can point it at a recorded tree
(tests/data/sysfs/). A sysfs attribute that is missing, unreadable or empty reads as None,
never as 0.
"""

import os
import re
import stat
from pathlib import Path

from ssdlab.errors import TargetError
from ssdlab.model.target import DeviceIdentity

SYSFS_ROOT = Path("/sys")
SECTOR_BYTES = 512  # sysfs "size" is always in 512-byte sectors, whatever the block size

_QUEUE_SETTINGS = (
    "scheduler",
    "nr_requests",
    "read_ahead_kb",
    "max_sectors_kb",
    "write_cache",
    "rq_affinity",
    "nomerges",
    "rotational",
)
_SELECTED_SCHEDULER = re.compile(r"\[([^\]]+)\]")
_SCSI_ADDRESS = re.compile(r"^\d+:\d+:\d+:\d+$")
_ATA_PORT = re.compile(r"^ata\d+$")
_USB_BUS = re.compile(r"^usb\d+$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_NAMESPACE = re.compile(r"^(nvme\d+)n\d+$")


def _check_name(name: str) -> None:
    if not name or "/" in name or name in {".", ".."}:
        raise TargetError(f"{name!r} is not a kernel block device name")


def dev_path_of(name: str) -> str:
    """The device node of a kernel name (sysfs writes '/' in names as '!': cciss!c0d0)."""
    return "/dev/" + name.replace("!", "/")


def _class_dir(name: str, sysfs_root: Path) -> Path:
    _check_name(name)
    directory = sysfs_root / "class" / "block" / name
    if not directory.exists():
        raise TargetError(f"{dev_path_of(name)} is not a block device known to the kernel")
    return directory


def _read_text(path: Path) -> str | None:
    try:
        text = path.read_bytes().decode("utf-8", errors="replace").strip()
    except OSError:
        return None
    return text or None


def _read_int(path: Path) -> int | None:
    text = _read_text(path)
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _read_vpd_serial(path: Path) -> str | None:
    """The unit serial number from a raw SCSI VPD page 0x80 (4-byte header, then ASCII)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) < 4 or data[1] != 0x80:
        return None
    length = int.from_bytes(data[2:4], "big")
    serial = data[4 : 4 + length].decode("ascii", errors="replace").strip(" \x00")
    return _CONTROL.sub("?", serial) or None


def _list_dir(path: Path) -> tuple[str, ...]:
    try:
        return tuple(
            sorted(entry.name for entry in path.iterdir() if not entry.name.startswith("."))
        )
    except OSError:
        return ()


def majmin_of(name: str, sysfs_root: Path = SYSFS_ROOT) -> tuple[int, int]:
    """The device's major and minor numbers, from sysfs ``dev`` ("8:0")."""
    text = _read_text(_class_dir(name, sysfs_root) / "dev")
    try:
        major, minor = (text or "").split(":")
        return int(major), int(minor)
    except ValueError:
        raise TargetError(f"sysfs gives no device number for {dev_path_of(name)}") from None


def name_of_majmin(major: int, minor: int, sysfs_root: Path = SYSFS_ROOT) -> str | None:
    """The kernel name of block device major:minor, or None when sysfs has no such device."""
    link = sysfs_root / "dev" / "block" / f"{major}:{minor}"
    if not link.exists():
        return None
    return link.resolve().name


def is_partition(name: str, sysfs_root: Path = SYSFS_ROOT) -> bool:
    return (_class_dir(name, sysfs_root) / "partition").exists()


def whole_disk_of(name: str, sysfs_root: Path = SYSFS_ROOT) -> str:
    """The disk a partition belongs to (sda1 -> sda); a whole disk is its own disk."""
    directory = _class_dir(name, sysfs_root)
    if not (directory / "partition").exists():
        return name
    return directory.resolve().parent.name


def partitions_of(name: str, sysfs_root: Path = SYSFS_ROOT) -> tuple[str, ...]:
    """The partitions of a disk in partition-number order; () for a partition or no table."""
    directory = _class_dir(name, sysfs_root).resolve()
    found = []
    for child in _list_dir(directory):
        number = _read_int(directory / child / "partition")
        if number is not None:
            found.append((number, child))
    return tuple(child for _, child in sorted(found))


def holders_of(name: str, sysfs_root: Path = SYSFS_ROOT) -> tuple[str, ...]:
    """Devices stacked directly on this one (dm-0, md0, bcache0), from sysfs ``holders/``."""
    return _list_dir(_class_dir(name, sysfs_root) / "holders")


def slaves_of(name: str, sysfs_root: Path = SYSFS_ROOT) -> tuple[str, ...]:
    """Devices this one is stacked on (for dm-0: the partitions under it), from ``slaves/``."""
    return _list_dir(_class_dir(name, sysfs_root) / "slaves")


def loop_devices(sysfs_root: Path = SYSFS_ROOT) -> tuple[str, ...]:
    """Every loop device the kernel lists in ``block/`` (attached or not)."""
    return tuple(name for name in _list_dir(sysfs_root / "block") if name.startswith("loop"))


def loop_backing_file(name: str, sysfs_root: Path = SYSFS_ROOT) -> str | None:
    """The path a loop device is attached to (``loop/backing_file``); None when detached.

    The kernel writes the path as the attaching process saw it, with " (deleted)" appended
    when the file has been removed since.
    """
    try:
        text = (_class_dir(name, sysfs_root) / "loop" / "backing_file").read_bytes()
    except (OSError, TargetError):
        return None
    path = os.fsdecode(text.removesuffix(b"\n"))
    return path or None


def loop_range_bytes(name: str, sysfs_root: Path = SYSFS_ROOT) -> tuple[int, int | None]:
    """(offset, length) of the part of its backing file a loop device shows; length None:
    to the end (``loop/sizelimit`` 0). Unreadable values read as the whole file."""
    try:
        directory = _class_dir(name, sysfs_root) / "loop"
    except TargetError:
        return 0, None  # detached meanwhile: taken as the whole file, which refuses more
    offset = _read_int(directory / "offset") or 0
    limit = _read_int(directory / "sizelimit") or 0
    return offset, limit or None


def partition_range_bytes(name: str, sysfs_root: Path = SYSFS_ROOT) -> tuple[int, int] | None:
    """(start, length) of a partition on its disk, from sysfs ``start`` and ``size``; None
    when sysfs does not say."""
    directory = _class_dir(name, sysfs_root)
    start = _read_int(directory / "start")
    sectors = _read_int(directory / "size")
    if start is None or sectors is None:
        return None
    return start * SECTOR_BYTES, sectors * SECTOR_BYTES


def sibling_namespaces(name: str, sysfs_root: Path = SYSFS_ROOT) -> tuple[str, ...]:
    """The other NVMe namespaces of the controller (or subsystem) of ``nvme<C>n<N>``, by the
    kernel's naming: nvme0n2 and nvme0n3 for nvme0n1; () for any other device."""
    match = _NAMESPACE.match(name)
    if match is None:
        return ()
    prefix = match.group(1)
    return tuple(
        entry
        for entry in _list_dir(sysfs_root / "block")
        if entry != name and (found := _NAMESPACE.match(entry)) and found.group(1) == prefix
    )


def resolve_block_device(path: str, sysfs_root: Path = SYSFS_ROOT) -> str:
    """The kernel name of the block device at ``path`` (symlinks such as /dev/disk/by-id/...
    are followed). Raises TargetError when the path is missing or not a block device."""
    try:
        resolved = Path(path).resolve(strict=True)
        info = resolved.stat()
    except FileNotFoundError:
        raise TargetError(f"{path} does not exist") from None
    except OSError as error:
        raise TargetError(f"cannot look at {path}: {error.strerror}") from None
    if not stat.S_ISBLK(info.st_mode):
        kind = (
            "a directory"
            if stat.S_ISDIR(info.st_mode)
            else "a regular file"
            if stat.S_ISREG(info.st_mode)
            else "a character device"
            if stat.S_ISCHR(info.st_mode)
            else "a special file"
        )
        shown = path if str(resolved) == path else f"{path} (-> {resolved})"
        raise TargetError(f"{shown} is {kind}, not a block device")
    major, minor = os.major(info.st_rdev), os.minor(info.st_rdev)
    name = name_of_majmin(major, minor, sysfs_root)
    if name is None:
        raise TargetError(
            f"{path} is block device {major}:{minor}, which {sysfs_root}/dev/block does not list"
        )
    return name


def block_device_of_path(path: str, sysfs_root: Path = SYSFS_ROOT) -> str | None:
    """The kernel name of the block device under the filesystem holding ``path``; None for
    filesystems without one (tmpfs, overlay, btrfs, NFS: their st_dev is anonymous)."""
    info = Path(path).stat()
    major, minor = os.major(info.st_dev), os.minor(info.st_dev)
    if major == 0:
        return None
    return name_of_majmin(major, minor, sysfs_root)


def _has_sas_ancestor(device_dir: Path, sysfs_root: Path) -> bool:
    stop = sysfs_root.resolve()
    for directory in (device_dir, *device_dir.parents):
        if directory == stop or stop not in directory.parents:
            return False
        if directory.name.startswith("end_device-"):
            return True
        if any(entry.startswith("sas_") for entry in _list_dir(directory)):
            return True
    return False


def _transport(disk: str, disk_dir: Path, sysfs_root: Path) -> str | None:
    if disk.startswith("nvme"):
        return "nvme"
    if disk.startswith("loop"):
        return "loop"
    if disk.startswith("vd"):
        return "virtio"
    if disk.startswith("mmcblk"):
        return "mmc"
    link = disk_dir / "device"
    if not link.exists():
        return None
    device_dir = link.resolve()
    parts = device_dir.parts
    if any(_USB_BUS.match(part) for part in parts):
        return "usb"
    if any(_ATA_PORT.match(part) for part in parts):
        return "sata"
    if _has_sas_ancestor(device_dir, sysfs_root):
        return "sas"
    if any(_SCSI_ADDRESS.match(part) for part in parts):
        return "scsi"
    return None


def _selected_scheduler(text: str) -> str:
    match = _SELECTED_SCHEDULER.search(text)
    return match.group(1) if match else text


def _queue_settings(queue_dir: Path) -> dict[str, str]:
    settings = {}
    for key in _QUEUE_SETTINGS:
        value = _read_text(queue_dir / key)
        if value is not None:
            settings[key] = _selected_scheduler(value) if key == "scheduler" else value
    return settings


def _first_text(*paths: Path) -> str | None:
    """The first of the files that exists, as identity text: control characters (a device
    reports what its firmware says) shown as '?' so that no report or export carries them."""
    for path in paths:
        value = _read_text(path)
        if value is not None:
            return _CONTROL.sub("?", value)
    return None


def read_sysfs_identity_text(path: Path) -> str | None:
    """One sysfs identity attribute (model, serial, firmware_rev) as _first_text reads it."""
    return _first_text(path)


def read_device_identity(name: str, sysfs_root: Path = SYSFS_ROOT) -> DeviceIdentity:
    """What sysfs says about a block device. For a partition, the hardware facts (model,
    serial, queue, transport) are the disk's and the capacity is the partition's."""
    directory = _class_dir(name, sysfs_root)
    disk = whole_disk_of(name, sysfs_root)
    disk_dir = _class_dir(disk, sysfs_root)
    device = disk_dir / "device"
    queue = disk_dir / "queue"
    sectors = _read_int(directory / "size")
    rotational = _read_int(queue / "rotational")
    serial = _first_text(device / "serial", disk_dir / "serial")
    if serial is None:
        serial = _read_vpd_serial(device / "vpd_pg80")
    if serial is None:
        serial = _first_text(device / "wwid", disk_dir / "wwid")
    return DeviceIdentity(
        name=name,
        path=dev_path_of(name),
        model=_first_text(device / "model", device / "name"),
        vendor=_first_text(device / "vendor"),
        serial=serial,
        firmware=_first_text(device / "firmware_rev", device / "rev", device / "fwrev"),
        capacity_bytes=None if sectors is None else sectors * SECTOR_BYTES,
        logical_block_bytes=_read_int(queue / "logical_block_size"),
        physical_block_bytes=_read_int(queue / "physical_block_size"),
        rotational=None if rotational is None else rotational != 0,
        discard_granularity_bytes=_read_int(queue / "discard_granularity"),
        discard_max_bytes=_read_int(queue / "discard_max_bytes"),
        transport=_transport(disk, disk_dir, sysfs_root),
        backing_file=_read_text(disk_dir / "loop" / "backing_file"),
        queue=_queue_settings(queue),
    )
