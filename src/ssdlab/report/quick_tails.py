"""quick's latency percentiles from p99 up with their 95 % intervals, from fio's percentile
table: n is fio's `total_ios` of the direction, and the interval's ends are the values fio lists
at the percentiles that bracket the order statistics' ranks (analysis/tail_intervals.py); an
end fio's table does not bracket is unknown ('?'), and a percentile with too few I/Os says
'needs ≥ N I/Os'. For a mix, each percentile is the slower direction's, with that direction's
I/Os."""

from collections.abc import Mapping
from typing import Any

from ssdlab.analysis.step_tails import step_tails
from ssdlab.analysis.tail_intervals import TailEstimate, tail_data
from ssdlab.model.units import format_cdm_latency_us, format_count, format_needs_ios

__all__ = ["TABLE_NOTE", "step_tails", "tail_cell_us", "tails_data"]

TABLE_NOTE = (
    "p99 and up: the value, its 95 % interval from fio's percentile table (the values fio lists "
    "at the percentiles bracketing the order statistics' ranks of fio's total_ios; '?' where the "
    "table lists none) and the I/Os above it; 'needs ≥ N I/Os' where the pass had too few I/Os "
    "to bound the percentile"
)


def tail_cell_us(tail: TailEstimate | None, value_ns: float | None) -> str:
    """'2,480.5 (2,310.1–?; 3 above)' in µs, 'needs ≥ 368 I/Os', or the value alone."""
    if tail is None:
        return format_cdm_latency_us(value_ns)
    if not tail.estimable:
        return format_needs_ios(tail.needs)
    interval = tail.interval
    shown = format_cdm_latency_us(tail.value_ns)
    if interval is None:
        return shown
    low = "?" if interval.low is None else format_cdm_latency_us(interval.low)
    high = "?" if interval.high is None else format_cdm_latency_us(interval.high)
    return f"{shown} ({low}–{high}; {format_count(tail.above)} above)"


def tails_data(tails: Mapping[float, TailEstimate]) -> dict[str, Any]:
    return {f"{pct:g}": tail_data(tail) for pct, tail in tails.items()}
