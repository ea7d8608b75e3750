"""/proc/self/mountinfo and /proc/swaps, parsed into values. Pure: text in, tuples out.

The kernel escapes space, tab, newline and backslash in paths as three-digit octal
(``\\040``, ``\\011``, ``\\012``, ``\\134``); every path field returned here is decoded.
"""

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ssdlab.errors import ParseError

_OCTAL_ESCAPE = re.compile(r"\\([0-7]{3})")
_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True, slots=True)
class MountEntry:
    """One line of /proc/self/mountinfo (see proc(5))."""

    mount_id: int
    parent_id: int
    major: int
    minor: int
    root: str  # the directory of the filesystem that is mounted here, decoded
    mount_point: str  # decoded
    mount_options: str  # per-mount options: rw,relatime
    fs_type: str  # ext4, btrfs, fuse.sshfs
    source: str  # decoded; "none" or a name when the filesystem has no device
    super_options: str  # per-superblock options
    optional_fields: tuple[str, ...] = ()  # shared:1, master:2, propagate_from:3, unbindable


def decode_octal_escapes(text: str) -> str:
    """Undo the kernel's ``\\ooo`` escaping of a path field."""
    return _OCTAL_ESCAPE.sub(lambda match: chr(int(match.group(1), 8)), text)


def _parse_mountinfo_line(line: str, line_number: int) -> MountEntry:
    # Fields are separated by single spaces; a field may be empty (a mount with source "").
    fields = line.split(" ")
    try:
        separator = fields.index("-", 6)
    except ValueError:
        raise ParseError(f"mountinfo line {line_number} has no ' - ' separator: {line!r}") from None
    after = fields[separator + 1 :]
    if len(after) < 3:
        raise ParseError(f"mountinfo line {line_number} ends too early: {line!r}")
    majmin = fields[2].split(":")
    if not all(_DIGITS.fullmatch(text) for text in (fields[0], fields[1], *majmin)):
        raise ParseError(f"mountinfo line {line_number} has bad numeric fields: {line!r}")
    if not fields[4].startswith("/") or not fields[3]:
        # the kernel prints the mount point as an absolute path (escaped, never empty): a line
        # that is not so has lost or gained a field, and its mount point cannot be trusted. The
        # root is a path too, except where the mounted thing lives in no directory tree: a
        # network namespace bound at /run/netns/NAME (`ip netns add`) has root `net:[4026532177]`
        raise ParseError(f"mountinfo line {line_number} has no absolute mount point: {line!r}")
    try:
        mount_id, parent_id = int(fields[0]), int(fields[1])
        major, minor = int(majmin[0]), int(majmin[1])
    except (ValueError, IndexError):
        raise ParseError(f"mountinfo line {line_number} has bad numeric fields: {line!r}") from None
    if len(majmin) != 2:
        raise ParseError(f"mountinfo line {line_number} has a bad major:minor: {line!r}")
    return MountEntry(
        mount_id=mount_id,
        parent_id=parent_id,
        major=major,
        minor=minor,
        root=decode_octal_escapes(fields[3]),
        mount_point=decode_octal_escapes(fields[4]),
        mount_options=fields[5],
        fs_type=decode_octal_escapes(after[0]),
        source=decode_octal_escapes(after[1]),
        super_options=" ".join(after[2:]),
        optional_fields=tuple(field for field in fields[6:separator] if field),
    )


def parse_mountinfo(text: str) -> tuple[MountEntry, ...]:
    """Every mount in a /proc/<pid>/mountinfo text, in the kernel's order.

    Blank lines are skipped; any other line that does not fit the format raises ParseError,
    because a mount silently dropped here could let a write hit a mounted device.
    """
    entries = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        entries.append(_parse_mountinfo_line(line, number))
    return tuple(entries)


def parse_swaps(text: str) -> tuple[str, ...]:
    """The Filename column of /proc/swaps (devices and swap files in use), decoded."""
    names = []
    for raw in text.splitlines():
        fields = raw.split()
        if not fields or (fields[0] == "Filename" and "Type" in fields):
            continue
        names.append(decode_octal_escapes(fields[0]))
    return tuple(names)


def _is_under(path: str, mount_point: str) -> bool:
    if mount_point == "/":
        return path.startswith("/")
    return path == mount_point or path.startswith(mount_point.rstrip("/") + "/")


def mount_containing(
    path: str, st_dev_major: int, st_dev_minor: int, entries: Iterable[MountEntry]
) -> MountEntry | None:
    """The mount that holds ``path`` (an absolute path with symlinks already resolved).

    Among the mounts whose mount point is a prefix of the path, the longest one whose
    major:minor equals the path's st_dev wins; when none matches (btrfs subvolumes report
    other device numbers than their mount), the longest prefix wins. When the same mount
    point is mounted over, the later (upper) entry wins. None when nothing matches.
    """
    normalized = posixpath.normpath(path)
    if normalized.startswith("//"):
        normalized = "/" + normalized.lstrip("/")
    best_matching: MountEntry | None = None
    best_any: MountEntry | None = None
    for entry in entries:
        if not _is_under(normalized, entry.mount_point):
            continue
        if best_any is None or len(entry.mount_point) >= len(best_any.mount_point):
            best_any = entry
        if (entry.major, entry.minor) == (st_dev_major, st_dev_minor) and (
            best_matching is None or len(entry.mount_point) >= len(best_matching.mount_point)
        ):
            best_matching = entry
    return best_matching if best_matching is not None else best_any
