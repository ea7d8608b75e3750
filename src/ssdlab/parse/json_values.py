"""Values read out of a decoded JSON document of unknown trust (smartctl -j, nvme-cli -o
json): a wrong type is None, never an exception, and text is shown without control characters."""

import math
import re
from collections.abc import Mapping
from typing import Any

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def clean_text(value: object) -> str | None:
    """A non-blank string, control characters (a drive's firmware may report any bytes) shown
    as '?': printed or exported, they would act on the terminal."""
    if isinstance(value, str) and value.strip():
        return _CONTROL.sub("?", value.strip())
    return None


def small_int(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def decimal_number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.replace(",", ""))
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) and number >= 0 else None


def signed_number(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def raw_value(value: object) -> str | int | float | None:
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return value
    return None if value is None else str(value)


# NVMe's widest counters are 128 bits; a larger number is not a counter (and, times a unit,
# would not even fit a float).
_COUNTER_LIMIT = 2**128


def to_count(raw: object) -> int | None:
    """A non-negative counter up to 2^128 from an int, a float (nvme-cli 1.x) or a decimal/hex
    string; None for anything else."""
    count = _whole_number(raw)
    return count if count is not None and count <= _COUNTER_LIMIT else None


def _whole_number(raw: object) -> int | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw if raw >= 0 else None
    if isinstance(raw, float):
        if not math.isfinite(raw) or raw < 0:
            return None
        return round(raw)
    if isinstance(raw, str):
        text = raw.strip().replace(",", "")
        try:
            if text.lower().startswith("0x"):
                return int(text, 16)
            if re.fullmatch(r"\d+", text):
                return int(text)
            number = float(text)
        except ValueError:
            return None
        return round(number) if math.isfinite(number) and number >= 0 else None
    return None


def hi_lo_count(raw: object) -> int | None:
    """A 128-bit counter nvme-cli prints as {"hi": N, "lo": N} (64-bit halves), or as one number."""
    if isinstance(raw, Mapping):
        hi, lo = to_count(raw.get("hi", 0)), to_count(raw.get("lo"))
        if hi is None or lo is None:
            return None
        return hi * 2**64 + lo
    return to_count(raw)


def squashed_key(key: str) -> str:
    """A key without case, spaces or punctuation: nvme-cli's "Max User data erase counts" and
    its later "max_user_data_erase_count" differ only in the plural once squashed."""
    return re.sub(r"[^a-z0-9]", "", key.lower())
