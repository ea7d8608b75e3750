"""The one place that decides where ssdlab may write, apart from fio's benchmark I/O.

The rules, with the same sentences wherever they apply:

- **Outputs** (`-o`, `--plots`, a Markdown report's chart folder) and **the run store**
  (`--db` and the journal, WAL and shared-memory files SQLite keeps beside it) are regular
  files or new paths. A block or character device, a FIFO, a socket, a directory, or a path on
  /dev, /proc or /sys is refused before anything is opened for writing.
- **Test files** belong to ssdlab only when they are the file ssdlab created: made here with
  O_EXCL and O_NOFOLLOW (so neither an existing file nor a link planted at the name is ever
  opened), allocated to their size, marked with a random extended attribute, their device,
  inode and marker recorded in the store. A test file is reused, written or removed only while
  its path still leads, without following a link, to that file with one link and no loop
  device attached. A name like `ssdlab-….tmp` proves nothing.
- **Block devices** are written only by fio or a purge tool, after plan/safety.py judged the
  device and system/claims.py claimed it exclusively for the run."""

import contextlib
import errno
import os
import stat
from enum import StrEnum
from pathlib import Path

from ssdlab.errors import SafetyRefusal, TargetError
from ssdlab.model.target import FileIdentity
from ssdlab.parse.mountinfo import mount_containing, parse_mountinfo
from ssdlab.system.block import SYSFS_ROOT, loop_backing_file, loop_devices

# Filesystems whose files are kernel objects or memory, never a place for ssdlab's files.
PSEUDO_FILESYSTEMS = frozenset(
    {"devtmpfs", "proc", "sysfs", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs",
     "configfs", "efivarfs", "pstore", "bpf", "devpts", "mqueue", "hugetlbfs", "fusectl"}
)  # fmt: skip
STORE_SIDE_FILES = ("-wal", "-shm", "-journal")
MARKER_ATTRIBUTE = "user.ssdlab.test-file"
MOUNTINFO = Path("/proc/self/mountinfo")


class Removal(StrEnum):
    REMOVED = "removed"
    GONE = "already gone"
    NOT_OURS = "not ssdlab's"  # the path now leads to another file: left alone


def describe_mode(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    kinds = (
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISLNK, "a symbolic link"),
    )
    for test, words in kinds:
        if test(mode):
            return words
    return None if stat.S_ISREG(mode) else "not a regular file"


def _filesystem_type(path: Path, mountinfo: Path) -> str | None:
    """The type of the filesystem holding the nearest existing ancestor of `path`."""
    current = path
    while not os.path.lexists(current) and current.parent != current:
        current = current.parent
    try:
        info = os.stat(current)
        text = mountinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    entry = mount_containing(
        os.path.realpath(current),
        os.major(info.st_dev),
        os.minor(info.st_dev),
        parse_mountinfo(text),
    )
    return entry.fs_type if entry else None


