"""Latency percentiles from p99 up as documents give them: in JSON, n (the I/Os), the I/Os above
the percentile, the I/Os it needs and its 95 % interval (analysis/tail_intervals.py); in a
table, '2.48 ms (2.31–4.29 ms; 3 above)' or 'needs ≥ 3,688 I/Os', never a number for a
percentile the I/Os cannot bound."""

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ssdlab.analysis.tail_intervals import TailEstimate, tail_data
from ssdlab.model.units import format_count, format_latency, format_latency_range, format_needs_ios
from ssdlab.report.interval_text import interval_of

TAIL_NOTE = (
    "p99 and up: the value, its 95 % interval and the I/Os above it; the interval is "
    "distribution-free (order statistics of the I/Os); a percentile with too few I/Os to bound "
    "it says 'needs ≥ N I/Os' (its upper rank would lie beyond the last I/O)"
)


def tail_cell(data: Mapping[str, Any] | None, value_ns: float | None) -> str:
    """A table cell for a percentile: its tail's text when it has one, else the value."""
    if not isinstance(data, Mapping):
        return format_latency(value_ns)
    if not data.get("estimable"):
        return format_needs_ios(int(data["needs_ios"]))
    judged = interval_of(data.get("judged"))
    shown = format_latency(data.get("value_ns"))
    if judged is None:
        return f"{shown} (no interval; {format_count(data.get('above'))} above)"
    span = format_latency_range(judged.low, judged.high)
    return f"{shown} ({span}; {format_count(data.get('above'))} above)"


def tail_words(data: Mapping[str, Any] | None) -> str:
    """'95 % interval 2.31–4.29 ms from 300 I/Os, 3 above' or 'needs ≥ 3,688 I/Os (300
    measured)', for sentences and notes."""
    if not isinstance(data, Mapping):
        return "no interval"
    n = format_count(data.get("n"))
    if not data.get("estimable"):
        return f"{format_needs_ios(int(data['needs_ios']))} ({n} measured)"
    judged = interval_of(data.get("judged"))
    if judged is None:
        return f"no interval, from {n} I/Os"
    span = format_latency_range(judged.low, judged.high)
    return f"95 % interval {span} from {n} I/Os, {format_count(data.get('above'))} above"


def tail_cell_in(
    tail: TailEstimate | None, value_ns: float | None, shown: Callable[[float | None], str]
) -> str:
    """A table cell for a tail in the table's unit (`shown`): '2,480.5 (2,310.1–?; 3 of 3,000
    above)' with n, an unknown end as '?'; 'needs ≥ 368 I/Os'; the value alone without a tail."""
    if tail is None:
        return shown(value_ns)
    if not tail.estimable:
        return format_needs_ios(tail.needs)
    interval = tail.interval
    if interval is None:
        return shown(tail.value_ns)
    low = "?" if interval.low is None else shown(interval.low)
    high = "?" if interval.high is None else shown(interval.high)
    above = f"{format_count(tail.above)} of {format_count(tail.n)} above"
    return f"{shown(tail.value_ns)} ({low}–{high}; {above})"


def passes_data(
    together: TailEstimate, each: Sequence[TailEstimate], names: Sequence[int]
) -> dict[str, Any]:
    """A tail over passes as JSON: the passes together, and each pass's own under `passes`
    with its number (`pass`: a round, a repeat)."""
    return {
        **tail_data(together),
        "passes": [{"pass": name, **tail_data(t)} for name, t in zip(names, each, strict=True)],
    }
