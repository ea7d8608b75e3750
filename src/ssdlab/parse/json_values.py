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
