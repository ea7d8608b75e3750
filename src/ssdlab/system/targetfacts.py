"""Facts about a target that profiles report beside their measurements: where its partition
starts, its sector sizes, its discard support and, for NVMe, the LBA formats it offers.

Every value is None when the system does not say; every tool output is kept as a Capture.
"""

import shutil
from pathlib import Path
from typing import Any

from ssdlab.errors import ParseError, TargetError, ToolError
from ssdlab.model.run import Capture
from ssdlab.model.target import Target
from ssdlab.parse.nvme_idns import parse_lba_formats
from ssdlab.system.block import (
    SECTOR_BYTES,
    SYSFS_ROOT,
    block_device_of_path,
    dev_path_of,
    is_partition,
)
from ssdlab.system.process import ProcessRunner


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return None


def partition_of_target(target: Target, sysfs_root: Path = SYSFS_ROOT) -> str | None:
    """The kernel name of the partition the target uses: the device itself when it is a
    partition, the partition under a file target's filesystem; None for a whole disk."""
    try:
        if target.kind.value == "device":
            name = Path(target.path).name
        else:
            name = block_device_of_path(str(Path(target.path).parent), sysfs_root) or ""
        return name if name and is_partition(name, sysfs_root) else None
    except (OSError, TargetError):
        return None


def partition_start_bytes(name: str, sysfs_root: Path = SYSFS_ROOT) -> int | None:
    """Where a partition starts on its disk (sysfs `start` is in 512-byte sectors)."""
    start = _read_int(sysfs_root / "class" / "block" / name / "start")
    return None if start is None else start * SECTOR_BYTES


def read_lba_formats(
    device_path: str, processes: ProcessRunner
) -> tuple[dict[str, Any], tuple[Capture, ...], str | None]:
    """`nvme id-ns` of an NVMe namespace: ({lba_formats, lba_format_in_use}, captures, note)."""
    if shutil.which("nvme") is None:
        return {}, (), "nvme-cli is not installed: LBA formats not read"
    try:
        capture = processes.run(
            ["nvme", "id-ns", device_path, "-o", "json"], tool="nvme", timeout_s=30
        )
    except ToolError as error:
        return {}, (), str(error)
    if capture.exit_code != 0:
        return {}, (capture,), f"nvme id-ns failed: {capture.stderr.strip()}"
    try:
        formats, in_use = parse_lba_formats(capture.stdout)
    except ParseError as error:
        return {}, (capture,), str(error)
    return {"lba_formats": formats, "lba_format_in_use": in_use}, (capture,), None


def read_target_facts(
    target: Target, processes: ProcessRunner, sysfs_root: Path = SYSFS_ROOT
) -> tuple[dict[str, Any], tuple[Capture, ...]]:
    """Partition start, sector sizes, discard limits and NVMe LBA formats of a target."""
    device = target.device
    partition = partition_of_target(target, sysfs_root)
    facts: dict[str, Any] = {
        "device": None if device is None else device.path,
        "partition": None if partition is None else dev_path_of(partition),
        "partition_start_bytes": None
        if partition is None
        else partition_start_bytes(partition, sysfs_root),
        "whole_device": target.kind.value == "device" and partition is None,
        "logical_block_bytes": None if device is None else device.logical_block_bytes,
        "physical_block_bytes": None if device is None else device.physical_block_bytes,
        "discard_granularity_bytes": None if device is None else device.discard_granularity_bytes,
        "discard_max_bytes": None if device is None else device.discard_max_bytes,
        "transport": None if device is None else device.transport,
        "lba_formats": [],
        "lba_format_in_use": None,
        "notes": [],
    }
    captures: tuple[Capture, ...] = ()
    if device is not None and device.transport == "nvme":
        nvme, captures, note = read_lba_formats(device.path, processes)
        facts.update(nvme)
        if note:
            facts["notes"].append(note)
    return facts, captures
