"""A drive model served as a file through FUSE (libfuse 3 through mfusepy's ctypes binding).

The mount holds two files: `drive`, the drive itself (its size the drive's capacity; opened
with direct I/O, so the kernel keeps no page cache of it and every read and write reaches the
model), and `health.json`, the drive's health log, rendered anew at every open. `drive`
answers the extended attribute `user.ssdlab.virtual-drive` with the name of the health file:
that is how ssdlab tells a virtual drive from any other file
(`system/virtual_drive_health.py`).

The data is kept in a sparse backing file (created unlinked, so it goes when the server
does); the model decides what each request costs. A request's completion is held back until
the drive's clock says it is done: the drive works one request at a time at the model's speed
(its parallel units are in the model's time), times the time scale, and a request arriving
while the drive is busy waits its turn. A discard (fallocate with FALLOC_FL_PUNCH_HOLE, which
is what the kernel's loop driver sends for a discard) punches the backing file and TRIMs the
pages in the model.

The drive is told how long the host left it idle (the wall time since it finished its last
request, divided by the time scale) before each request and each reading of its health, so a
drive with idle GC cleans in the pauses the host gives it (`sim/virtual_drive.py`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import math
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import ssdlab
from ssdlab.errors import UsageError
from ssdlab.model.virtual_drive import DRIVE_NAME, HEALTH_NAME, MARKER_XATTR
from ssdlab.system.process_tree import end_with_parent

FSNAME = "ssdlab-sim"
FALLOC_FL_KEEP_SIZE = 0x01
LOOP_ENDED = 8  # fuse_main's status when its loop ended, by a signal among others
FALLOC_FL_PUNCH_HOLE = 0x02
INSTALL_HINT = (
    "the virtual drive needs libfuse 3 and mfusepy: apt-get install fuse3 and "
    "pip install 'ssdlab[sim-drive]' (or make install)"
)


class DriveModel(Protocol):
    """What the file system asks of the drive: each request's model time in seconds."""

    @property
    def capacity_bytes(self) -> int: ...

    def write(self, offset: int, length: int) -> float: ...

    def read(self, offset: int, length: int) -> float: ...

    def trim(self, offset: int, length: int) -> float: ...

    def idle(self, seconds: float) -> int: ...


@dataclass(frozen=True, slots=True)
class ServedDrive:
    """A model to serve: the drive, its health log as bytes (called under the drive's lock),
    where its data is kept, and wall seconds per second of model time."""

    model: DriveModel
    health: Callable[[], bytes]
    backing_dir: str
    time_scale: float = 1.0


def _load_fuse() -> Any:
    try:
        import mfusepy  # type: ignore[import-untyped,unused-ignore]
    except (ImportError, OSError) as error:  # OSError: mfusepy found no libfuse
        raise UsageError(f"{INSTALL_HINT} ({error})") from None
    return mfusepy


def fuse_problem() -> str | None:
    """Why a drive cannot be served here (no /dev/fuse, no binding, no libfuse); None if it can."""
    if not os.path.exists("/dev/fuse"):
        return "/dev/fuse is missing (modprobe fuse; in a container, pass --device /dev/fuse)"
    try:
        _load_fuse()
    except UsageError as error:
        return str(error)
    return None


class _Libc:
    """fallocate(2) with a mode: Python's os module punches no holes."""

    def __init__(self) -> None:
        self._libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self._libc.fallocate.argtypes = (
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int64,
            ctypes.c_int64,
        )

    def punch_hole(self, fd: int, offset: int, length: int) -> None:
        mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE
        if self._libc.fallocate(fd, mode, offset, length) != 0:
            number = ctypes.get_errno()
            raise OSError(number, os.strerror(number))


