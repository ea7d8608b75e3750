"""Byte and time units, and the one parser for sizes typed by people.

MB means 10**6 bytes and MiB 2**20 bytes, in output as in code.
"""

import math
import re

KB = 10**3
MB = 10**6
GB = 10**9
TB = 10**12
KiB = 2**10
MiB = 2**20
GiB = 2**30
TiB = 2**40

NS_PER_S = 10**9
NS_PER_US = 10**3
NS_PER_MS = 10**6

_SIZE_SUFFIXES: dict[str, int] = {
    "": 1,
    "b": 1,
    "k": KiB,
    "kb": KB,
    "kib": KiB,
    "m": MiB,
    "mb": MB,
    "mib": MiB,
    "g": GiB,
    "gb": GB,
    "gib": GiB,
    "t": TiB,
    "tb": TB,
    "tib": TiB,
}
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")


def parse_size_bytes(text: str) -> int:
    """Parse "1GiB", "256MiB", "4k" (binary, as fio reads it) or "1GB" (decimal) into bytes.

    Raises ValueError with a message that names the accepted forms.
    """
    match = _SIZE_RE.match(text)
    suffix = match.group(2).lower() if match else ""
    if match is None or suffix not in _SIZE_SUFFIXES:
        raise ValueError(
            f"{text!r} is not a size; use a number with a unit such as 256MiB, 1GiB or 1GB "
            "(KiB/MiB/GiB are powers of 2, KB/MB/GB powers of 10, a bare k/m/g means KiB/MiB/GiB)"
        )
    value = float(match.group(1)) * _SIZE_SUFFIXES[suffix]
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is too large to be a size")
    if value != int(value):
        raise ValueError(f"{text!r} is not a whole number of bytes")
    return int(value)


def format_size(size_bytes: int) -> str:
    """Shortest exact binary form: 1073741824 -> '1GiB', 4096 -> '4KiB', 1000 -> '1000B'."""
    for unit, factor in (("TiB", TiB), ("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if size_bytes >= factor and size_bytes % factor == 0:
            return f"{size_bytes // factor}{unit}"
    return f"{size_bytes}B"


def format_block_label(size_bytes: int) -> str:
    """CrystalDiskMark's block label: 1MiB -> '1M', 128KiB -> '128K', 4KiB -> '4K'."""
    for unit, factor in (("M", MiB), ("K", KiB)):
        if size_bytes >= factor and size_bytes % factor == 0:
            return f"{size_bytes // factor}{unit}"
    return f"{size_bytes}B"


def describe_bytes(size_bytes: int) -> str:
    """Approximate binary size for messages: 16646144 -> '15.9 MiB'."""
    value = float(size_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def describe_decimal_bytes(size_bytes: float) -> str:
    """Decimal size for people (MB = 10^6 B): 30000000 -> '30 MB', 1.2e12 -> '1.2 TB'."""
    value = float(size_bytes)
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if abs(value) < 1000 or unit == "TB":
            return f"{value:.0f} B" if unit == "B" else f"{value:.4g} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


_DURATION_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|d|w)?\s*$")
_DURATION_UNITS = {
    None: 1,
    "s": 1,
    "sec": 1,
    "m": 60,
    "min": 60,
    "h": 3600,
    "d": 86400,
    "w": 604800,
}


def parse_duration_s(text: str) -> float:
    """'30s', '5m', '72h', '7d', '2w' or plain seconds, in seconds."""
    match = _DURATION_RE.match(text.lower())
    if match is None:
        raise ValueError(f"{text!r} is not a duration; use e.g. 30s, 5m, 72h or 7d")
    return float(match.group(1)) * _DURATION_UNITS[match.group(2)]
