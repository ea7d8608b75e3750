"""Find everything that uses a block device: mounts, swap, stacked devices, /, the database.

``find_device_usage`` works from texts and an (injectable) sysfs tree so recorded cases can be
replayed; ``read_device_usage`` feeds it the live system. plan/safety.py judges the result.
"""

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from ssdlab.errors import TargetError, UsageError
from ssdlab.model.target import DeviceUsage
from ssdlab.parse.mountinfo import MountEntry, mount_containing, parse_mountinfo, parse_swaps
from ssdlab.system.block import SYSFS_ROOT, holders_of, majmin_of, name_of_majmin, partitions_of

DEV_ROOT = Path("/dev")
PROC_ROOT = Path("/proc")


def _on_dev_root(path: str, dev_root: Path) -> Path:
    """A /dev/... path as seen under ``dev_root`` (identity for the real /dev)."""
    if dev_root != DEV_ROOT and (path == "/dev" or path.startswith("/dev/")):
        return dev_root / path.removeprefix("/dev").lstrip("/")
    return Path(path)


def _names_device(
    path: str, node_paths: dict[str, str], majmins: dict[tuple[int, int], str], dev_root: Path
) -> str | None:
    """Which of our devices a path (mount source, swap name) refers to, if any.

    Only /dev paths are looked at: a device node lives there, and a path elsewhere (a swap
    file, a FUSE source) is never one of ours and may sit on a slow or hung filesystem.
    """
    if not path.startswith("/dev/"):
        return None
    resolved = os.path.realpath(_on_dev_root(path, dev_root))
    by_path = node_paths.get(resolved)
    if by_path is not None:
        return by_path
    try:
        info = Path(resolved).stat()
    except OSError:
        return None
    if stat.S_ISBLK(info.st_mode):
        return majmins.get((os.major(info.st_rdev), os.minor(info.st_rdev)))
    return None


def _stack_majmins(name: str, sysfs_root: Path) -> set[tuple[int, int]]:
    """The device numbers of ``name`` and of every device stacked on it, transitively."""
    found: set[tuple[int, int]] = set()
    seen: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            found.add(majmin_of(current, sysfs_root))
        except TargetError:
            continue
        pending.extend(holders_of(current, sysfs_root))
    return found


def find_device_usage(
    name: str,
    *,
    sysfs_root: Path,
    mountinfo_text: str,
    swaps_text: str,
    root_majmin: tuple[int, int] | None,
    database_majmin: tuple[int, int] | None,
    dev_root: Path = DEV_ROOT,
) -> DeviceUsage:
    """Everything that uses ``name`` or one of its partitions.

    A device is mounted when a mountinfo entry carries its major:minor or its source path
    resolves to its node under ``dev_root``; it is swap when a /proc/swaps name resolves to it
    (a swap file lives on a filesystem, which the mounts already cover). Holders are the
    devices stacked directly on it; / and the database are found through the whole stack.
    """
    devices = (name, *partitions_of(name, sysfs_root))
    majmins = {majmin_of(device, sysfs_root): device for device in devices}
    node_paths = {
        os.path.realpath(dev_root / device.replace("!", "/")): device for device in devices
    }

    mounts: list[tuple[str, str]] = []
    for entry in parse_mountinfo(mountinfo_text):
        device = majmins.get((entry.major, entry.minor)) or _names_device(
            entry.source, node_paths, majmins, dev_root
        )
        if device is not None and (device, entry.mount_point) not in mounts:
            mounts.append((device, entry.mount_point))

    swaps: list[str] = []
    for swap in parse_swaps(swaps_text):
        device = _names_device(swap, node_paths, majmins, dev_root)
        if device is not None and device not in swaps:
            swaps.append(device)

    holders = [(device, holder) for device in devices for holder in holders_of(device, sysfs_root)]

    backs_root: list[str] = []
    holds_database: list[str] = []
    for device in devices:
        stack = _stack_majmins(device, sysfs_root)
        if root_majmin is not None and root_majmin in stack:
            backs_root.append(device)
        if database_majmin is not None and database_majmin in stack:
            holds_database.append(device)

    return DeviceUsage(
        name=name,
        mounts=tuple(mounts),
        swaps=tuple(swaps),
        holders=tuple(holders),
        backs_root=tuple(backs_root),
        holds_database=tuple(holds_database),
    )


def _nearest_existing(path: str) -> str:
    current = Path(path).expanduser().absolute()
    while not current.exists() and current.parent != current:
        current = current.parent
    return str(current)


def _backing_majmin(path: str, entries: Iterable[MountEntry], sysfs_root: Path) -> tuple[int, int]:
    """The block device number under the filesystem holding ``path``.

    When st_dev is anonymous (btrfs, or a device sysfs does not list), the mount's source
    device is used instead, so a btrfs / on /dev/sda2 still counts as stored on sda2.
    """
    info = Path(path).stat()
    majmin = (os.major(info.st_dev), os.minor(info.st_dev))
    if name_of_majmin(*majmin, sysfs_root) is not None:
        return majmin
    entry = mount_containing(os.path.realpath(path), *majmin, entries)
    if entry is not None and entry.source.startswith("/"):
        try:
            source = Path(entry.source).stat()
        except OSError:
            return majmin
        if stat.S_ISBLK(source.st_mode):
            return os.major(source.st_rdev), os.minor(source.st_rdev)
    return majmin


def _read_proc(path: Path) -> str:
    try:
        return os.fsdecode(path.read_bytes())
    except FileNotFoundError:
        return ""  # /proc/swaps is absent on kernels built without swap


def read_device_usage(
    name: str,
    database_path: str | None,
    *,
    sysfs_root: Path = SYSFS_ROOT,
    proc_root: Path = PROC_ROOT,
) -> DeviceUsage:
    """``find_device_usage`` on the live system: this process's mounts, active swap, the
    device under / and under the database (or its nearest existing parent directory)."""
    mountinfo_text = os.fsdecode((proc_root / "self" / "mountinfo").read_bytes())
    entries = parse_mountinfo(mountinfo_text)
    database_majmin = (
        None
        if database_path is None
        else _backing_majmin(_nearest_existing(database_path), entries, sysfs_root)
    )
    return find_device_usage(
        name,
        sysfs_root=sysfs_root,
        mountinfo_text=mountinfo_text,
        swaps_text=_read_proc(proc_root / "swaps"),
        root_majmin=_backing_majmin("/", entries, sysfs_root),
        database_majmin=database_majmin,
    )


def check_mount_point(path: str) -> str:
    """The path, symlinks resolved, if it is a mount point; UsageError otherwise (fstrim acts on
    a whole mounted filesystem, so ssdlab only runs it on one the user named exactly)."""
    resolved = os.path.realpath(path)
    if not os.path.ismount(resolved):
        raise UsageError(
            f"--fstrim {path}: not a mount point; name the mount point itself ('findmnt' "
            "lists them)"
        )
    return resolved
