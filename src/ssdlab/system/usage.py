"""Find everything that uses a block device: mounts, swap, stacked devices, /, the database.

``find_device_usage`` works from texts and an (injectable) sysfs tree so recorded cases can be
replayed; ``read_device_usage`` feeds it the live system. plan/safety.py judges the result.
"""

import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import TargetError, UsageError
from ssdlab.model.target import DeviceUsage, LoopBacking
from ssdlab.parse.mountinfo import MountEntry, mount_containing, parse_mountinfo, parse_swaps
from ssdlab.system.block import (
    SYSFS_ROOT,
    holders_of,
    loop_backing_file,
    loop_devices,
    loop_range_bytes,
    majmin_of,
    name_of_majmin,
    partition_range_bytes,
    partitions_of,
    whole_disk_of,
)

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


@dataclass(frozen=True, slots=True)
class _Loop:
    """An attached loop device: the path it shows in sysfs and the block device that is."""

    name: str
    path: str  # loop/backing_file as the kernel shows it
    block: str | None  # kernel name of the backing block device; None for a file


@dataclass(frozen=True, slots=True)
class _Scene:
    """Everything find_device_usage looks at, read once."""

    sysfs_root: Path
    dev_root: Path
    mounts: tuple[MountEntry, ...]
    swaps: tuple[str, ...]
    root_majmin: tuple[int, int] | None
    database_majmin: tuple[int, int] | None
    loops: Mapping[str, _Loop]

    def loops_on(self, devices: Iterable[str]) -> tuple[str, ...]:
        wanted = set(devices)
        return tuple(loop.name for loop in self.loops.values() if loop.block in wanted)


def _partitions(name: str, sysfs_root: Path) -> tuple[str, ...]:
    try:
        return partitions_of(name, sysfs_root)
    except TargetError:
        return ()


def _backing_block(path: str, sysfs_root: Path, dev_root: Path) -> str | None:
    """The kernel name of the block device a loop's backing path is, or None (a file).

    Only /dev paths are looked at (a device node lives there, and a path elsewhere may sit on
    a slow or hung filesystem). The node under ``dev_root`` is stat'ed (st_rdev); a recorded
    tree, which has no device nodes, names the device by its path (/dev/cciss/c0d0 is
    cciss!c0d0).
    """
    if not path.startswith("/dev/"):
        return None
    node = _on_dev_root(path, dev_root)
    try:
        info = node.stat()
    except OSError:
        resolved = Path(os.path.realpath(node))
        try:
            relative = resolved.relative_to(os.path.realpath(dev_root))
        except ValueError:
            return None
        name = str(relative).replace("/", "!")
        if name in {"", "."} or not (sysfs_root / "class" / "block" / name).exists():
            return None
        return name
    if not stat.S_ISBLK(info.st_mode):
        return None
    return name_of_majmin(os.major(info.st_rdev), os.minor(info.st_rdev), sysfs_root)


def _read_loops(sysfs_root: Path, dev_root: Path) -> dict[str, _Loop]:
    loops = {}
    for name in loop_devices(sysfs_root):
        path = loop_backing_file(name, sysfs_root)
        if path is not None:
            loops[name] = _Loop(name, path, _backing_block(path, sysfs_root, dev_root))
    return loops


