"""The `sweep` profile's verdicts: every cell's numbers and the knee of each workload.

Latency percentiles are completion latencies (fio's clat) from the json+ histograms: for a
read/write mix the two directions' histograms are added, so p99 is the p99 of all I/Os. Mean
and maximum are fio's total latency (submission + completion). The spread is p99.9 / p50.

A cell measured in several repeats gives the mean of each figure over them (the maximum: the
largest), with 95 % intervals from the spread pooled over the workload's cells
(analysis/knee_uncertainty.py); the knee is chosen among the means, and how sure it is comes
from drawing the matrix anew.
"""

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ssdlab.analysis.intervals import Interval
from ssdlab.analysis.knee import KneeVerdict, SweepCell, select_knee
from ssdlab.analysis.knee_uncertainty import (
    LogSpread,
    cell_interval,
    knee_uncertainty,
    pooled_log_spread,
)
from ssdlab.analysis.latency_bins import merge_bins, percentile_ns
from ssdlab.analysis.step_tails import PassTails, bins_tail, step_tails
from ssdlab.analysis.tail_intervals import TailEstimate, passes_tail
from ssdlab.model.finding_names import SWEEP_CELLS, SWEEP_KNEE
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.profile_settings import SweepSettings
from ssdlab.model.step import StepResult
from ssdlab.model.typed_settings import decode_settings

CELLS = SWEEP_CELLS
KNEE = SWEEP_KNEE


ClatBins = Mapping[int, Sequence[Mapping[int, int]]]  # by capture id: each direction's bins


def histogram_of(bins: Sequence[Mapping[int, int]]) -> dict[int, int] | None:
    """The clat bins of a step's reads and writes (parse/fio_histogram.py), added; None
    without bins."""
    return merge_bins(bins) if bins else None


def _max(step: StepResult) -> float | None:
    found = [d.lat_max_ns for d in (step.read, step.write) if d and d.lat_max_ns is not None]
    return max(found) if found else None


@dataclass(frozen=True, slots=True)
class SweepCellRow:
    """One measured cell: workload, threads × queue depth, and its numbers (latencies in ns;
    the percentiles are completion latencies, `spread` p99.9 / p50): the means over its
    `passes` (the largest maximum), each with its 95 % interval (None: measured once, or stored
    before ssdlab repeated cells), and every pass's IOPS."""

    workload: str
    threads: int
    iodepth: int
    iops: float
    bw_bytes_per_s: float
    lat_mean_ns: float | None
    lat_p50_ns: int | None
    lat_p99_ns: int | None
    lat_p999_ns: int | None
    lat_max_ns: float | None
    spread: float | None
    passes: int = 1
    iops_interval: Interval | None = None
    lat_mean_interval: Interval | None = None
    lat_p99_interval: Interval | None = None
    lat_p999_interval: Interval | None = None
    pass_iops: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class SweepCells:
    """The cells verdict: every cell in run order, and how its latencies were read."""

    cells: tuple[SweepCellRow, ...]
    percentiles: str = "clat from json+ histograms, reads and writes added"
    spread: str = "p99.9 / p50"


def _whole(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"a sweep cell's threads and queue depth are whole numbers, not {value!r}")
    return value


def pass_rows(
    plan: ProfilePlan, steps: Sequence[StepResult], clat_bins: ClatBins
) -> tuple[SweepCellRow, ...]:
    """One row per measured pass of a cell, in run order."""
    params = {s.key: dict(s.params) for s in plan.all_steps if s.param("workload") is not None}
    rows = []
    for step in steps:
        p = params.get(step.step_key)
        if p is None or step.discarded:
            continue
        histogram = histogram_of(clat_bins.get(step.capture_id or -1, ()))
        pcts = {
            name: None if histogram is None else percentile_ns(histogram, pct)
            for name, pct in (("p50", 50.0), ("p99", 99.0), ("p999", 99.9))
        }
        p50, p999 = pcts["p50"], pcts["p999"]
        rows.append(
            SweepCellRow(
                workload=str(p["workload"]),
                threads=_whole(p["threads"]),
                iodepth=_whole(p["iodepth"]),
                iops=step.iops,
                bw_bytes_per_s=step.bw_bytes_per_s,
                lat_mean_ns=step.lat_mean_ns,
                lat_p50_ns=p50,
                lat_p99_ns=pcts["p99"],
                lat_p999_ns=p999,
                lat_max_ns=_max(step),
                spread=None if not p50 or p999 is None else p999 / p50,
            )
        )
    return tuple(rows)


TAILS = (99.0, 99.9)  # the sweep's percentiles from p99 up
CellKey = tuple[str, int, int]  # workload, threads, queue depth
CellTails = PassTails


def pass_tails(step: StepResult, bins: Sequence[Mapping[int, int]]) -> dict[float, TailEstimate]:
    """One pass's p99 and p99.9 with n and their intervals: from its json+ bins (both
    directions added, as the cell's percentiles are read) where stored, else from fio's table
    (the slower direction's, n its total_ios)."""
    histogram = histogram_of(bins)
    if histogram:
        return {pct: bins_tail(histogram, pct) for pct in TAILS}
    return step_tails(step, TAILS)