class DriveClock:
    """When each request completes: one request at a time at the model's speed × the scale."""

    def __init__(self, time_scale: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._scale = time_scale
        self._clock = clock
        self._busy_until = 0.0
        self._idle_from = clock()

    def idle_s(self) -> float:
        """Model seconds the drive has been idle since it finished its last request or was
        last asked (infinite at time scale 0: any pause is long enough); call it under the
        drive's lock."""
        now = self._clock()
        start = max(self._idle_from, self._busy_until)
        self._idle_from = now
        if now <= start:
            return 0.0
        return (now - start) / self._scale if self._scale > 0 else math.inf

    def reserve(self, model_s: float) -> float:
        """The wall-clock time (of `clock`) the request of `model_s` completes; call it under
        the drive's lock, in the order the model saw the requests."""
        start = max(self._clock(), self._busy_until)
        self._busy_until = start + model_s * self._scale
        return self._busy_until

    def wait_until(self, done: float) -> None:
        delay = done - self._clock()
        if delay > 0:
            time.sleep(delay)


class _Files:
    """The FUSE operations over one drive (the `Operations` mfusepy calls, by duck typing)."""

    use_ns = True

    def __init__(self, served: ServedDrive, fuse: Any) -> None:
        self._served = served
        self._fuse = fuse
        self._lock = threading.Lock()
        self._clock = DriveClock(served.time_scale)
        self._libc = _Libc()
        fd, path = _backing_file(served.backing_dir)
        self._fd = fd
        os.ftruncate(fd, served.model.capacity_bytes)
        del path
        self._snapshots: dict[int, bytes] = {}
        self._next_fh = 1
        self._started = time.time()

    # -- names ---------------------------------------------------------------------------
    def _error(self, number: int) -> Exception:
        return self._fuse.FuseOSError(number)  # type: ignore[no-any-return]

    def getattr(self, path: str, _fh: Any = None) -> dict[str, Any]:
        now = int(self._started * 1e9)
        times = {"st_atime": now, "st_mtime": now, "st_ctime": now}
        if path == "/":
            return {"st_mode": stat.S_IFDIR | 0o755, "st_nlink": 2, **times}
        if path == f"/{DRIVE_NAME}":
            size = self._served.model.capacity_bytes
            return {"st_mode": stat.S_IFREG | 0o600, "st_nlink": 1, "st_size": size, **times}
        if path == f"/{HEALTH_NAME}":
            with self._lock:
                self._caught_up()
                size = len(self._served.health())
            return {"st_mode": stat.S_IFREG | 0o444, "st_nlink": 1, "st_size": size, **times}
        raise self._error(errno.ENOENT)

    def readdir(self, path: str, _fh: Any) -> list[str]:
        if path != "/":
            raise self._error(errno.ENOTDIR)
        return [".", "..", DRIVE_NAME, HEALTH_NAME]

    def getxattr(self, path: str, name: str, _position: int = 0) -> bytes:
        if path == f"/{DRIVE_NAME}" and name == MARKER_XATTR:
            return HEALTH_NAME.encode()
        raise self._error(errno.ENODATA)

    def listxattr(self, path: str) -> list[str]:
        return [MARKER_XATTR] if path == f"/{DRIVE_NAME}" else []

    def statfs(self, _path: str) -> dict[str, int]:
        size = self._served.model.capacity_bytes
        return {"f_bsize": 4096, "f_frsize": 4096, "f_blocks": size // 4096, "f_namemax": 255}

    # -- open files ----------------------------------------------------------------------
    def open(self, path: str, fi: Any) -> int:
        if path == f"/{HEALTH_NAME}":
            if fi.flags & (os.O_WRONLY | os.O_RDWR):
                raise self._error(errno.EACCES)
            with self._lock:
                self._caught_up()
                snapshot = self._served.health()
                fh = self._next_fh
                self._next_fh += 1
                self._snapshots[fh] = snapshot
            fi.fh = fh
        elif path == f"/{DRIVE_NAME}":
            fi.fh = 0
        else:
            raise self._error(errno.ENOENT)
        fi.direct_io = 1  # no page cache: every request reaches the model
        return 0

    def release(self, _path: str, fh: Any) -> int:
        with self._lock:
            self._snapshots.pop(fh.fh, None)
        return 0

    def flush(self, _path: str, _fh: Any) -> int:
        return 0

    def fsync(self, _path: str, _datasync: int, _fh: Any) -> int:
        return 0

    def truncate(self, path: str, length: int, _fh: Any = None) -> int:
        if path == f"/{DRIVE_NAME}" and length == self._served.model.capacity_bytes:
            return 0
        raise self._error(errno.EPERM)  # a drive's size is fixed

    def _caught_up(self) -> None:
        """Tell the drive how long the host has left it idle; under the drive's lock."""
        self._served.model.idle(self._clock.idle_s())

    def _timed(self, request: Callable[[], float]) -> None:
        with self._lock:
            self._caught_up()
            done = self._clock.reserve(request())
        self._clock.wait_until(done)

    def read(self, path: str, size: int, offset: int, fh: Any) -> bytes:
        if path == f"/{HEALTH_NAME}":
            with self._lock:
                snapshot = self._snapshots.get(fh.fh, b"")
            return snapshot[offset : offset + size]
        size = max(0, min(size, self._served.model.capacity_bytes - offset))
        if size == 0:
            return b""
        data = os.pread(self._fd, size, offset)
        self._timed(lambda: self._served.model.read(offset, size))
        return data

    def write(self, path: str, data: bytes, offset: int, _fh: Any) -> int:
        if path != f"/{DRIVE_NAME}":
            raise self._error(errno.EACCES)
        if offset + len(data) > self._served.model.capacity_bytes:
            raise self._error(errno.ENOSPC)
        os.pwrite(self._fd, data, offset)
        self._timed(lambda: self._served.model.write(offset, len(data)))
        return len(data)

    def fallocate(self, path: str, mode: int, offset: int, size: int, _fh: Any) -> int:
        if path != f"/{DRIVE_NAME}":
            raise self._error(errno.EACCES)
        if offset + size > self._served.model.capacity_bytes:
            raise self._error(errno.ENOSPC)
        if not mode & FALLOC_FL_PUNCH_HOLE:
            return 0  # allocation: the drive's space is all there
        self._libc.punch_hole(self._fd, offset, size)
        self._timed(lambda: self._served.model.trim(offset, size))
        return 0

    def close(self) -> None:
        os.close(self._fd)


def _backing_file(directory: str) -> tuple[int, str]:
    """A new sparse file in `directory`, unlinked at once: it goes when the server does."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    for attempt in range(100):
        path = os.path.join(directory, f".ssdlab-virtual-drive-{os.getpid()}-{attempt}")
        try:
            fd = os.open(path, flags, 0o600)
        except FileExistsError:
            continue
        except OSError as error:
            raise UsageError(f"cannot keep the drive's data in {directory}: {error}") from None
        os.unlink(path)
        return fd, path
    raise UsageError(f"cannot create the drive's backing file in {directory}")


def check_mountpoint(mountpoint: str) -> None:
    """An empty directory that nothing is mounted on, or a UsageError saying what to do."""
    if not os.path.isdir(mountpoint):
        raise UsageError(f"{mountpoint} is not a directory: make one (mkdir {mountpoint})")
    if os.path.ismount(mountpoint):
        raise UsageError(f"something is mounted on {mountpoint} already: unmount it first")
    if os.listdir(mountpoint):
        raise UsageError(f"{mountpoint} is not empty: serve the drive on an empty directory")


def start_server(module: str, function: str, payload: bytes) -> subprocess.Popen[bytes]:
    """A Python child that calls `module.function(payload)` with the bytes given on its standard
    input; the kernel sends it SIGTERM (and so it unmounts) when the thread that started it
    ends, even by SIGKILL."""
    code = (
        "import sys, importlib; "
        f"getattr(importlib.import_module({module!r}), {function!r})(sys.stdin.buffer.read())"
    )
    # the child imports this very ssdlab, wherever it was imported from
    here = str(Path(ssdlab.__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, env.get("PYTHONPATH")) if p)
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=subprocess.PIPE,
        env=env,
        preexec_fn=end_with_parent(),
    )
    assert child.stdin is not None
    child.stdin.write(payload)
    child.stdin.close()
    return child


def serve_drive(served: ServedDrive, mountpoint: str) -> None:
    """Mount the drive on `mountpoint` and serve it until SIGINT, SIGTERM or SIGHUP (libfuse's
    own handlers end the loop) or an unmount; the mount is gone when this returns."""
    fuse = _load_fuse()
    check_mountpoint(mountpoint)
    files = _Files(served, fuse)
    try:
        fuse.FUSE(files, mountpoint, raw_fi=True, foreground=True, fsname=FSNAME)
    except RuntimeError as error:
        # libfuse's fuse_main returns 8 when its loop ended with an error, and a signal is
        # one: SIGTERM or Ctrl-C end the loop (and unmount) as asked
        if error.args != (LOOP_ENDED,):
            raise
    finally:
        files.close()