def _file_identity(path: str) -> tuple[int, int] | None:
    """(st_dev, st_ino) of a regular file; None when it cannot be looked at (" (deleted)")."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return info.st_dev, info.st_ino


def _stack_majmins(name: str, scene: _Scene) -> set[tuple[int, int]]:
    """The device numbers of ``name`` and of every device stacked on it, transitively:
    holders (dm, md, bcache), loop devices attached to it, and their partitions."""
    found: set[tuple[int, int]] = set()
    seen: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            found.add(majmin_of(current, scene.sysfs_root))
            pending.extend(holders_of(current, scene.sysfs_root))
        except TargetError:
            continue
        pending.extend(scene.loops_on((current,)))
        if current != name:
            pending.extend(_partitions(current, scene.sysfs_root))
    return found


def _loops_above(loop: str, scene: _Scene) -> tuple[str, ...]:
    """The loop devices stacked on ``loop`` (or on its partitions), transitively, nearest
    first."""
    above: list[str] = []
    seen = {loop}
    pending = [loop]
    while pending:
        current = pending.pop(0)
        for upper in scene.loops_on((current, *_partitions(current, scene.sysfs_root))):
            if upper not in seen:
                seen.add(upper)
                above.append(upper)
                pending.append(upper)
    return tuple(above)


def _mounts_of(devices: Iterable[str], scene: _Scene) -> list[tuple[str, str]]:
    """(device, mount point) for every mount of one of ``devices``."""
    majmins: dict[tuple[int, int], str] = {}
    node_paths: dict[str, str] = {}
    for device in devices:
        try:
            majmins[majmin_of(device, scene.sysfs_root)] = device
        except TargetError:
            continue
        node_paths[os.path.realpath(scene.dev_root / device.replace("!", "/"))] = device
    mounts: list[tuple[str, str]] = []
    for entry in scene.mounts:
        found = majmins.get((entry.major, entry.minor)) or _names_device(
            entry.source, node_paths, majmins, scene.dev_root
        )
        if found is not None and (found, entry.mount_point) not in mounts:
            mounts.append((found, entry.mount_point))
    return mounts


def _loop_backing(
    device: str, loop: str, scene: _Scene, *, through: str | None = None, path: str | None = None
) -> LoopBacking:
    above = _loops_above(loop, scene)
    stack = [
        part
        for member in (loop, *above)
        for part in (member, *_partitions(member, scene.sysfs_root))
    ]
    return LoopBacking(
        device=device,
        loop=loop,
        above=above,
        mounts=tuple(_mounts_of(stack, scene)),
        through=through,
        backing_path=path,
    )


def _overlap(first: tuple[int, int | None], second: tuple[int, int] | None) -> bool:
    """Whether two byte ranges (start, length; None: to the end) share a byte; an unknown
    second range is taken to overlap."""
    if second is None:
        return True
    start, length = first
    return (length is None or start + length > second[0]) and start < second[0] + second[1]


def _backs_loops(
    name: str, devices: tuple[str, ...], scene: _Scene, excluded: frozenset[str]
) -> tuple[LoopBacking, ...]:
    found = [
        _loop_backing(device, loop, scene)
        for device in devices
        for loop in scene.loops_on((device,))
        if loop not in excluded
    ]
    disk = whole_disk_of(name, scene.sysfs_root)
    if disk != name:  # a loop on the whole disk that shows this partition's bytes
        span = partition_range_bytes(name, scene.sysfs_root)
        for loop in scene.loops_on((disk,)):
            if loop not in excluded and _overlap(loop_range_bytes(loop, scene.sysfs_root), span):
                found.append(_loop_backing(name, loop, scene, through=disk))
    return tuple(found)


def _shares_backing(loop: _Loop, scene: _Scene) -> tuple[LoopBacking, ...]:
    """Other loop devices attached to the same regular file (same st_dev and st_ino) as
    ``loop``: writing one rewrites the other. Only looked at for a file-backed loop target."""
    identity = _file_identity(loop.path)
    if identity is None:
        return ()
    return tuple(
        _loop_backing(loop.name, other.name, scene, path=loop.path)
        for other in scene.loops.values()
        if other.name != loop.name
        and other.block is None
        and _file_identity(other.path) == identity
    )


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

    Loop devices register no holder, so every ``block/loop*/loop/backing_file`` is read: a
    loop attached to the device, one of its partitions, or (for a partition) to its disk
    over the partition's bytes backs it, with everything stacked on that loop in turn. A
    loop target writes through to what it is attached to: a block device, whose usage is
    found in the same way, or a file, which other loops may show as well.
    """
    scene = _Scene(
        sysfs_root=sysfs_root,
        dev_root=dev_root,
        mounts=tuple(parse_mountinfo(mountinfo_text)),
        swaps=tuple(parse_swaps(swaps_text)),
        root_majmin=root_majmin,
        database_majmin=database_majmin,
        loops=_read_loops(sysfs_root, dev_root),
    )
    return _usage(name, scene, excluded=frozenset(), visiting=frozenset())


def _usage(
    name: str, scene: _Scene, *, excluded: frozenset[str], visiting: frozenset[str]
) -> DeviceUsage:
    sysfs_root, dev_root = scene.sysfs_root, scene.dev_root
    devices = (name, *partitions_of(name, sysfs_root))
    majmins = {majmin_of(device, sysfs_root): device for device in devices}
    node_paths = {
        os.path.realpath(dev_root / device.replace("!", "/")): device for device in devices
    }

    swaps: list[str] = []
    for swap in scene.swaps:
        device = _names_device(swap, node_paths, majmins, dev_root)
        if device is not None and device not in swaps:
            swaps.append(device)

    holders = [(device, holder) for device in devices for holder in holders_of(device, sysfs_root)]

    backs_root: list[str] = []
    holds_database: list[str] = []
    for device in devices:
        stack = _stack_majmins(device, scene)
        if scene.root_majmin is not None and scene.root_majmin in stack:
            backs_root.append(device)
        if scene.database_majmin is not None and scene.database_majmin in stack:
            holds_database.append(device)

    backing: tuple[str, str] | None = None
    backing_usage: DeviceUsage | None = None
    shares: tuple[LoopBacking, ...] = ()
    loop = scene.loops.get(whole_disk_of(name, sysfs_root))
    if loop is not None and loop.block is not None:
        backing = (loop.name, loop.block)
        if loop.block not in visiting:
            backing_usage = _usage(
                loop.block,
                scene,
                excluded=excluded | {loop.name},
                visiting=visiting | {name, loop.name},
            )
    elif loop is not None:
        shares = _shares_backing(loop, scene)

    return DeviceUsage(
        name=name,
        mounts=tuple(_mounts_of(devices, scene)),
        swaps=tuple(swaps),
        holders=tuple(holders),
        backs_root=tuple(backs_root),
        holds_database=tuple(holds_database),
        backs_loops=_backs_loops(name, devices, scene, excluded),
        shares_backing=shares,
        backing=backing,
        backing_usage=backing_usage,
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
