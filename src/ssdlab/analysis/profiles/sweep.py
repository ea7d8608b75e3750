"""The `sweep` profile's verdicts: every cell's numbers and the knee of each workload.

Latency percentiles are completion latencies (fio's clat) from the json+ histograms: for a
read/write mix the two directions' histograms are added, so p99 is the p99 of all I/Os. Mean
and maximum are fio's total latency (submission + completion). The spread is p99.9 / p50.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ssdlab.analysis.knee import KneeVerdict, SweepCell, select_knee
from ssdlab.analysis.latency_bins import merge_bins, percentile_ns
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
    the percentiles are completion latencies, `spread` p99.9 / p50)."""

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


def cell_rows(
    plan: ProfilePlan, steps: Sequence[StepResult], clat_bins: ClatBins
) -> tuple[SweepCellRow, ...]:
    params = {s.key: dict(s.params) for s in plan.steps if s.param("workload") is not None}
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


def _cells(rows: Sequence[SweepCellRow]) -> list[SweepCell]:
    return [
        SweepCell(r.threads, r.iodepth, r.iops, r.bw_bytes_per_s, r.lat_mean_ns, r.lat_p99_ns,
                  r.lat_p999_ns, r.lat_max_ns)
        for r in rows
    ]  # fmt: skip


def knees(plan: ProfilePlan, rows: Sequence[SweepCellRow]) -> dict[str, KneeVerdict]:
    """Each workload's knee, in the order the workloads first appear among the cells."""
    settings = decode_settings(SweepSettings, plan.settings)
    bound_us = settings.max_latency_us
    bound = bound_us * 1000 if bound_us is not None else None
    metric = settings.latency_metric
    found = {}
    for workload in dict.fromkeys(r.workload for r in rows):
        cells = _cells([r for r in rows if r.workload == workload])
        found[workload] = select_knee(cells, max_latency_ns=bound, latency_metric=metric)
    return found


def analyse_sweep(
    plan: ProfilePlan,
    steps: Sequence[StepResult],
    _facts: Mapping[str, Any],
    clat_bins: ClatBins,
) -> dict[str, SweepCells | dict[str, KneeVerdict]]:
    """The cells and knees; `clat_bins` are the steps' fio json+ histograms by capture id
    (parse/fio_histogram.clat_bins_by_capture)."""
    rows = cell_rows(plan, steps, clat_bins)
    return {CELLS: SweepCells(rows), KNEE: knees(plan, rows)}