def output_problem(path: Path, *, mountinfo: Path = MOUNTINFO) -> str | None:
    """Why `path` may not be written as a file of ssdlab's own (an output or the store); None
    when it is a regular file (followed through links) or a new name in an existing folder."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            return f"{path} is a symbolic link to nothing ({os.readlink(path)})"
        if not path.parent.is_dir():
            return f"the folder {path.parent} does not exist"
        info = None
    except OSError as error:
        return f"{path} cannot be examined: {error.strerror}"
    if info is not None:
        kind = describe_mode(info.st_mode)
        if kind is not None:
            return f"{path} is {kind}"
    fs_type = _filesystem_type(path, mountinfo)
    if fs_type in PSEUDO_FILESYSTEMS:
        return f"{path} is on {fs_type}, the kernel's own filesystem, not a disk"
    return None


def check_output_path(path: str, what: str) -> Path:
    """The path of an output file (`what`: "-o", "--plots", …), refused unless it is a regular
    file or a new name; block devices are written only as named benchmark targets."""
    resolved = Path(path).expanduser().absolute()
    problem = output_problem(resolved)
    if problem is not None and not os.path.lexists(resolved.parent):
        raise TargetError(f"{what} {path}: {problem}; create it first or give another path")
    if problem is not None:
        raise SafetyRefusal(
            f"{what} {path}: {problem}; ssdlab writes its outputs only to regular files — "
            "give a file path (block devices are written only as a benchmark target named "
            "with --destroy-data)"
        )
    return resolved


def write_output(path: str, data: str | bytes, what: str) -> Path:
    """Write an output file through the gate. The file is checked before it is opened and
    again, by its descriptor, after (a device swapped in between is never written)."""
    resolved = check_output_path(path, what)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
    existed = os.path.lexists(resolved)
    try:
        fd = os.open(resolved, flags, 0o666)
    except OSError as error:
        raise _output_failure(path, what, error) from error
    try:
        kind = describe_mode(os.fstat(fd).st_mode)
        if kind is not None:
            raise SafetyRefusal(f"{what} {path}: {path} is {kind}; nothing was written")
        os.ftruncate(fd, 0)
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as error:
        if not existed:  # a cut-short file made here would pass for the whole output
            with contextlib.suppress(OSError):
                os.unlink(resolved)
        raise _output_failure(path, what, error) from error
    finally:
        os.close(fd)
    return resolved


def _output_failure(path: str, what: str, error: OSError) -> TargetError:
    """An output that could not be written, in one line; a full disk says what to do."""
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return TargetError(
            f"cannot write {path}: its file system is full ({error.strerror}); make room there "
            f"or give another {what}"
        )
    return TargetError(f"cannot write {path}: {error.strerror}")


def check_output_folder(path: str, what: str) -> Path:
    """The path of a folder for output files: an existing folder or a new name, not on the
    kernel's own filesystems."""
    folder = Path(path).expanduser().absolute()
    if os.path.lexists(folder) and not folder.is_dir():
        problem = output_problem(folder) or f"{folder} is a file"
        raise SafetyRefusal(f"{what} {path}: {problem}; give a folder for the files")
    fs_type = _filesystem_type(folder, MOUNTINFO)
    if fs_type in PSEUDO_FILESYSTEMS:
        raise SafetyRefusal(
            f"{what} {path}: {folder} is on {fs_type}, the kernel's own filesystem, not a disk"
        )
    return folder


def make_output_folder(path: str, what: str) -> Path:
    """A folder for output files, created with its parents when missing."""
    folder = check_output_folder(path, what)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise TargetError(f"cannot create the folder {folder}: {error.strerror}") from error
    return folder


def check_outputs(output: str | None, plots: str | None) -> None:
    """Refuse a command's -o and --plots before the command does any work."""
    if output:
        check_output_path(output, "-o")
    if plots:
        check_output_folder(plots, "--plots")


def check_store_path(path: Path) -> None:
    """Refuse a run store (--db) that is anything but a regular file or a new name, or whose
    journal, WAL or shared-memory file is: SQLite would write its pages onto it."""
    for candidate in (path, *(Path(f"{path}{suffix}") for suffix in STORE_SIDE_FILES)):
        if candidate != path and not os.path.lexists(candidate):
            continue
        problem = output_problem(candidate)
        if problem is not None and not (candidate == path and "does not exist" in problem):
            raise SafetyRefusal(
                f"--db {path}: {problem}; the run store is a file that SQLite writes into, so "
                "it is never a device — give a file path such as ~/ssdlab.db"
            )


