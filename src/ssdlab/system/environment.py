"""Facts about the machine a run happens on, and whether a recorded process still lives."""

import os
import platform
import shutil
import socket
import subprocess
from pathlib import Path

from ssdlab import __version__
from ssdlab.model.run import Environment, RunRecord
from ssdlab.system.health import smartctl_timeout_s

VERSION_TIMEOUT_S = 20.0


def _first_line(argv: list[str]) -> str | None:
    if shutil.which(argv[0]) is None:
        return None
    try:
        limit = min(VERSION_TIMEOUT_S, smartctl_timeout_s())  # a hung tool must not hang a run
        done = subprocess.run(argv, capture_output=True, text=True, timeout=limit, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0].strip() if lines else None


def tool_version(tool: str) -> str | None:
    """First line of `TOOL --version` (fio, smartctl) or `nvme version`; None when missing."""
    if tool == "nvme":
        return _first_line(["nvme", "version"])
    return _first_line([tool, "--version"])


def read_cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str | None:
    try:
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        return None
    return None


def read_os_release(path: Path = Path("/etc/os-release")) -> str | None:
    try:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        return None
    return None


def read_boot_id(path: Path = Path("/proc/sys/kernel/random/boot_id")) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def collect_environment(fio_version: str | None) -> Environment:
    return Environment(
        host=socket.gethostname(),
        kernel=platform.release(),
        os_release=read_os_release(),
        cpu_model=read_cpu_model(),
        python_version=platform.python_version(),
        ssdlab_version=__version__,
        fio_version=fio_version,
        smartctl_version=tool_version("smartctl"),
        nvme_version=tool_version("nvme"),
        is_root=os.geteuid() == 0,
    )


def read_pid_namespace(link: Path = Path("/proc/self/ns/pid")) -> str | None:
    """The PID namespace this process lives in, as the kernel names it ('pid:[4026531836]').

    A pid means something only within its namespace: a run recorded in a container is not
    judged from the host, nor the other way round."""
    try:
        return os.readlink(link) or None
    except OSError:
        return None


def process_start_ticks(pid: int, proc_root: Path = Path("/proc")) -> int | None:
    """When process `pid` started, in clock ticks after boot (field 22 of /proc/PID/stat);
    with the pid and the boot id it names one process, even after its pid is reused."""
    try:
        stat = (proc_root / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
        return int(stat.rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def run_liveness(run: RunRecord, proc_root: Path = Path("/proc")) -> str | None:
    """None when the process that started `run` is gone for certain; otherwise why it may
    still run. A run of another host or another PID namespace cannot be judged from here, so
    it counts as alive; a different boot id means the machine restarted since, so it is gone.
    """
    if run.host != socket.gethostname():
        return f"run {run.run_id} was started on host {run.host}, which ssdlab cannot see from here"
    boot_id = read_boot_id()
    if run.boot_id is not None and boot_id is not None and run.boot_id != boot_id:
        return None
    if run.pid_namespace is not None and run.pid_namespace != read_pid_namespace():
        return (
            f"run {run.run_id} was started in another PID namespace ({run.pid_namespace}, a "
            "container or the host), where ssdlab cannot tell whether its process still runs"
        )
    try:
        os.kill(run.pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return f"the process of run {run.run_id} (pid {run.pid}) still runs"
    cmdline = proc_root / str(run.pid) / "cmdline"
    try:
        if b"ssdlab" in cmdline.read_bytes():
            return f"the process of run {run.run_id} (pid {run.pid}) still runs"
    except OSError:
        return None
    return None


def run_process_alive(run: RunRecord) -> bool:
    """Whether the process that started `run` may still run (see `run_liveness`)."""
    return run_liveness(run) is not None
