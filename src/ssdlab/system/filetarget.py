"""File targets: choose the test file, check the filesystem under it, and remove it afterwards."""

import errno
import mmap
import os
import secrets
from pathlib import Path

from ssdlab.errors import TargetError
from ssdlab.model.target import DeviceIdentity, FilesystemInfo, Target, TargetKind
from ssdlab.model.units import MiB, format_binary_bytes, format_size
from ssdlab.parse.mountinfo import mount_containing, parse_mountinfo
from ssdlab.plan.jobfile import check_fio_path
from ssdlab.system.block import block_device_of_path, read_device_identity, whole_disk_of
from ssdlab.system.write_gate import PSEUDO_FILESYSTEMS, ownership_problem

TEST_FILE_PREFIX = "ssdlab-"
TEST_FILE_SUFFIX = ".tmp"
FREE_SPACE_MARGIN_BYTES = 16 * MiB
_COW_FILESYSTEMS = {"btrfs", "zfs", "bcachefs"}
_MEMORY_FILESYSTEMS = {"tmpfs", "ramfs"}


def new_test_file_name() -> str:
    return f"{TEST_FILE_PREFIX}{secrets.token_hex(6)}{TEST_FILE_SUFFIX}"


def is_test_file_name(name: str) -> bool:
    return name.startswith(TEST_FILE_PREFIX) and name.endswith(TEST_FILE_SUFFIX)


def probe_direct_io(folder: Path) -> str | None:
    """Open a probe file with O_DIRECT and write one aligned 4 KiB block; None when it works,
    else the reason fio's direct=1 would fail."""
    probe = folder / f".ssdlab-odirect-{secrets.token_hex(4)}"
    buffer = mmap.mmap(-1, 4096)  # page-aligned, as O_DIRECT requires
    try:
        fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_RDWR | os.O_DIRECT, 0o600)
    except OSError as error:
        probe.unlink(missing_ok=True)  # some filesystems create the file, then refuse O_DIRECT
        buffer.close()
        if error.errno == errno.EINVAL:
            return "the filesystem refuses O_DIRECT (open: invalid argument)"
        raise TargetError(f"cannot create a file in {folder}: {error.strerror}") from error
    try:
        os.pwrite(fd, buffer, 0)
    except OSError as error:
        return f"the filesystem refuses O_DIRECT writes ({error.strerror})"
    finally:
        os.close(fd)
        probe.unlink(missing_ok=True)
        buffer.close()
    return None


def read_filesystem(path: Path, mountinfo: Path = Path("/proc/self/mountinfo")) -> FilesystemInfo:
    st = os.stat(path)
    vfs = os.statvfs(path)
    entry = mount_containing(
        str(path.resolve()),
        os.major(st.st_dev),
        os.minor(st.st_dev),
        parse_mountinfo(mountinfo.read_text(encoding="utf-8", errors="replace")),
    )
    return FilesystemInfo(
        mount_point=entry.mount_point if entry else "?",
        fs_type=entry.fs_type if entry else "unknown",
        source=entry.source if entry else "?",
        mount_options=",".join(filter(None, [entry.mount_options, entry.super_options]))
        if entry
        else "",
        free_bytes=vfs.f_bavail * vfs.f_frsize if vfs.f_blocks else None,
        total_bytes=vfs.f_blocks * vfs.f_frsize if vfs.f_blocks else None,
    )


def filesystem_warnings(fs: FilesystemInfo) -> list[str]:
    warnings = []
    if fs.fs_type in _COW_FILESYSTEMS:
        warnings.append(
            f"{fs.mount_point} is {fs.fs_type}, a copy-on-write filesystem: writes are "
            "redirected and may be checksummed or compressed, so numbers can differ much from "
            "the drive's own; test the block device for drive numbers"
        )
    if "compress" in fs.mount_options:
        warnings.append(
            f"{fs.mount_point} is mounted with compression ({fs.mount_options}); zero or "
            "repeated data will look far faster than the drive is"
        )
    if fs.fs_type in _MEMORY_FILESYSTEMS:
        warnings.append(f"{fs.mount_point} is {fs.fs_type}: this measures memory, not a drive")
    if fs.fs_type.startswith("fuse") or fs.fs_type in {"nfs", "nfs4", "cifs", "overlay"}:
        warnings.append(
            f"{fs.mount_point} is {fs.fs_type}: the numbers include that layer, not just the drive"
        )
    return warnings


def _memory_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return None


def _check_reusable(path: Path) -> None:
    """An existing file may be written only if it looks like a kept test file: named like one,
    not a link, one name. The runner then checks the store recorded creating that very file."""
    if path.is_symlink():
        raise TargetError(
            f"{path} is a symbolic link; ssdlab writes only to test files it created, never "
            "through a link. Give a directory (a test file is made and removed there)"
        )
    if not is_test_file_name(path.name):
        raise TargetError(
            f"{path} already exists and is not an ssdlab test file; ssdlab does not "
            "overwrite your files. Give a directory (a test file is made and removed "
            "there) or a new file name"
        )
    problem = ownership_problem(str(path), None)
    if problem is not None:
        raise TargetError(f"{problem}; ssdlab does not write to it")


