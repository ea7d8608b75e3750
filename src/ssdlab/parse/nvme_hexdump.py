"""nvme-cli's hex dump of a log page -> the page's bytes.

``nvme get-log DEV --log-id=N --log-len=L`` without ``-b`` prints the page as text (nvme-cli's
``d()``, src/nvme-print.c; the same in 1.x): a header of column numbers, then one line per 16
bytes, ``0120: 00 00 01 02 …  "....."`` — the offset in hex, the bytes in hex, their ASCII in
quotes. Text keeps the capture storable as every other tool output is, and nvme-cli 1.x, which
has no OCP plugin, prints it too.
"""

import re

from ssdlab.errors import ParseError

_LINE = re.compile(r"([0-9a-fA-F]{4,}):((?:\s?[0-9a-fA-F]{2})+)\s+\"")
_BYTE = re.compile(r"[0-9a-fA-F]{2}")


def read_hex_dump(text: str) -> bytes:
    """The bytes of the dump, in order. Raises ParseError when there are none or a line's
    offset is not where the previous line ended."""
    page = bytearray()
    for line in text.splitlines():
        match = _LINE.match(line.strip())
        if match is None:
            continue
        offset = int(match[1], 16)
        if offset != len(page):
            raise ParseError(
                f"nvme get-log hex dump: the line at {offset:#06x} follows {len(page)} bytes"
            )
        page.extend(int(b, 16) for b in _BYTE.findall(match[2]))
    if not page:
        raise ParseError("nvme get-log hex dump: no line of bytes ('0000: 00 01 …')")
    return bytes(page)
