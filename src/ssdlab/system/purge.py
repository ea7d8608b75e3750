"""Find out which purge a device offers (see plan/purge.py), keeping every tool output.

- NVMe: `nvme id-ctrl -o json`; OACS bit 1 = Format NVM supported (a Format with
  Secure Erase Settings 1 erases user data); FNA bits 0-1 = it acts on every namespace.
- ATA: `hdparm -I`; the Security section must say "supported", "not enabled" (no password
  set) and "not frozen" (most BIOSes freeze drives at boot; a suspend/resume cycle unfreezes).
- SCSI/SAS: `sg_format` present (FORMAT UNIT is mandatory for SCSI disks).
- Discard: the device's discard_max_bytes > 0 (sysfs, already in its identity).
"""

import json
import re
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ssdlab.errors import TargetError
from ssdlab.model.run import Capture
from ssdlab.model.target import PurgeSupport, Target
from ssdlab.plan.purge import whole_drive_device
from ssdlab.system.block import (
    SYSFS_ROOT,
    dev_path_of,
    resolve_block_device,
    sibling_namespaces,
    whole_disk_of,
)
from ssdlab.system.process import ProcessRunner
from ssdlab.system.targetfacts import read_target_facts

_SECURITY = re.compile(r"^Security:\s*$(?P<body>.*?)(?:^\S|\Z)", re.MULTILINE | re.DOTALL)


def nvme_format_supported(id_ctrl_json: str) -> bool | None:
    """OACS bit 1 of `nvme id-ctrl -o json`; None when the output cannot be read."""
    try:
        oacs = json.loads(id_ctrl_json).get("oacs")
    except (json.JSONDecodeError, AttributeError):
        return None
    return bool(oacs & 0x2) if isinstance(oacs, int) else None


def nvme_format_all_namespaces(id_ctrl_json: str) -> bool | None:
    """FNA bit 0 (a format applies to all namespaces) or bit 1 (a secure erase does) of
    `nvme id-ctrl -o json`; None when the output cannot be read."""
    try:
        fna = json.loads(id_ctrl_json).get("fna")
    except (json.JSONDecodeError, AttributeError):
        return None
    return bool(fna & 0x3) if isinstance(fna, int) else None


def ata_security_erase_ready(hdparm_text: str) -> bool | None:
    """Whether `hdparm -I` shows a security feature that can erase now; None if no section."""
    match = _SECURITY.search(hdparm_text)
    if match is None:
        return None
    lines = [line.strip() for line in match.group("body").splitlines()]

    def flag(word: str) -> bool | None:
        for line in lines:
            if line.endswith(word):
                return not line.startswith("not")
        return None

    supported, enabled, frozen = flag("supported"), flag("enabled"), flag("frozen")
    if supported is None or frozen is None:
        return None
    return supported and not frozen and enabled is not True


def read_purge_support(
    target: Target, processes: ProcessRunner, sysfs_root: Path = SYSFS_ROOT
) -> tuple[PurgeSupport, tuple[Capture, ...]]:
    """What the target's drive offers, with the tool outputs it was read from. For a
    partition, ``whole_drive`` names its disk: the drive's own purges would erase all of it."""
    device = target.device
    transport = None if device is None else device.transport
    discard = None
    if device is not None and device.discard_max_bytes is not None:
        discard = device.discard_max_bytes > 0
    captures: list[Capture] = []
    nvme = ata = scsi = None
    all_namespaces: bool | None = None
    if transport == "nvme" and shutil.which("nvme"):
        capture = processes.run(
            ["nvme", "id-ctrl", target.path, "-o", "json"], tool="nvme", timeout_s=30
        )
        captures.append(capture)
        nvme = nvme_format_supported(capture.stdout) if capture.exit_code == 0 else None
        if capture.exit_code == 0:
            all_namespaces = nvme_format_all_namespaces(capture.stdout)
    elif transport in ("sata", "usb") and shutil.which("hdparm"):
        capture = processes.run(["hdparm", "-I", target.path], tool="hdparm", timeout_s=30)
        captures.append(capture)
        ata = ata_security_erase_ready(capture.stdout) if capture.exit_code == 0 else None
    elif transport in ("sas", "scsi"):
        scsi = shutil.which("sg_format") is not None
    if transport in ("loop", "virtio", "mmc"):
        nvme = ata = scsi = False  # no drive purge through these
    whole_drive = None
    if device is not None:
        try:
            disk = whole_disk_of(device.name, sysfs_root)
        except TargetError:
            disk = device.name  # not in sysfs: nothing was resolved through it either
        whole_drive = None if disk == device.name else disk
    others: tuple[str, ...] = ()
    if transport == "nvme" and device is not None and all_namespaces is not False:
        others = sibling_namespaces(whole_drive or device.name, sysfs_root)
    support = PurgeSupport(transport, nvme, ata, scsi, discard, whole_drive, others)
    return support, tuple(captures)


def whole_drive_refusal(command: tuple[str, ...], sysfs_root: Path = SYSFS_ROOT) -> str | None:
    """Why a planned whole-drive purge (nvme format, hdparm security erase, sg_format) must
    not run now, or None. It erases the whole drive, so the node it names must be a whole
    disk: a plan made before partitions were told apart, or a stored plan resumed, is
    checked again before the tool runs."""
    device = whole_drive_device(command)
    if device is None:
        return None
    try:
        name = resolve_block_device(device, sysfs_root)
        disk = whole_disk_of(name, sysfs_root)
    except TargetError as error:
        return f"refusing to run {command[0]}: {error}"
    if disk == name:
        return None
    return (
        f"refusing to run {command[0]} on {device}: it erases all of {dev_path_of(disk)}, not "
        "just the partition the run was given; nothing was erased"
    )


def read_pts_facts(
    target: Target, processes: ProcessRunner
) -> tuple[dict[str, Any], tuple[Capture, ...]]:
    """The target facts every profile records, plus what the drive says about purging (its
    tool outputs kept as captures: the evidence behind the purge method a PTS run used)."""
    facts, captures = read_target_facts(target, processes)
    if target.kind.value != "device":
        return {**facts, "purge_support": None}, captures
    support, purge_captures = read_purge_support(target, processes)
    return {**facts, "purge_support": asdict(support)}, (*captures, *purge_captures)
