"""Which processes hold a file or block device open, read from /proc/PID/fd.

fio runs in its own session; it ends with ssdlab (system/process_tree.end_with_parent), but a
fio of another program, or of an ssdlab in another PID namespace, may still write: a run must
not start, resume or have its test file removed while such a fio still writes.

Every function takes the proc root as a parameter, so it can be read from a recorded tree in
tests. Root can read every process's descriptors; other users see their own processes only (the
rest are skipped).
"""

import os
import stat
from pathlib import Path
from typing import NamedTuple

from ssdlab.errors import TargetError

PROC = Path("/proc")
FIO_NAME = "fio"
JOB_FILE = "job.fio"  # the name of the job file in ssdlab's job folders (system/fio.py)


class Opener(NamedTuple):
    """A process holding the target open: its pid and command name (/proc/PID/comm)."""

    pid: int
    name: str


def _pids(proc_root: Path) -> list[int]:
    try:
        return sorted(int(entry.name) for entry in proc_root.iterdir() if entry.name.isdigit())
    except OSError:
        return []


def command_name(pid: int, proc_root: Path = PROC) -> str | None:
    """/proc/PID/comm without its newline; None when the process is gone."""
    try:
        return (proc_root / str(pid) / "comm").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def parent_pid(pid: int, proc_root: Path = PROC) -> int | None:
    """The parent of `pid` (field 4 of /proc/PID/stat, read after the command name)."""
    try:
        text = (proc_root / str(pid) / "stat").read_text(encoding="ascii", errors="replace")
        return int(text.rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _same_file(wanted: os.stat_result, found: os.stat_result) -> bool:
    if stat.S_ISBLK(wanted.st_mode):
        return stat.S_ISBLK(found.st_mode) and found.st_rdev == wanted.st_rdev
    return (found.st_dev, found.st_ino) == (wanted.st_dev, wanted.st_ino)


def _holds(fd_dir: Path, wanted: os.stat_result) -> bool:
    try:
        entries = list(fd_dir.iterdir())
    except OSError:  # gone, or another user's process
        return False
    for entry in entries:
        try:
            found = entry.stat()  # follows the link to the open file itself, even if deleted
        except OSError:
            continue
        if _same_file(wanted, found):
            return True
    return False


def find_openers(target: Path, proc_root: Path = PROC) -> list[Opener]:
    """Every process holding `target` open: a block device by its device number (st_rdev),
    any other file by (st_dev, st_ino), so another path or a link to it counts too. Empty when
    the target does not exist."""
    try:
        wanted = target.stat()
    except OSError:
        return []
    found = []
    for pid in _pids(proc_root):
        if _holds(proc_root / str(pid) / "fd", wanted):
            found.append(Opener(pid, command_name(pid, proc_root) or "?"))
    return found


def _is_fio(name: str) -> bool:
    fio = Path(os.environ.get("SSDLAB_FIO") or FIO_NAME).name[:15]  # comm is cut at 15
    return name in (FIO_NAME, fio)


def _job_names(pid: int, target: Path, proc_root: Path) -> bool:
    """Whether `pid` works in an ssdlab job folder whose job file names `target`: a fio that
    is still starting (its job processes have not opened the target yet)."""
    try:
        text = (proc_root / str(pid) / "cwd" / JOB_FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    names = {f"filename={target}", f"filename={os.path.realpath(target)}"}
    return any(line.strip() in names for line in text.splitlines())


def fio_holders(target: Path, proc_root: Path = PROC) -> list[int]:
    """The fio processes with `target` open — or starting an ssdlab job on it — each named by
    its main process (fio's job processes are children of the fio that was started; stopping
    that one stops them)."""
    found = [o.pid for o in find_openers(target, proc_root) if _is_fio(o.name)]
    found += [
        pid
        for pid in _pids(proc_root)
        if _is_fio(command_name(pid, proc_root) or "") and _job_names(pid, target, proc_root)
    ]
    mains = set()
    for pid in found:
        while True:
            parent = parent_pid(pid, proc_root)
            if parent is None or parent <= 1 or not _is_fio(command_name(parent, proc_root) or ""):
                break
            pid = parent
        mains.add(pid)
    return sorted(mains)


def refuse_while_fio_writes(path: str, proc_root: Path = PROC) -> None:
    """Refuse to start or resume a run on `path` while a fio (left running by a killed
    ssdlab, or started by anyone) has it open: two fios on one target spoil both."""
    pids = fio_holders(Path(path), proc_root)
    if not pids:
        return
    listed = ", ".join(str(pid) for pid in pids)
    which = f"pid {listed}" if len(pids) == 1 else f"pids {listed}"
    raise TargetError(
        f"fio ({which}) from an earlier run still writes to {path}; wait for it to end or stop "
        f"it (kill {' '.join(str(pid) for pid in pids)}), then try again"
    )


def processes_inside(folder: Path, proc_root: Path = PROC) -> list[Opener]:
    """Processes whose working directory is `folder` (or below it) or that hold a file there
    open; fio runs in its job folder and writes its logs there until it ends."""
    base = os.path.realpath(folder)
    prefix = base.rstrip("/") + "/"

    def inside(link: Path) -> bool:
        try:
            text = os.readlink(link).removesuffix(" (deleted)")
        except OSError:
            return False
        return text == base or text.startswith(prefix)

    found = []
    for pid in _pids(proc_root):
        process = proc_root / str(pid)
        hit = inside(process / "cwd")
        if not hit:
            try:
                hit = any(inside(entry) for entry in (process / "fd").iterdir())
            except OSError:
                hit = False
        if hit:
            found.append(Opener(pid, command_name(pid, proc_root) or "?"))
    return found