def create_test_file(path: str, size_bytes: int) -> FileIdentity:
    """Create a new test file of `size_bytes` at `path` and say which file it is.

    O_EXCL with O_NOFOLLOW fails on anything already at the path, a dangling link included,
    so ssdlab never writes into a file it did not make here. The blocks are allocated now
    (as fio would allocate them): fio lays out a file that is too small by unlinking it and
    creating another, which would leave ssdlab with no record of the file it writes."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o600)
    except FileExistsError as error:
        raise TargetError(
            f"{path} appeared before ssdlab could create it (another program, or a link "
            "planted at the name); nothing was written — run again for a new test file"
        ) from error
    except OSError as error:
        raise TargetError(f"cannot create the test file {path}: {error.strerror}") from error
    try:
        info = os.fstat(fd)
        marker = _set_marker(fd)
        if size_bytes > 0:
            os.posix_fallocate(fd, 0, size_bytes)
    except OSError as error:
        os.close(fd)
        os.unlink(path)
        raise TargetError(
            f"cannot allocate the {size_bytes:,}-byte test file {path}: {error.strerror}; "
            "free some space or choose a smaller --size"
        ) from error
    os.close(fd)
    return FileIdentity(info.st_dev, info.st_ino, marker)


def _set_marker(fd: int) -> str | None:
    """Set a random marker on the new file; None where the filesystem keeps no user xattrs."""
    import secrets  # OpenSSL's hashes load with it: only where a test file is made

    marker = secrets.token_hex(16)
    try:
        os.setxattr(fd, MARKER_ATTRIBUTE, marker.encode("ascii"))
    except OSError as error:
        if error.errno in (errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM, errno.ENOSPC):
            return None
        raise
    return marker


def _marker_of(path: str) -> str | None:
    try:
        return os.getxattr(path, MARKER_ATTRIBUTE, follow_symlinks=False).decode("ascii", "replace")
    except OSError:
        return None


def ownership_problem(path: str, identity: FileIdentity | None) -> str | None:
    """Why the file at `path` is not (any more) the test file ssdlab created; None when it is.

    `identity` None means the store recorded none (runs of stores before schema 5): then the
    path must still be a plain regular file with one link."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return f"{path} is gone"
    except OSError as error:
        return f"{path} cannot be examined: {error.strerror}"
    kind = describe_mode(info.st_mode)
    if kind is not None:
        return f"{path} is now {kind}, not the test file ssdlab created"
    replaced = f"{path} is another file than the test file ssdlab created (replaced or moved)"
    if identity is not None and (
        (info.st_dev, info.st_ino) != (identity.device, identity.inode)
        or (identity.marker is not None and _marker_of(path) != identity.marker)
    ):
        return replaced
    if info.st_nlink != 1:
        return (
            f"{path} has {info.st_nlink} names (hard links): writing to it would change the "
            "file under its other names"
        )
    loops = loops_backed_by(info)
    if loops:
        shown = ", ".join(f"/dev/{name}" for name in loops)
        return (
            f"{path} is the backing file of {shown}; writing to it would change that device "
            f"under whatever uses it — detach it first (losetup -d {shown.split(', ')[0]})"
        )
    return None


def loops_backed_by(info: os.stat_result, sysfs_root: Path = SYSFS_ROOT) -> tuple[str, ...]:
    """The loop devices attached to the file `info` describes (same device and inode)."""
    found = []
    for name in loop_devices(sysfs_root):
        backing = loop_backing_file(name, sysfs_root)
        if backing is None:
            continue
        try:
            other = os.stat(backing.removesuffix(" (deleted)"))
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
            found.append(name)
    return tuple(found)


def remove_test_file(path: str, identity: FileIdentity | None) -> Removal:
    """Remove a test file ssdlab created, and only that file."""
    problem = ownership_problem(path, identity)
    if problem is not None:
        return Removal.GONE if not os.path.lexists(path) else Removal.NOT_OURS
    try:
        os.unlink(path)
    except FileNotFoundError:
        return Removal.GONE
    except OSError as error:
        if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS, errno.EBUSY):
            raise TargetError(f"cannot remove the test file {path}: {error.strerror}") from error
        raise
    return Removal.REMOVED
