"""The machine check of a run: what the kernel says about the machine before the run (the CPU
frequency governor, a virtual machine, which devices hold the target and the store) and the
counters sampled around every fio pass (analysis/machine.py judges them).

Every reader takes the roots it reads (/proc, /sys, the tool to run) as parameters, so tests
point them at recorded files; what cannot be read is None, never an error that stops a run.
"""

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import ParseError, TargetError
from ssdlab.model.machine import LoadSnapshot, MachineCheck
from ssdlab.model.target import Target, TargetKind
from ssdlab.parse.machine_load import parse_diskstats, parse_own_ticks, parse_proc_stat
from ssdlab.system.block import (
    SYSFS_ROOT,
    block_device_of_path,
    resolve_block_device,
    slaves_of,
    whole_disk_of,
)

PROC_ROOT = Path("/proc")
CPU_ROOT = Path("/sys/devices/system/cpu")
DMI_ROOT = Path("/sys/class/dmi/id")
DETECT_VIRT = "systemd-detect-virt"
DETECT_VIRT_TIMEOUT_S = 10.0
# /sys/class/dmi/id/sys_vendor of the common hypervisors, as systemd-detect-virt names them
VM_VENDORS = {
    "QEMU": "qemu",
    "VMware, Inc.": "vmware",
    "innotek GmbH": "oracle",
    "Xen": "xen",
    "Bochs": "bochs",
    "Parallels Software International Inc.": "parallels",
    "Amazon EC2": "amazon",
    "Google": "google",
    "OpenStack Foundation": "kvm",
}


def read_governors(cpu_root: Path = CPU_ROOT) -> tuple[str, ...]:
    """The distinct CPU frequency governors of the CPUs, sorted; () when none says (no cpufreq,
    as in most virtual machines)."""
    found = set()
    for path in cpu_root.glob("cpu[0-9]*/cpufreq/scaling_governor"):
        try:
            text = path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
        if text:
            found.add(text)
    return tuple(sorted(found))


def _detect_virt(tool: str) -> str | None:
    """systemd-detect-virt --vm: 'none' or the hypervisor; None when it could not tell."""
    try:
        done = subprocess.run(
            [tool, "--vm"],
            capture_output=True,
            text=True,
            timeout=DETECT_VIRT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    answer = done.stdout.strip().splitlines()
    return answer[0].strip() if answer and answer[0].strip() else None


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def detect_virtualization(
    detect_virt: str | None = DETECT_VIRT,
    dmi_root: Path = DMI_ROOT,
    cpuinfo: Path = PROC_ROOT / "cpuinfo",
) -> tuple[str | None, str | None]:
    """(the hypervisor or 'none', how it was found): systemd-detect-virt when it is installed,
    else the DMI vendor of a known hypervisor, else the cpuinfo `hypervisor` flag ('vm');
    (None, None) when none of them can tell."""
    tool = shutil.which(detect_virt) if detect_virt else None
    if tool is not None:
        answer = _detect_virt(tool)
        if answer is not None:
            return answer, "systemd-detect-virt"
    vendor = (_read(dmi_root / "sys_vendor") or "").strip()
    product = (_read(dmi_root / "product_name") or "").strip()
    if vendor in VM_VENDORS:
        return VM_VENDORS[vendor], "sys_vendor"
    if vendor == "Microsoft Corporation" and product == "Virtual Machine":
        return "microsoft", "sys_vendor"
    text = _read(cpuinfo)
    if text is None:
        return None, None
    flags = (line for line in text.splitlines() if line.startswith("flags"))
    if any("hypervisor" in line.split(":", 1)[-1].split() for line in flags):
        return "vm", "cpuinfo"
    return "none", "cpuinfo"


def _nearest_existing(path: str) -> str:
    current = Path(path)
    while not current.exists() and current != current.parent:
        current = current.parent
    return str(current)


def device_of_path(path: str, sysfs_root: Path = SYSFS_ROOT) -> str | None:
    """The disk holding the file system `path` is on (a partition's disk); None when there is
    no block device under it (tmpfs, overlay) or it cannot be looked at."""
    try:
        name = block_device_of_path(_nearest_existing(path), sysfs_root)
        return None if name is None else whole_disk_of(name, sysfs_root)
    except (OSError, TargetError):
        return None


def target_device(target: Target, sysfs_root: Path = SYSFS_ROOT) -> str | None:
    """The device whose /proc/diskstats line a run watches: a device target's disk (a
    partition's disk: its siblings share the drive), a file target's file system's disk."""
    if target.kind is TargetKind.DEVICE:
        try:
            return whole_disk_of(resolve_block_device(target.path, sysfs_root), sysfs_root)
        except (OSError, TargetError):
            return None
    return device_of_path(target.path, sysfs_root)


def disks_under(name: str, sysfs_root: Path = SYSFS_ROOT) -> frozenset[str]:
    """The disks a device is made of: itself, or for a stacked one (dm, md) the disks of the
    devices under it, all the way down."""
    found: set[str] = set()
    todo, seen = [name], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            below = slaves_of(current, sysfs_root)
            disk = whole_disk_of(current, sysfs_root)
        except (OSError, TargetError):
            found.add(current)
            continue
        if below:
            todo.extend(below)
        else:
            found.add(disk)
    return frozenset(found)


def check_machine(
    target: Target,
    database: Path,
    *,
    sysfs_root: Path = SYSFS_ROOT,
    proc_root: Path = PROC_ROOT,
    cpu_root: Path = CPU_ROOT,
    dmi_root: Path = DMI_ROOT,
    detect_virt: str | None = DETECT_VIRT,
) -> MachineCheck:
    """The check made before a run (its passes are added as they finish)."""
    watched = target_device(target, sysfs_root)
    store = device_of_path(str(database), sysfs_root)
    shared = None
    if watched is not None and store is not None:
        shared = bool(disks_under(watched, sysfs_root) & disks_under(store, sysfs_root))
    virtualization, source = detect_virtualization(detect_virt, dmi_root, proc_root / "cpuinfo")
    return MachineCheck(
        checked_at_s=time.time(),
        cpus=os.cpu_count(),
        governors=read_governors(cpu_root),
        virtualization=virtualization,
        virtualization_source=source,
        target_device=watched,
        store_device=store,
        store_on_target_device=shared,
    )


@dataclass(frozen=True, slots=True)
class LoadProbe:
    """Samples the counters a pass is judged by: the watched device's /proc/diskstats line,
    the machine's CPU time and this process's own (with its waited-for children: fio)."""

    device: str | None
    proc_root: Path = PROC_ROOT

    def snapshot(self) -> LoadSnapshot:
        at = time.monotonic()
        disk = cpu = own = None
        try:
            text = _read(self.proc_root / "diskstats")
            if self.device is not None and text is not None:
                disk = parse_diskstats(text, self.device)
            text = _read(self.proc_root / "stat")
            cpu = None if text is None else parse_proc_stat(text)
            text = _read(self.proc_root / "self" / "stat")
            own = None if text is None else parse_own_ticks(text)
        except ParseError:
            pass  # what was read before the bad text is kept; the rest stays unknown
        return LoadSnapshot(at_s=at, disk=disk, cpu=cpu, own_ticks=own)