def _check_readable_whole(path: Path, size_bytes: int) -> None:
    """A read test on an existing file must fit in it: fio lays out (rewrites) a file that is
    smaller than the test size, which would destroy the user's file."""
    file_bytes = path.stat().st_size
    if file_bytes < size_bytes:
        raise TargetError(
            f"{path} holds {format_binary_bytes(file_bytes)}, less than the "
            f"{format_size(size_bytes)} "
            "test size; fio would lay the file out again and destroy its contents. Give "
            f"--size {file_bytes // MiB}MiB or less (a read test reads within the file)"
            if file_bytes >= MiB
            else f"{path} holds {format_binary_bytes(file_bytes)}, too small for a read test; "
            "give a larger file or a directory"
        )


def resolve_file_target(
    requested: str, size_bytes: int, *, direct_io: bool, writes: bool
) -> Target:
    """Decide the test file for a directory or file path, and check it can hold the test.

    A directory gets a new uniquely named test file. A path that does not exist yet becomes the
    test file. An existing file is used only if it is a test file ssdlab made (kept with
    --keep), because ssdlab never overwrites people's files.
    """
    path = Path(requested).expanduser().absolute()
    check_fio_path(str(path))
    folder, test_file, created, reuses = _choose_test_file(path, requested, size_bytes, writes)
    check_fio_path(str(test_file))
    filesystem = _check_folder(folder, requested, created=created, direct_io=direct_io)
    _check_free_space(filesystem, test_file, size_bytes)
    return Target(
        kind=TargetKind.FILE,
        path=str(test_file),
        size_bytes=size_bytes,
        requested=requested,
        created_file=created,
        reuses_test_file=reuses,
        direct_io=direct_io,
        device=_device_under(folder),
        filesystem=filesystem,
        warnings=tuple(_file_target_warnings(filesystem, size_bytes, direct_io=direct_io)),
    )


def _choose_test_file(
    path: Path, requested: str, size_bytes: int, writes: bool
) -> tuple[Path, Path, bool, bool]:
    """(folder, test file, created?, reuses a kept test file?) for the path the user gave."""
    reuses = False
    if os.path.islink(path) and not path.exists():
        raise TargetError(
            f"{path} is a symbolic link to nothing ({os.readlink(path)}); ssdlab never creates "
            "a test file through a link. Give a directory or a new file name"
        )
    if path.is_dir():
        folder, test_file, created = path, path / new_test_file_name(), True
    elif path.exists():
        if not path.is_file():
            raise TargetError(f"{path} is neither a directory, a regular file nor a block device")
        if writes:
            _check_reusable(path)
            reuses = True
        else:
            _check_readable_whole(path, size_bytes)
        folder, test_file, created = path.parent, path, False
    else:
        if not path.parent.is_dir():
            if str(path).startswith("/dev/"):
                raise TargetError(
                    f"there is no device {requested}; check the device name with 'lsblk'"
                )
            raise TargetError(f"{path.parent} does not exist; give an existing directory")
        folder, test_file, created = path.parent, path, True
    return folder, test_file, created, reuses


def _check_folder(
    folder: Path, requested: str, *, created: bool, direct_io: bool
) -> FilesystemInfo:
    """The test file's filesystem, refused when read-only, the kernel's own, or (for direct
    I/O) refusing O_DIRECT."""
    if not os.access(folder, os.W_OK) or os.statvfs(folder).f_flag & os.ST_RDONLY:
        raise TargetError(
            f"{folder} is read-only (or not writable by you); give a writable directory"
        )
    filesystem = read_filesystem(folder)
    if filesystem.fs_type in PSEUDO_FILESYSTEMS:
        missing = f"there is no device {requested}; " if created else ""
        raise TargetError(
            f"{missing}{folder} is on {filesystem.fs_type}, the kernel's own filesystem: a test "
            "file there would measure memory, not a drive. Check the device name with 'lsblk', "
            "or give a directory on the drive to test"
        )
    if direct_io:
        refused = probe_direct_io(folder)
        if refused:
            raise TargetError(
                f"{folder} is on {filesystem.fs_type}: {refused}. Measure through the page "
                "cache with --buffered (numbers then include caching), or choose a directory "
                "on a filesystem that supports direct I/O"
            )
    return filesystem


def _check_free_space(filesystem: FilesystemInfo, test_file: Path, size_bytes: int) -> None:
    existing = test_file.stat().st_size if test_file.exists() else 0
    needed = max(0, size_bytes - existing) + FREE_SPACE_MARGIN_BYTES
    if filesystem.free_bytes is not None and filesystem.free_bytes < needed:
        raise TargetError(
            f"{filesystem.mount_point} has {format_binary_bytes(filesystem.free_bytes)} free, "
            f"but a "
            f"{format_size(size_bytes)} test file needs {format_binary_bytes(needed)} with a "
            f"margin; "
            "free some space or choose a smaller --size"
        )


def _file_target_warnings(
    filesystem: FilesystemInfo, size_bytes: int, *, direct_io: bool
) -> list[str]:
    warnings = filesystem_warnings(filesystem)
    if not direct_io:
        memory = _memory_bytes()
        if memory is not None and size_bytes < 2 * memory:
            warnings.append(
                f"--buffered with a {format_size(size_bytes)} test file on a machine with "
                f"{format_size(memory)} of memory: reads may come from the page cache"
            )
    return warnings


def _device_under(folder: Path) -> DeviceIdentity | None:
    """The whole disk the folder's filesystem is on, when there is one and it can be read."""
    name = block_device_of_path(str(folder))
    if name is None:
        return None
    try:
        return read_device_identity(whole_disk_of(name))
    except OSError:
        return None
