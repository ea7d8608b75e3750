"""Timestamps in smartctl text and cron logs: "Local Time is:" lines and `date` lines."""

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

# ---------------------------------------------------------------------------------------------
# Timestamps: "Local Time is:" lines and the date lines cron jobs write.

_MONTHS = {
    name: number
    for number, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
        start=1,
    )
}
_WEEKDAYS = frozenset(("mon", "tue", "wed", "thu", "fri", "sat", "sun"))
_WEEKDAY_NAMES = frozenset(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
)
_MONTH_NAMES = frozenset(
    (
        "january",
        "february",
        "march",
        "april",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    )
)

# Zone abbreviations as the tz database prints them, in minutes east of UTC. Only names that
# mean one offset: CST (US/China/Cuba), IST (India/Ireland/Israel) and the like are left out
# and so count as unknown (taken as UTC, marked as assumed).
_ZONE_MINUTES = {
    "UTC": 0,
    "GMT": 0,
    "UT": 0,
    "Z": 0,
    "WET": 0,
    "WEST": 60,
    "BST": 60,
    "CET": 60,
    "CEST": 120,
    "MET": 60,
    "MEST": 120,
    "EET": 120,
    "EEST": 180,
    "MSK": 180,
    "EAT": 180,
    "CAT": 120,
    "WAT": 60,
    "SAST": 120,
    "PKT": 300,
    "WIB": 420,
    "HKT": 480,
    "AWST": 480,
    "JST": 540,
    "KST": 540,
    "ACST": 570,
    "ACDT": 630,
    "AEST": 600,
    "AEDT": 660,
    "NZST": 720,
    "NZDT": 780,
    "NST": -210,
    "NDT": -150,
    "AST": -240,
    "ADT": -180,
    "EST": -300,
    "EDT": -240,
    "CDT": -300,
    "MST": -420,
    "MDT": -360,
    "PST": -480,
    "PDT": -420,
    "AKST": -540,
    "AKDT": -480,
    "HST": -600,
}

_EPOCH_MIN = 946_684_800  # 2000-01-01: a bare number below this is not a `date +%s` line
_EPOCH_MAX = 4_102_444_800  # 2100-01-01

_EPOCH_LINE = re.compile(r"@?(\d{9,11})(?:[.,](\d{1,9}))?")
_ISO_LINE = re.compile(
    r"(\d{4})[-/](\d{2})[-/](\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?"
    r"\s*(Z|[+-]\d{2}(?::?\d{2})?|[A-Za-z]{1,5})?"
)
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?")
_ASCII_DIGITS = re.compile(r"[0-9]+")
_NUMERIC_ZONE = re.compile(r"[+-][0-9]{2}(?::?[0-9]{2})?")
_DECORATION = re.compile(r"^[\s=\-#*\[\]<>|]+|[\s=\-#*\[\]<>|]+$")
_LABEL = re.compile(
    r"^(?:date|time|timestamp|sampled? at|taken at|run at)\s*[:=]?\s+", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class _Stamp:
    epoch_s: float
    zone_assumed: bool


def _zone_offset(token: str | None) -> tuple[int, bool]:
    """(minutes east of UTC, assumed?) for a zone token; no or unknown zone → UTC, assumed."""
    if token is None:
        return 0, True
    if _NUMERIC_ZONE.fullmatch(token):
        digits = token[1:].replace(":", "")
        minutes = int(digits[:2]) * 60 + (int(digits[2:4]) if len(digits) > 2 else 0)
        return (minutes if token[0] == "+" else -minutes), False
    named = _ZONE_MINUTES.get(token.upper())
    if named is None:
        return 0, True
    return named, False


def _to_epoch(
    year: int,
    month: int,
    day: int,
    hour: int,
    minute: int,
    second: int,
    fraction: str | None,
    zone: str | None,
) -> _Stamp | None:
    offset, assumed = _zone_offset(zone)
    try:
        moment = datetime(
            year, month, day, hour, minute, second, tzinfo=timezone(timedelta(minutes=offset))
        )
    except ValueError:
        return None
    epoch = moment.timestamp() + (float("0." + fraction) if fraction else 0.0)
    return _Stamp(epoch, assumed)


def _parse_iso(text: str) -> _Stamp | None:
    match = _ISO_LINE.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    return _to_epoch(
        int(year),
        int(month),
        int(day),
        int(hour or 0),
        int(minute or 0),
        int(second or 0),
        fraction,
        zone,
    )


def _word_field(token: str) -> tuple[str, Any] | None:
    """(which field, its value) of one word of a date, or None when it is none of them."""
    low = token.lower().rstrip(".")
    if low.isalpha() and (low in _WEEKDAYS or low in _WEEKDAY_NAMES):
        return "weekday", low
    if low.isalpha() and (low in _MONTHS or low in _MONTH_NAMES):
        return "month", _MONTHS[low[:3]]
    if (clock := _CLOCK.fullmatch(token)) is not None:
        return "clock", clock.groups()
    if _ASCII_DIGITS.fullmatch(low) and len(low) == 4:
        return "year", int(low)
    if _ASCII_DIGITS.fullmatch(low) and len(low) <= 2:
        return "day", int(low)
    if low in ("am", "pm"):
        return "ampm", low
    if _NUMERIC_ZONE.fullmatch(token) or re.fullmatch(r"[A-Z]{1,5}", token):
        return "zone", token
    return None


def _parse_words(text: str) -> _Stamp | None:
    """`date`, `date -R`, asctime and "Local Time is:" forms, in any common field order."""
    fields: dict[str, Any] = {}
    for token in text.replace(",", " ").split():
        field = _word_field(token)
        if field is None or field[0] in fields:
            return None
        fields[field[0]] = field[1]
    if not {"month", "day", "year", "clock"} <= fields.keys():
        return None
    hour_s, minute_s, second_s, fraction = fields["clock"]
    hour = int(hour_s)
    if "ampm" in fields:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if fields["ampm"] == "pm" else 0)
    return _to_epoch(
        fields["year"],
        fields["month"],
        fields["day"],
        hour,
        int(minute_s),
        int(second_s or 0),
        fraction,
        fields.get("zone"),
    )


def parse_timestamp(text: str) -> tuple[float, bool] | None:
    """The Unix time a date line or "Local Time is:" value stands for, and whether its zone was
    assumed (None when the text is not a date).

    Accepts the output of ``date`` (any field order, AM/PM), ``date -R``, ``date -Is`` /
    ``-Ins`` / ``--rfc-3339``, ``date +%s[.%N]`` and ``date "+%F %T"``, with decorations such as
    ``=== ... ===``, ``[...]`` or a ``Date:`` label around it. Without a zone, or with one that
    is ambiguous or unknown, the time is taken as UTC and reported as assumed.
    """
    core = _LABEL.sub("", _DECORATION.sub("", text))
    if not core:
        return None
    stamp: _Stamp | None
    if (epoch := _EPOCH_LINE.fullmatch(core)) is not None:
        seconds = int(epoch.group(1))
        if not _EPOCH_MIN <= seconds < _EPOCH_MAX:
            return None
        fraction = epoch.group(2)
        stamp = _Stamp(seconds + (float("0." + fraction) if fraction else 0.0), False)
    else:
        stamp = _parse_iso(core) or _parse_words(core)
    return None if stamp is None else (stamp.epoch_s, stamp.zone_assumed)
