"""A simulated drive's verdicts (`ssdlab sim`), made from what the store holds with the
analyses real drives get, unchanged:

- the write-cache cliff: `analysis.cliff.detect_cache_cliff` on (bytes written, B/s), exactly as
  the `cache` profile reads fio's bandwidth log;
- steady state: `analysis.steady_state.detect_steady_state` with the SNIA PTS criteria, one
  "round" per simulated interval, tracking write MB/s and the interval WAF; windows are only
  evaluated once the host has written twice the drive's logical capacity (the PTS's
  workload-independent preconditioning; a fresh drive's first fill looks steady and is not:
  pts.md §9 pitfall 7);
- WAF, wear rate and projected life: `analysis.wear.compare_samples` over the whole run and over
  the last fifth of the run (the same tail the simulator's own steady WAF is taken over), with
  a note when the PTS check found no steady state. The projected host writes at 100 % wear
  (TBW at this workload) come from that tail's wear rate; the lifetime is that TBW
  divided by the daily write volume the user gave.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from ssdlab.analysis.cliff import CacheCliffVerdict, detect_cache_cliff
from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.analysis.steady_state import SteadyStateVerdict, detect_steady_state
from ssdlab.analysis.wear import WearReport, compare_samples
from ssdlab.analysis.write_series import bytes_series
from ssdlab.model.health import HealthSample
from ssdlab.model.step import StepResult
from ssdlab.model.units import MB, format_gb

STEADY_WINDOW = 5
TAIL_FRACTION = 0.2  # the life projection's share of the run: its last fifth
PRECONDITION_DRIVE_WRITES = 2  # PTS WIPC: twice the user capacity before rounds count


@dataclass(frozen=True, slots=True)
class SimPoint:
    """One simulated drive as stored: its write step, its samples (the fresh drive first), the
    settings it was simulated with and what the simulator itself reported."""

    key: str
    label: str
    step: StepResult
    samples: tuple[HealthSample, ...]
    settings: Mapping[str, Any]
    reported: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class SimAnalysis:
    cliff: CacheCliffVerdict | None
    steady: SteadyStateVerdict | None
    steady_reason: str | None
    steady_offset: int  # intervals before the first one the steady-state check evaluates
    window: tuple[int, int] | None  # intervals (1-based) the life projection is taken over
    overall: WearReport | None
    projected: WearReport | None
    interval_waf: tuple[tuple[float, float], ...]  # (host bytes at the interval's end, WAF)
    tbw_bytes: float | None
    daily_write_bytes: float | None
    lifetime_days: float | None
    notes: tuple[str, ...]


def _rated(point: SimPoint) -> RatedEndurance:
    pe = point.settings.get("pe_cycles")
    capacity = point.settings.get("logical_bytes")
    return RatedEndurance(
        tbw_bytes=None,
        dwpd=None,
        warranty_years=None,
        capacity_bytes=int(capacity) if isinstance(capacity, int | float) else None,
        pe_cycles=float(pe) if isinstance(pe, int | float) and pe > 0 else None,
    )


def _raw_capacity(point: SimPoint) -> int | None:
    value = point.settings.get("physical_bytes")
    return int(value) if isinstance(value, int | float) else None


def interval_wafs(samples: Sequence[HealthSample]) -> tuple[tuple[float, float], ...]:
    """(host bytes at the end of the interval, ΔNAND / Δhost) for every interval with writes."""
    points = []
    for before, after in pairwise(samples):
        host = (after.host_written_bytes.value or 0.0) - (before.host_written_bytes.value or 0.0)
        nand = (after.nand_written_bytes.value or 0.0) - (before.nand_written_bytes.value or 0.0)
        if host > 0 and after.host_written_bytes.value is not None:
            points.append((after.host_written_bytes.value, nand / host))
    return tuple(points)


def _steady(
    point: SimPoint, series: Sequence[tuple[float, float]], wafs: Sequence[tuple[float, float]]
) -> tuple[SteadyStateVerdict | None, str | None, int]:
    """The PTS steady-state check over the intervals after preconditioning; returns the
    verdict (rounds numbered from the first evaluated interval) and that interval's offset."""
    logical = point.settings.get("logical_bytes")
    fill = PRECONDITION_DRIVE_WRITES * float(logical) if isinstance(logical, int | float) else 0.0
    count = min(len(series), len(wafs))
    start = next((i for i in range(count) if series[i][0] >= fill), count)
    rounds = count - start
    if rounds < STEADY_WINDOW:
        return (
            None,
            f"n/a: {rounds} interval(s) after preconditioning ({format_gb(fill)}"
            f" written); the PTS window needs {STEADY_WINDOW}",
            start,
        )
    tracking = {
        "write MB/s": [series[i][1] / MB for i in range(start, count)],
        "WAF": [wafs[i][1] for i in range(start, count)],
    }
    verdict = detect_steady_state(tracking, window=STEADY_WINDOW, max_rounds=rounds)
    return verdict, verdict.reason, start


def analyse_point(point: SimPoint) -> SimAnalysis:
    """Cliff, steady state, WAF, wear and lifetime of one simulated drive."""
    notes: list[str] = []
    series = bytes_series(point.step)
    cliff = detect_cache_cliff(series) if series else None
    wafs = interval_wafs(point.samples)
    steady, steady_reason, offset = _steady(point, series, wafs)
    samples = point.samples
    rated = _rated(point)
    raw = _raw_capacity(point)
    overall = None
    projected = None
    window: tuple[int, int] | None = None
    if len(samples) >= 2:
        overall = compare_samples(samples[0], samples[-1], raw_nand_capacity_bytes=raw, rated=rated)
        intervals = len(samples) - 1
        window = (intervals - max(1, math.ceil(intervals * TAIL_FRACTION)) + 1, intervals)
        if steady is None or not steady.steady:
            notes.append(
                "not in steady state by the PTS criteria: the WAF may still be changing, so the "
                "projection may be off; write more (--write) or start from --initial steady"
            )
        # sample i is the state after interval i; the window starts after interval first − 1
        projected = compare_samples(
            samples[window[0] - 1], samples[window[1]], raw_nand_capacity_bytes=raw, rated=rated
        )
    tbw = None if projected is None else projected.projection.host_written_at_eol_bytes
    daily = point.settings.get("daily_write_bytes")
    daily_bytes = float(daily) if isinstance(daily, int | float) and daily > 0 else None
    days = None if tbw is None or daily_bytes is None else tbw / daily_bytes
    if rated.pe_cycles is None:
        notes.append("no rated P/E cycle count: wear and lifetime cannot be projected")
    return SimAnalysis(
        cliff,
        steady,
        steady_reason,
        offset,
        window,
        overall,
        projected,
        wafs,
        tbw,
        daily_bytes,
        days,
        tuple(notes),
    )
