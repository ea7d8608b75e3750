"""The rows of a table of latency merged from many histograms (`fleet load`'s all hosts,
`fleet compare`'s drives of one model): per second and direction the I/Os, p50, and p99 and
p99.9 only where that second's I/Os support them; then per direction the whole run's. Read
from the JSON shape analysis/merged_latency.merged_latency_data gives, per direction."""

from collections.abc import Callable, Mapping
from typing import Any

from ssdlab.model.units import format_count, format_latency, format_needs_ios

LATENCY_COLUMNS = ("second", "direction", "I/Os", "p50", "p99", "p99.9")
NOT_SUPPORTED = "–"  # a tail the second's I/Os cannot support

TailCell = Callable[[Mapping[str, Any] | None, float | None], str]
Rows = list[tuple[tuple[str, ...], bool]]


def _second_cell(value: float | None) -> str:
    return NOT_SUPPORTED if value is None else format_latency(value)


def plain_tail_cell(tail: Mapping[str, Any] | None, value: float | None) -> str:
    """A percentile of the whole run: its value, or the I/Os it needs."""
    if tail is not None and not tail.get("estimable"):
        return format_needs_ios(int(tail["needs_ios"]))
    return format_latency(value)


def merged_latency_rows(
    directions: Mapping[str, Any], tail_cell: TailCell = plain_tail_cell
) -> Rows:
    """One row per second and direction (a tail the second's I/Os cannot support is
    NOT_SUPPORTED), then the whole run's per direction (each percentile as `tail_cell` writes
    it: report/tail_text.tail_cell adds the interval), one cell per column of
    LATENCY_COLUMNS, each with whether it ends its group."""
    by_second: dict[int, list[tuple[str, dict[str, Any]]]] = {}
    for direction, data in directions.items():
        for second in data["seconds"]:
            by_second.setdefault(int(second["second"]), []).append((direction, second))
    rows: Rows = []
    for second, entries in sorted(by_second.items()):
        for index, (direction, data) in enumerate(entries):
            percentiles = data["percentiles_ns"]
            cells = (
                str(second),
                direction,
                format_count(data["ios"]),
                *(_second_cell(percentiles.get(k)) for k in ("50", "99", "99.9")),
            )
            rows.append((cells, index == len(entries) - 1))
    for index, (direction, data) in enumerate(directions.items()):
        percentiles, tails = data["percentiles_ns"], data["tails"]
        cells = (
            "whole run",
            direction,
            format_count(data["ios"]),
            *(tail_cell(tails.get(k), percentiles.get(k)) for k in ("50", "99", "99.9")),
        )
        rows.append((cells, index == len(directions) - 1))
    return rows