def cell_tails(
    plan: ProfilePlan, steps: Sequence[StepResult], clat_bins: ClatBins
) -> dict[CellKey, tuple[tuple[int, ...], CellTails]]:
    """Per cell (in run order): its passes' numbers and, per percentile, (the repeats together,
    tail_intervals.passes_tail; each repeat's own), for the percentiles every repeat gives."""
    params = {s.key: dict(s.params) for s in plan.all_steps if s.param("workload") is not None}
    passes: dict[CellKey, list[tuple[int, dict[float, TailEstimate]]]] = {}
    for step in steps:
        p = params.get(step.step_key)
        if p is None or step.discarded:
            continue
        key = (str(p["workload"]), _whole(p["threads"]), _whole(p["iodepth"]))
        own = pass_tails(step, clat_bins.get(step.capture_id or -1, ()))
        passes.setdefault(key, []).append((step.round_index, own))
    found = {}
    for key, group in passes.items():
        tails: CellTails = {}
        for pct in TAILS:
            each = tuple(t[pct] for _, t in group if pct in t)
            if each and len(each) == len(group):
                tails[pct] = (passes_tail(each), each)
        found[key] = (tuple(number for number, _ in group), tails)
    return found


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if known and len(known) == len(values) else None


def cell_rows(passes: Sequence[SweepCellRow]) -> tuple[SweepCellRow, ...]:
    """One row per cell (in the order cells first ran): the means of its passes, with 95 %
    intervals from the spread pooled over the workload's cells."""
    groups: dict[tuple[str, int, int], list[SweepCellRow]] = {}
    for row in passes:
        groups.setdefault((row.workload, row.threads, row.iodepth), []).append(row)
    spreads = {}
    for workload in dict.fromkeys(w for w, _, _ in groups):
        mine = [g for (w, _, _), g in groups.items() if w == workload]
        spreads[workload] = {
            name: pooled_log_spread([[getattr(r, name) for r in g] for g in mine])
            for name in ("iops", "lat_mean_ns", "lat_p99_ns", "lat_p999_ns")
        }
    return tuple(_cell_row(group, spreads[group[0].workload]) for group in groups.values())


def _whole_ns(value: float | None) -> int | None:
    return None if value is None else round(value)


def _cell_row(group: Sequence[SweepCellRow], spread: Mapping[str, LogSpread]) -> SweepCellRow:
    """A cell's row from its passes' rows: means (percentiles to the ns), the largest maximum,
    and each figure's interval."""
    means = {
        name: _mean([getattr(r, name) for r in group])
        for name in ("iops", "bw_bytes_per_s", "lat_mean_ns", "lat_p50_ns", "lat_p99_ns",
                     "lat_p999_ns")
    }  # fmt: skip
    maxima = [r.lat_max_ns for r in group if r.lat_max_ns is not None]
    p50, p999 = _whole_ns(means["lat_p50_ns"]), _whole_ns(means["lat_p999_ns"])

    def interval(name: str) -> Interval | None:
        return cell_interval([getattr(r, name) for r in group], spread[name])

    return replace(
        group[0],
        iops=means["iops"] or 0.0,
        bw_bytes_per_s=means["bw_bytes_per_s"] or 0.0,
        lat_mean_ns=means["lat_mean_ns"],
        lat_p50_ns=p50,
        lat_p99_ns=_whole_ns(means["lat_p99_ns"]),
        lat_p999_ns=p999,
        lat_max_ns=max(maxima) if maxima else None,
        spread=None if not p50 or p999 is None else p999 / p50,
        passes=len(group),
        iops_interval=interval("iops"),
        lat_mean_interval=interval("lat_mean_ns"),
        lat_p99_interval=interval("lat_p99_ns"),
        lat_p999_interval=interval("lat_p999_ns"),
        pass_iops=tuple(r.iops for r in group),
    )


def _cells(rows: Sequence[SweepCellRow]) -> list[SweepCell]:
    return [
        SweepCell(r.threads, r.iodepth, r.iops, r.bw_bytes_per_s, r.lat_mean_ns, r.lat_p99_ns,
                  r.lat_p999_ns, r.lat_max_ns)
        for r in rows
    ]  # fmt: skip


def knees(
    plan: ProfilePlan, rows: Sequence[SweepCellRow], passes: Sequence[SweepCellRow] = ()
) -> dict[str, KneeVerdict]:
    """Each workload's knee among its cells' means, in the order the workloads first appear,
    with how sure it is from the cells' passes (`passes`: every pass's row; none: each row is
    one pass)."""
    settings = decode_settings(SweepSettings, plan.settings)
    bound_us = settings.max_latency_us
    bound = bound_us * 1000 if bound_us is not None else None
    metric = settings.latency_metric
    every = passes or rows
    found = {}
    for workload in dict.fromkeys(r.workload for r in rows):
        cells = _cells([r for r in rows if r.workload == workload])
        knee = select_knee(cells, max_latency_ns=bound, latency_metric=metric)
        by_cell: dict[tuple[int, int], list[SweepCell]] = {}
        for row, cell in zip(every, _cells(every), strict=True):
            if row.workload == workload:
                by_cell.setdefault((row.threads, row.iodepth), []).append(cell)
        found[workload] = knee_uncertainty(knee, by_cell)
    return found


def analyse_sweep(
    plan: ProfilePlan,
    steps: Sequence[StepResult],
    _facts: Mapping[str, Any],
    clat_bins: ClatBins,
) -> dict[str, SweepCells | dict[str, KneeVerdict]]:
    """The cells and knees; `clat_bins` are the steps' fio json+ histograms by capture id
    (parse/fio_histogram.clat_bins_by_capture)."""
    passes = pass_rows(plan, steps, clat_bins)
    rows = cell_rows(passes)
    return {CELLS: SweepCells(rows), KNEE: knees(plan, rows, passes)}
