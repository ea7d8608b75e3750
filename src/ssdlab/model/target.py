"""What a test runs against: a file on a filesystem, or a whole block device; and what else a
stored run may have run against (an imported file, a simulated drive, a fleet's hosts)."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class TargetKind(StrEnum):
    """What a run ran against, as the store keeps it (`runs.target_kind`). Measured runs run on
    a file or a device (`Target.kind`); the others record where their numbers came from."""

    FILE = "file"
    DEVICE = "device"
    IMPORT = "import"  # a file another tool wrote (ssdlab import)
    SIMULATED = "simulated"  # a drive of the simulator (ssdlab sim)
    FLEET = "fleet"  # the hosts of an inventory at once (ssdlab fleet load)


@dataclass(frozen=True, slots=True)
class DeviceIdentity:
    """A block device as sysfs describes it. Every field is None when sysfs does not say."""

    name: str  # kernel name: sda, nvme0n1, loop0
    path: str  # device node: /dev/sda
    model: str | None = None
    vendor: str | None = None
    serial: str | None = None
    firmware: str | None = None
    capacity_bytes: int | None = None
    logical_block_bytes: int | None = None
    physical_block_bytes: int | None = None
    rotational: bool | None = None
    discard_granularity_bytes: int | None = None
    discard_max_bytes: int | None = None
    transport: str | None = None  # sata, sas, nvme, usb, virtio, loop, mmc, scsi
    backing_file: str | None = None  # loop devices only
    queue: Mapping[str, str] = field(default_factory=dict)  # scheduler, nr_requests, ...


@dataclass(frozen=True, slots=True)
class FilesystemInfo:
    """The mounted filesystem holding a file target (from /proc/self/mountinfo and statvfs)."""

    mount_point: str
    fs_type: str
    source: str
    mount_options: str
    free_bytes: int | None  # None: the filesystem reports no size (ramfs)
    total_bytes: int | None


@dataclass(frozen=True, slots=True)
class LoopBacking:
    """A loop device whose content is (part of) one of the target's devices.

    Loop devices register no holder and claim nothing exclusively, so only their
    ``loop/backing_file`` shows that writing to ``device`` rewrites what ``loop`` holds.
    """

    device: str  # the target or one of its partitions (kernel name)
    loop: str  # the loop device stacked directly on it
    above: tuple[str, ...] = ()  # loop devices stacked on `loop` in turn, nearest first
    mounts: tuple[tuple[str, str], ...] = ()  # (device, mount point) in `loop`'s stack
    through: str | None = None  # the loop sits on this disk, whose range includes `device`
    backing_path: str | None = None  # the shared backing file (for DeviceUsage.shares_backing)


@dataclass(frozen=True, slots=True)
class DeviceUsage:
    """Everything that makes writing to a block device unsafe, as found on the system.

    Each tuple names the kernel device (the disk itself or one of its partitions) and what
    uses it. Built by system/usage.py; judged by plan/safety.py.
    """

    name: str
    mounts: tuple[tuple[str, str], ...] = ()  # (device name, mount point)
    swaps: tuple[str, ...] = ()  # device names that are active swap
    holders: tuple[tuple[str, str], ...] = ()  # (device name, holder name e.g. dm-0, md0)
    backs_root: tuple[str, ...] = ()  # device names through which / is stored
    holds_database: tuple[str, ...] = ()  # device names through which the ssdlab db is stored
    backs_loops: tuple[LoopBacking, ...] = ()  # loop devices whose backing file is ours
    shares_backing: tuple[LoopBacking, ...] = ()  # other loops on the target loop's own file
    # A loop target writes through to the block device it is attached to (device, backing
    # device); that device's own usage, when anything uses it, is backing_usage.
    backing: tuple[str, str] | None = None
    backing_usage: "DeviceUsage | None" = None


@dataclass(frozen=True, slots=True)
class FileIdentity:
    """Which file a path led to when ssdlab created it: what makes a test file ssdlab's, never
    its name. An inode number can be handed to a file made later at the same name, so where the
    filesystem keeps extended attributes a random marker set at creation must match too."""

    device: int
    inode: int
    marker: str | None = None  # None: the filesystem keeps no user extended attributes


@dataclass(frozen=True, slots=True)
class Target:
    """A resolved target, ready to plan against."""

    kind: TargetKind
    path: str  # the test file, or the device node (symlinks resolved)
    size_bytes: int  # the region the tests use
    requested: str  # what the user typed
    created_file: bool = False  # ssdlab makes the test file (system/write_gate) and removes it
    reuses_test_file: bool = False  # writes go to an existing file: the store must own it
    direct_io: bool = True
    device: DeviceIdentity | None = None  # for a file: the device under its filesystem
    filesystem: FilesystemInfo | None = None
    warnings: tuple[str, ...] = ()


PURGE_METHODS = ("auto", "nvme-format", "ata-secure-erase", "scsi-format", "trim", "zero", "none")


@dataclass(frozen=True, slots=True)
class PurgeSupport:
    """What the drive offers; None when it could not be told."""

    transport: str | None
    nvme_format_erase: bool | None = None  # Format NVM with a user-data erase (OACS bit 1)
    ata_security_erase: bool | None = None  # security feature supported, not frozen, no password
    scsi_format: bool | None = None  # sg_format present and the device is SCSI/SAS
    discard: bool | None = None
    # The disk (kernel name) when the target is one of its partitions: a drive's own purge
    # (nvme-format, ata-secure-erase, scsi-format) erases all of it, not just the partition.
    whole_drive: str | None = None
    # Other NVMe namespaces a Format NVM of the target erases as well: its controller's Format
    # NVM Attributes (FNA) apply a format or secure erase to all namespaces, or do not say.
    nvme_other_namespaces: tuple[str, ...] = ()
