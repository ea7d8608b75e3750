"""Files the user names as input — imports, health logs, spec sheets, job files, replays —
are read only when they are regular files, and never beyond a size limit.

`stat` says 0 bytes for /dev/zero, /dev/urandom, a FIFO or a /proc file, so a size check
alone lets them through and reading them fills memory or waits forever. Here the kind is
checked before the file is opened (so a FIFO is never opened and a device never touched),
again on the opened descriptor (the path may have changed in between), and at most
limit + 1 bytes are read from it, whatever its size claims.
"""

import os
import stat
from pathlib import Path

from ssdlab.errors import UsageError
from ssdlab.system.write_gate import describe_mode

_CHUNK_BYTES = 1 << 20
SMALL_FILE_BYTES = 4 * 2**20  # spec sheets, job files, vendor maps: text of a few KiB
LOG_FILE_BYTES = 256 * 2**20  # saved smartctl / nvme-cli output and logs of many snapshots


def _size_text(limit_bytes: int) -> str:
    if limit_bytes % 2**20 == 0:
        return f"{limit_bytes // 2**20} MiB"
    return f"{limit_bytes:,} bytes"


def _not_regular(path: Path, mode: int, what: str) -> UsageError:
    kind = describe_mode(mode) or "a regular file"
    if path.is_symlink():
        kind = f"a link to {os.path.realpath(path)}, {kind}"
    return UsageError(f"{what} {path} is {kind}; {what} must be a regular file")


def _too_large(path: Path, limit_bytes: int, what: str) -> UsageError:
    return UsageError(
        f"{what} {path} is larger than {_size_text(limit_bytes)} (ssdlab reads no more); "
        "check that it is the right file, or cut it down"
    )


def read_user_file(path: str | os.PathLike[str], limit_bytes: int, what: str) -> bytes:
    """The bytes of a regular file the user named (symlinks followed), at most `limit_bytes`
    of them; anything else is a UsageError naming `what` ("the import file") and the path."""
    where = Path(path)
    try:
        mode = os.stat(where).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(where, mode, what)
        fd = os.open(where, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as error:
        raise UsageError(f"cannot read {what} {where}: {error.strerror or error}") from None
    try:
        return _read_limited(fd, where, limit_bytes, what)
    except OSError as error:
        raise UsageError(f"cannot read {what} {where}: {error.strerror or error}") from None
    finally:
        os.close(fd)


def _read_limited(fd: int, path: Path, limit_bytes: int, what: str) -> bytes:
    opened = os.fstat(fd)
    if not stat.S_ISREG(opened.st_mode):  # replaced between the check and the open
        raise _not_regular(path, opened.st_mode, what)
    if opened.st_size > limit_bytes:
        raise _too_large(path, limit_bytes, what)
    chunks: list[bytes] = []
    total = 0
    while total <= limit_bytes:
        chunk = os.read(fd, min(_CHUNK_BYTES, limit_bytes + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
    raise _too_large(path, limit_bytes, what)


def read_user_text(path: str | os.PathLike[str], limit_bytes: int, what: str) -> str:
    """`read_user_file` of a text file the user wrote (a spec sheet, a vendor map): UTF-8,
    else a UsageError naming `what` and the path."""
    data = read_user_file(path, limit_bytes, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(
            f"{what} {path} is not UTF-8 text (byte {error.start + 1} is not UTF-8)"
        ) from None
