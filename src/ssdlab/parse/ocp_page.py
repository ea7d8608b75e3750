"""What the OCP log page decoders share: little-endian fields and the one-line refusals of a
page whose version or GUID is not the one expected."""

from ssdlab.errors import ParseError


def le_int(page: bytes, offset: int, size: int) -> int:
    """The unsigned little-endian number of `size` bytes at `offset`."""
    return int.from_bytes(page[offset : offset + size], "little")


def checked_version(log: str, version: int, known: range) -> int:
    """`version` when `known` holds it; otherwise ParseError naming the log and the range."""
    if version not in known:
        raise ParseError(
            f"OCP {log} log: log page version {version} is not one ssdlab knows "
            f"({known.start}-{known.stop - 1})"
        )
    return version


def foreign_guid(log: str, found: str, expected: str, page: str) -> ParseError:
    """The refusal of a page whose GUID is not the OCP one: one line."""
    return ParseError(
        f"OCP {log} log: log page GUID {found} is not the OCP {log} GUID {expected}; "
        f"not an OCP {page} page"
    )
