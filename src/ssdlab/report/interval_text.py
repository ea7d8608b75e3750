"""Measured figures with their 95 % intervals, as report tables and sentences write them: a
value '±2.1 %' (half the interval, relative), a ratio '1.26× (1.10–1.44)', a state 'yes',
and the one note a table carries for figures that have none."""

from collections.abc import Callable, Mapping
from typing import Any

from ssdlab.analysis.intervals import Interval, relative_half_width
from ssdlab.model.json_fields import decode_fields, encode

MEASURED_ONCE = "no interval (measured once)"


def interval_of(value: object) -> Interval | None:
    """A stored interval (a JSON object of its fields) as an Interval; None for none."""
    if isinstance(value, Interval):
        return value
    if not isinstance(value, Mapping):
        return None
    return decode_fields(Interval, dict(value))


def interval_data(interval: Interval | None) -> dict[str, Any] | None:
    """An interval as the JSON documents give it (its fields), None for none."""
    return None if interval is None else dict(encode(interval))


def plus_minus(
    value: float | None, interval: Interval | None, shown: Callable[[float], str]
) -> str:
    """'13,244 ±2.1 %': the value as `shown` writes it and half its interval, relative; the
    value alone without an interval; 'n/a' without a value."""
    if value is None:
        return "n/a"
    half = relative_half_width(interval, value)
    if half is None:
        unbounded = interval is not None and not interval.bounded
        return shown(value) + (" ±?" if unbounded else "")
    return f"{shown(value)} ±{half * 100:.1f} %"


def ratio_text(ratio: float | None, interval: Interval | None, digits: int = 2) -> str:
    """'1.26× (1.10–1.44)': a ratio and its 95 % interval ('(unbounded)' when the data bound
    neither end, '…' for an open end); '1.26×' without one; 'n/a'."""
    if ratio is None:
        return "n/a"
    text = f"{ratio:.{digits}f}×"
    if interval is None:
        return text
    if interval.low is None and interval.high is None:
        return f"{text} (unbounded)"
    low = "…" if interval.low is None else f"{interval.low:.{digits}f}"
    high = "…" if interval.high is None else f"{interval.high:.{digits}f}"
    return f"{text} ({low}–{high})"


def error_bar(interval: Interval | None, scale: float = 1.0) -> tuple[float, float] | None:
    """(low, high) of a chart's whisker; None without a bounded interval."""
    if interval is None or interval.low is None or interval.high is None:
        return None
    return interval.low * scale, interval.high * scale


def state_text(state: object) -> str:
    """A stored state ('yes', 'no', 'inconclusive') for a table cell; '—' when none was
    stored (a verdict made before ssdlab gave them)."""
    return str(state) if isinstance(state, str) and state else "—"
