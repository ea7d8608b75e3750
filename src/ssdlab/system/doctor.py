"""What ssdlab can do on this machine: tools, privileges, O_DIRECT, loop devices; and what
runs and fio jobs left behind that may (or may not) be removed."""

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import TargetError
from ssdlab.model.run import RunRecord
from ssdlab.parse.fio_json import MIN_FIO_VERSION, parse_fio_version
from ssdlab.system.environment import run_liveness, tool_version
from ssdlab.system.filetarget import probe_direct_io, read_filesystem
from ssdlab.system.fio import JobFolder, find_job_folders
from ssdlab.system.openers import PROC, find_openers, fio_holders

PACKAGES = {"fio": "fio", "smartctl": "smartmontools", "nvme": "nvme-cli", "losetup": "mount"}
PURPOSE = {
    "fio": "all measurements",
    "smartctl": "drive health and wear (SATA, SAS, NVMe)",
    "nvme": "NVMe health logs",
    "losetup": "loop devices for trying device tests safely",
}


@dataclass(frozen=True, slots=True)
class ToolCheck:
    tool: str
    path: str | None
    version: str | None
    ok: bool
    note: str
    package: str
    purpose: str


@dataclass(frozen=True, slots=True)
class DoctorReport:
    tools: tuple[ToolCheck, ...]
    is_root: bool
    directory: str
    filesystem: str | None
    direct_io_problem: str | None  # None: O_DIRECT works there
    loop_devices: bool
    loop_note: str
    job_folders: tuple[JobFolder, ...] = ()  # ssdlab's fio job folders in the temporary dir


def reason_to_keep_test_file(
    path: str, run: RunRecord | None, proc_root: Path = PROC
) -> str | None:
    """Why a leftover test file must stay, or None when nothing may still use it: the process
    of its run may be alive (judged by pid, host, boot id and PID namespace; a run of another
    host or namespace cannot be judged, so it counts as alive), or a process — a fio that
    outlived a killed ssdlab, another store's run — still holds the file open."""
    if run is not None:
        reason = run_liveness(run, proc_root)
        if reason is not None:
            return reason
    holders = find_openers(Path(path), proc_root)
    if holders:
        names = ", ".join(f"{o.name} (pid {o.pid})" for o in holders)
        return f"{names} still {'has' if len(holders) == 1 else 'have'} it open"
    starting = fio_holders(Path(path), proc_root)
    if starting:
        return f"fio (pid {starting[0]}) is starting a job on it"
    return None


def _check_tool(tool: str) -> ToolCheck:
    wanted = os.environ.get("SSDLAB_FIO", "fio") if tool == "fio" else tool
    path = shutil.which(wanted)
    version = tool_version(path) if path and tool != "nvme" else None
    if tool == "nvme" and path:
        version = tool_version("nvme")
    ok, note = path is not None, "" if path else "missing"
    if tool == "fio" and path:
        parsed = parse_fio_version(version or "")
        if parsed is None or parsed < MIN_FIO_VERSION:
            ok = False
            note = f"too old: ssdlab needs fio {'.'.join(map(str, MIN_FIO_VERSION))} or newer"
    return ToolCheck(tool, path, version, ok, note, PACKAGES[tool], PURPOSE[tool])


def run_doctor(directory: str) -> DoctorReport:
    folder = Path(directory).expanduser().absolute()
    problem: str | None
    fs_text = None
    if not folder.is_dir():
        problem = f"{folder} is not a directory"
    else:
        try:
            fs = read_filesystem(folder)
            fs_text = f"{fs.fs_type} on {fs.source}, mounted at {fs.mount_point}"
            problem = probe_direct_io(folder)
        except (OSError, TargetError) as error:
            problem = f"cannot test {folder}: {error}"
    is_root = os.geteuid() == 0
    has_control = Path("/dev/loop-control").exists()
    has_losetup = shutil.which("losetup") is not None
    loop_ok = has_control and has_losetup and is_root
    if loop_ok:
        loop_note = "available (losetup -f --show IMAGE)"
    elif not has_control:
        loop_note = "no /dev/loop-control (modprobe loop)"
    elif not has_losetup:
        loop_note = "losetup missing (apt-get install mount)"
    else:
        loop_note = "needs root"
    return DoctorReport(
        tools=tuple(_check_tool(t) for t in ("fio", "smartctl", "nvme", "losetup")),
        is_root=is_root,
        directory=str(folder),
        filesystem=fs_text,
        direct_io_problem=problem,
        loop_devices=loop_ok,
        loop_note=loop_note,
        job_folders=tuple(find_job_folders()),
    )
