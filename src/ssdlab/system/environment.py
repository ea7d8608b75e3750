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


def run_process_alive(run: RunRecord) -> bool:
    """Whether the process that started `run` still runs on this machine.

    A run recorded on another host is assumed alive (we cannot know); a different boot id means
    the machine restarted since, so the process is gone.
    """
    if run.host != socket.gethostname():
        return True
    boot_id = read_boot_id()
    if run.boot_id is not None and boot_id is not None and run.boot_id != boot_id:
        return False
    try:
        os.kill(run.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    cmdline = Path(f"/proc/{run.pid}/cmdline")
    try:
        return b"ssdlab" in cmdline.read_bytes()
    except OSError:
        return False
