"""A virtual drive's health read like a drive's: the drive file of a `ssdlab sim serve` mount
is told from any other file by its extended attribute (`user.ssdlab.virtual-drive`, naming
its health file), a loop device over that file by its backing file; a reading stores the
health file whole as its capture (raw first) before parse/virtual_drive_health.py reads it."""

import dataclasses
import os
import stat
import time
from pathlib import Path

from ssdlab.errors import ParseError
from ssdlab.model.run import Capture
from ssdlab.model.virtual_drive import MARKER_XATTR
from ssdlab.parse.virtual_drive_health import read_virtual_drive_health
from ssdlab.system.health import HealthReading

TOOL = "virtual-drive"
SYSFS_ROOT = Path("/sys")
MAX_HEALTH_BYTES = 1 << 20


def _loop_backing_file(path: str, sysfs_root: Path) -> str | None:
    """The file a loop device (/dev/loopN) reads and writes, from sysfs; None for anything else."""
    try:
        if not stat.S_ISBLK(os.stat(path).st_mode):
            return None
    except OSError:
        return None
    name = os.path.basename(os.path.realpath(path))
    try:
        text = (sysfs_root / "block" / name / "loop" / "backing_file").read_text()
    except OSError:
        return None
    return text.strip() or None


def virtual_drive_health_path(path: str, sysfs_root: Path = SYSFS_ROOT) -> str | None:
    """The health file of the virtual drive `path` is (the drive file of a `sim serve` mount, or
    a loop device over one), or None when it is no virtual drive."""
    drive = _loop_backing_file(path, sysfs_root) or path
    try:
        name = os.getxattr(drive, MARKER_XATTR).decode("utf-8", "replace")
    except OSError:
        return None
    if not name or "/" in name:
        return None
    return os.path.join(os.path.dirname(os.path.realpath(drive)), name)


def is_virtual_drive(path: str) -> bool:
    return virtual_drive_health_path(path) is not None


def read_virtual_drive(path: str) -> HealthReading:
    """The drive's health now; notes, never an exception, when it cannot be read."""
    health = virtual_drive_health_path(path)
    if health is None:
        return HealthReading(None, (), (f"{path} is not a virtual drive",))
    started = time.time()
    try:
        with open(health, "rb") as f:
            data = f.read(MAX_HEALTH_BYTES + 1)
    except OSError as error:
        return HealthReading(None, (), (f"the virtual drive's health could not be read: {error}",))
    text = data[:MAX_HEALTH_BYTES].decode("utf-8", "replace")
    capture = Capture(TOOL, ("read", health), 0, text, "", started, time.time())
    try:
        sample, notes = read_virtual_drive_health(text)
    except ParseError as error:
        return HealthReading(None, (capture,), (f"virtual drive health unreadable: {error}",))
    identity = dataclasses.replace(sample.identity, device_path=os.path.realpath(path))
    return HealthReading(dataclasses.replace(sample, identity=identity), (capture,), notes)
