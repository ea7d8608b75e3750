"""SMART attribute raw strings as smartctl prints them, decoded back to raw integers."""

import re
from dataclasses import dataclass

# ---------------------------------------------------------------------------------------------
# Attribute raw values.


@dataclass(frozen=True, slots=True)
class RawValue:
    value: int | None
    exact: bool
    kind: str
    hours: int | None = None  # for the "NNNh+MMm..." formats
    minutes: int | None = None


_RAW_FORMS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("dec", r"\d+"),
        ("hex", r"0x[0-9a-fA-F]+"),
        ("raw16_raw16", r"(\d+) \((\d+) (\d+)\)"),
        ("raw24_raw8", r"(\d+) \((\d+) (\d+) (\d+)\)"),
        ("temp_bytes", r"(\d+) \((\d+) (\d+) (\d+) (\d+) (\d+)\)"),
        ("avg16", r"(\d+) \(Average (\d+)\)"),
        ("minmax", r"(-?\d+) \(Min/Max (-?\d+)/(-?\d+)(?: #(\d+))?\)"),
        ("slash", r"(\d+)/(\d+)"),
        ("raw16", r"(\d+) (\d+) (\d+)"),
        ("raw8", r"(\d+) (\d+) (\d+) (\d+) (\d+) (\d+)"),
        ("min2hour", r"(\d+)h\+(\d{2,})m(?: \((\d+)\))?"),
        ("sec2hour", r"(\d+)h\+(\d{2,})m\+(\d{2})s"),
        ("msec24hour32", r"(\d+)h\+(\d{2,})m\+(\d{2})\.(\d{3})s"),
        ("temp10x", r"(\d+)\.(\d)"),
    )
)
_LEADING_INT = re.compile(r"-?\d+")


def _fits(values: tuple[int, ...], bits: int) -> bool:
    return all(0 <= value < (1 << bits) for value in values)


def _build_raw(kind: str, g: tuple[int, ...]) -> RawValue | None:
    """The value smartctl's `kind` of printed raw value stands for, from its numbers `g`;
    None when the numbers do not fit the form."""
    if kind in ("dec", "hex"):
        return RawValue(g[0], True, kind)
    if kind == "slash":
        return _build_slash(g)
    if kind in ("min2hour", "sec2hour", "msec24hour32", "temp10x"):
        return _build_timed(kind, g)
    return _build_packed(kind, g)


def _build_packed(kind: str, g: tuple[int, ...]) -> RawValue | None:
    """Forms that pack words or bytes into the 48-bit raw value."""
    if kind == "raw16_raw16" and _fits(g, 16):
        return RawValue(g[0] | g[2] << 16 | g[1] << 32, True, kind)
    if kind == "raw24_raw8" and _fits(g[:1], 24) and _fits(g[1:], 8):
        return RawValue(g[0] | g[3] << 24 | g[2] << 32 | g[1] << 40, True, kind)
    if kind == "temp_bytes" and _fits(g, 8):
        return RawValue(
            g[0] | g[5] << 8 | g[4] << 16 | g[3] << 24 | g[2] << 32 | g[1] << 40, True, kind
        )
    if kind == "avg16" and _fits(g, 16):
        return RawValue(g[0] | g[1] << 16, False, kind)
    if kind == "minmax":
        return RawValue(g[0] & 0xFF, False, kind)
    if kind == "raw16" and _fits(g, 16):
        return RawValue(g[0] << 32 | g[1] << 16 | g[2], True, kind)
    if kind == "raw8" and _fits(g, 8):
        value = 0
        for byte in g:
            value = value << 8 | byte
        return RawValue(value, True, kind)
    return None


def _build_slash(g: tuple[int, ...]) -> RawValue | None:
    """`HIGH/LOW`: two counters printed as one."""
    high, low = g
    if high == 0:
        return RawValue(low, True, "slash")
    if low >= 1 << 24 and _fits((high,), 24) and _fits((low,), 32):
        return RawValue(high << 32 | low, True, "slash")
    if _fits(g, 24):
        return RawValue(high << 24 | low, False, "slash")
    return None


def _build_timed(kind: str, g: tuple[int, ...]) -> RawValue | None:
    """Power-on times printed as hours, minutes, seconds, milliseconds; tenths of a degree."""
    if kind == "min2hour":
        hours, minutes, word2 = g
        total = hours * 60 + minutes
        if word2 >= 0:
            return RawValue(total | word2 << 32, True, kind, hours, minutes)
        return RawValue(total, False, kind, hours, minutes)
    if kind == "sec2hour":
        hours, minutes, seconds = g
        return RawValue(hours * 3600 + minutes * 60 + seconds, True, kind, hours, minutes)
    if kind == "msec24hour32":
        hours, minutes, seconds, millis = g
        total_ms = (minutes * 60 + seconds) * 1000 + millis
        return RawValue(total_ms << 32 | hours, True, kind, hours, minutes)
    if kind == "temp10x":
        return RawValue(g[0] * 10 + g[1], False, kind)
    return None


def decode_raw_string(raw_string: str) -> tuple[int | None, bool]:
    """(raw.value as smartctl's JSON would give it, exact?) for an attribute's printed raw value.

    See the module docstring for which printed forms determine the value and which do not.
    """
    raw = decode_raw(raw_string)
    return raw.value, raw.exact


def decode_raw(raw_string: str) -> RawValue:
    for kind, pattern in _RAW_FORMS:
        match = pattern.fullmatch(raw_string)
        if match is None:
            continue
        if kind == "hex":
            groups: tuple[int, ...] = (int(raw_string, 16),)
        elif kind == "dec":
            groups = (int(raw_string),)
        else:
            groups = tuple(-1 if part is None else int(part) for part in match.groups())
        built = _build_raw(kind, groups)
        if built is not None:
            return built
        break
    leading = _LEADING_INT.match(raw_string)
    value = None if leading is None else int(leading.group()) & ((1 << 64) - 1)
    return RawValue(value, False, "unknown")
