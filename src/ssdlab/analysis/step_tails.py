"""The tails of one fio pass from its percentile table (analysis/tail_intervals.py): n is fio's
`total_ios` of the direction; for a mix each percentile is the slower direction's, with that
direction's I/Os."""

from ssdlab.analysis.intervals import LEVEL
from ssdlab.analysis.tail_intervals import TAIL_FROM, TailEstimate, table_tail
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.step import StepResult


def _slower(step: StepResult, pct: float) -> DirectionMetrics | None:
    """The direction with the larger value at `pct` (reads and writes of a mix)."""
    found = [
        (dict(m.clat_percentiles_ns)[pct], m)
        for m in (step.read, step.write)
        if m is not None and pct in dict(m.clat_percentiles_ns)
    ]
    return max(found, key=lambda pair: pair[0])[1] if found else None


def step_tails(
    step: StepResult, percentiles: tuple[float, ...], level: float = LEVEL
) -> dict[float, TailEstimate]:
    """The tails (p99 and up) of one pass that fio's table and total_ios give."""
    tails = {}
    for pct in percentiles:
        metrics = _slower(step, pct) if pct >= TAIL_FROM else None
        if metrics is None or not metrics.total_ios:
            continue
        table = [(p, float(ns)) for p, ns in metrics.clat_percentiles_ns]
        tails[pct] = table_tail(table, metrics.total_ios, pct, level)
    return tails
