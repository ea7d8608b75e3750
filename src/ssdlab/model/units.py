"""Byte and time units, the one parser for sizes typed by people, and the one home of the
human-readable numbers ssdlab prints (sizes, rates, counts, latencies, byte counts, times):
every such formatter is a `format_*` here, and text output uses them rather than a format of
its own.

MB means 10**6 bytes and MiB 2**20 bytes, in output as in code. A number that is unknown
(None) prints as "n/a", an unknown time as "unknown". Times print in UTC with the zone named
(`format_time`); JSON documents carry epoch seconds.
"""

import math
import re
import time
from typing import Literal

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


def format_size(size_bytes: int | None) -> str:
    """A size for people, exact, in the one form ssdlab prints sizes in: a whole number (under
    1024) of a binary unit ('16 MiB', '1 GiB', '4 KiB'), a decimal size exact in three
    decimals as that ('250 GB', '1.92 TB'), small counts in bytes ('512 B'), anything else in
    decimal units with the exact count beside it: 4294966784 -> '4.29 GB (4,294,966,784 B)'.
    Never a bare count of millions of bytes or KiB."""
    if size_bytes is None:
        return "n/a"
    if abs(size_bytes) < KiB:
        return f"{size_bytes} B"
    for unit, factor in (("TiB", TiB), ("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        whole = size_bytes % factor == 0 and (size_bytes < 1024 * factor or unit == "TiB")
        if abs(size_bytes) >= factor and whole:
            return f"{size_bytes // factor} {unit}"
    for unit, factor in (("TB", TB), ("GB", GB), ("MB", MB), ("kB", KB)):
        if abs(size_bytes) >= factor:
            if size_bytes % (factor // 1000) == 0:  # exact in three decimals: 1.92 TB
                return f"{size_bytes / factor:,.3f}".rstrip("0").rstrip(".") + f" {unit}"
            return f"{size_bytes / factor:,.2f} {unit} ({size_bytes:,} B)"
    return f"{size_bytes:,} B"


def format_block_label(size_bytes: int) -> str:
    """CrystalDiskMark's block label: 1MiB -> '1M', 128KiB -> '128K', 4KiB -> '4K'."""
    for unit, factor in (("M", MiB), ("K", KiB)):
        if size_bytes >= factor and size_bytes % factor == 0:
            return f"{size_bytes // factor}{unit}"
    return f"{size_bytes}B"


def format_binary_bytes(size_bytes: int) -> str:
    """Approximate binary size for messages: 16646144 -> '15.9 MiB'."""
    value = float(size_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def format_decimal_bytes(size_bytes: float) -> str:
    """Decimal size for people (MB = 10^6 B): 30000000 -> '30 MB', 1.2e12 -> '1.2 TB'."""
    value = float(size_bytes)
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if abs(value) < 1000 or unit == "TB":
            return f"{value:.0f} B" if unit == "B" else f"{value:.4g} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


def format_counter_bytes(value: float) -> str:
    """A drive's byte counter in decimal GB, TB or PB (smaller counts in bytes), as drives
    rate their writes: 334100000000 -> '334.1 GB', 6.6e13 -> '66 TB', 3.12e16 -> '31.2 PB'."""
    if abs(value) >= 1000 * TB:
        return f"{value / (1000 * TB):.4g} PB"
    if abs(value) >= TB:
        return f"{value / TB:.4g} TB"
    if abs(value) >= GB:
        return f"{value / GB:.4g} GB"
    return f"{value:.0f} B"


def format_gb(value_bytes: float) -> str:
    """Decimal gigabytes for messages: 38.4e9 -> '38.4 GB', 33554432 -> '0.0336 GB'."""
    gb = value_bytes / GB
    return f"{gb:,.0f} GB" if abs(gb) >= 100 else f"{gb:.3g} GB"


def format_counter_value(metric: str, value: float) -> str:
    """A counter value in its own unit, bytes as decimal GB."""
    if metric.endswith("_bytes"):
        return format_gb(value)
    if metric.endswith("_pct"):
        return f"{value:g} %"
    return f"{value:g}"


def format_number(value: float | None, unit: str = "", digits: int = 0) -> str:
    """A number with thousands separators, `digits` decimals and a unit: '8,123 h'. The
    numbers of a profile's tables and messages are all this one, scaled to their unit by the
    functions below."""
    if value is None:
        return "n/a"
    return f"{value:,.{digits}f}{(' ' + unit) if unit else ''}"


def format_mb_per_s(bytes_per_s: float | None, unit: str = "", digits: int = 1) -> str:
    """MB/s (10^6 bytes a second): '3,512.4' in a table under 'MB/s', '3,512 MB/s' with the
    unit and no decimals."""
    return format_number(None if bytes_per_s is None else bytes_per_s / MB, unit, digits)


def format_count(value: float | None, unit: str = "") -> str:
    """A count (IOPS, operations): '145,859', '145,859 IOPS'."""
    return format_number(value, unit)


def format_latency_us(ns: float | None, unit: str = "", digits: int = 1) -> str:
    """A latency in µs: '1,234.5' in a table under 'µs', '1,234.5 µs' with the unit."""
    return format_number(None if ns is None else ns / NS_PER_US, unit, digits)


def format_tb(value: float | None, unit: str = "TB", digits: int = 3) -> str:
    """Bytes in decimal TB: '12.750 TB'; a rating as '600 TBW' (unit 'TBW', no decimals)."""
    return format_number(None if value is None else value / TB, unit, digits)


def format_latency(ns: float | None) -> str:
    """A latency in the unit that suits it: '850 ns', '123.4 µs', '12.34 ms', '1.250 s'."""
    if ns is None:
        return "n/a"
    if ns < NS_PER_US:
        return f"{ns:.0f} ns"
    if ns < NS_PER_MS:
        return f"{ns / NS_PER_US:.1f} µs"
    if ns < NS_PER_S:
        return f"{ns / NS_PER_MS:.2f} ms"
    return f"{ns / NS_PER_S:.3f} s"


def format_latency_range(low_ns: float | None, high_ns: float | None) -> str:
    """A latency interval: '2.31–4.29 ms' in one unit, '58.9 µs–1.02 ms' across two, '?' for
    an end that is not known: '2.31 ms–?'."""
    low, high = format_latency(low_ns), format_latency(high_ns)
    low = "?" if low_ns is None else low
    high = "?" if high_ns is None else high
    low_unit, high_unit = low.rpartition(" ")[2], high.rpartition(" ")[2]
    if low_ns is not None and high_ns is not None and low_unit == high_unit:
        return f"{low.rpartition(' ')[0]}–{high}"
    return f"{low}–{high}"


def format_needs_ios(ios: int) -> str:
    """A percentile too far out for the I/Os measured: 'needs ≥ 3,688 I/Os'."""
    return f"needs ≥ {format_count(ios)} I/Os"


def format_cdm_mb_per_s(bytes_per_s: float | None) -> str:
    """MB/s as CrystalDiskMark prints it in quick's result grid: '1224.55'."""
    return "n/a" if bytes_per_s is None else f"{bytes_per_s / MB:.2f}"


def format_cdm_iops(iops: float | None) -> str:
    """IOPS as quick's result grid prints them: '14477.5'."""
    return "n/a" if iops is None else f"{iops:.1f}"


def format_cdm_latency_us(ns: float | None) -> str:
    """A latency in µs as quick's result grid prints it: '68.63'."""
    return "n/a" if ns is None else f"{ns / NS_PER_US:.2f}"


TimePrecision = Literal["minute", "second", "millisecond"]


def format_time(ts: float | None, precision: TimePrecision = "second") -> str:
    """A Unix time as every text ssdlab prints shows it: in UTC, with the zone named,
    '2026-11-26 07:10:05 UTC' (to the minute in listings, '2026-11-26 07:10 UTC'; to the
    millisecond where a start is timed to it, '2026-11-26 07:10:05.250 UTC'); 'unknown' when
    not recorded. JSON documents carry the epoch seconds themselves."""
    if ts is None:
        return "unknown"
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ts))
    if precision == "minute":
        stamp = stamp[: -len(":00")]
    elif precision == "millisecond":
        stamp += f".{int(ts % 1 * 1000):03d}"
    return f"{stamp} UTC"


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
