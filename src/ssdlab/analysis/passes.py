"""Combine the passes of a quick test: CrystalDiskMark's best pass, and the spread it hides."""

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from ssdlab.model.result import DirectionMetrics, FioResult, PassMetrics
from ssdlab.model.step import StepResult

NOISY_CV_PCT = 10.0  # passes whose MB/s vary more than this (coefficient of variation) are noisy


class ClatPercentiles(Protocol):
    """fio's completion-latency percentiles of one direction: a `DirectionMetrics`, or the
    percentiles of a stored pass as `ssdlab metrics` reads them."""

    @property
    def clat_percentiles_ns(self) -> Sequence[tuple[float, float]]: ...


class PassLatencies(Protocol):
    """A pass's direction and the percentiles of each direction it measured (None: not
    measured): a `StepResult`, or a stored pass as `ssdlab metrics` reads it."""

    @property
    def direction(self) -> str: ...

    @property
    def read(self) -> ClatPercentiles | None: ...

    @property
    def write(self) -> ClatPercentiles | None: ...


def clat_p99_ns(metrics: ClatPercentiles) -> float | None:
    """fio's 99th completion-latency percentile of one direction: its clat percentile at 99
    (fio writes 99.000000, read back as 99.0); None when fio reported none. The one reading of
    fio's p99: every p99 ssdlab shows or exports (a pass's, `fleet load`'s per direction)."""
    return next(
        (float(ns) for pct, ns in metrics.clat_percentiles_ns if abs(pct - 99.0) < 1e-9), None
    )


MixedP99 = Literal["slower", "none"]


def p99_ns(step: PassLatencies, *, mixed: MixedP99 = "slower") -> float | None:
    """fio's 99th completion-latency percentile of a pass (`clat_p99_ns`); None when fio
    reported none.

    A mix has two distributions, one per direction, and no p99 of all its I/O. `mixed="slower"`
    (the result card, the fill analysis: a figure beside the pass's other figures) takes the
    slower direction's, the latency the mix's slowest I/O waited. `mixed="none"` (`ssdlab
    metrics`) takes a test's own direction only and none for a mix that measured both: a series
    named p99 for a test is read as the p99 of all the test's I/O, which fio did not measure, so
    the metric is absent for it (docs/metrics.md)."""
    if mixed == "none":
        if step.direction == "read":
            own: tuple[ClatPercentiles | None, ...] = (step.read,)
        elif step.direction == "write":
            own = (step.write,)
        else:
            own = (step.read, step.write)
        measured = [m for m in own if m is not None]
        return clat_p99_ns(measured[0]) if len(measured) == 1 else None
    sides = [m for m in (step.read, step.write) if m is not None]
    found = [p for p in map(clat_p99_ns, sides) if p is not None]
    return max(found) if found else None


def pass_metrics(result: FioResult) -> PassMetrics:
    """Both directions of a (group-reported) fio result together: a mix is reported as a total.

    Mean latency is the I/O-weighted mean over both directions (unknown when fio printed no
    I/O counts and both directions ran).
    """
    if not result.jobs:
        raise ValueError("fio reported no jobs")
    reads = [j.read for j in result.jobs if j.read is not None]
    writes = [j.write for j in result.jobs if j.write is not None]
    directions: list[DirectionMetrics] = reads + writes
    if not directions:
        raise ValueError("fio reported no I/O in either direction")
    bw = sum(d.bw_bytes_per_s for d in directions)
    iops = sum(d.iops for d in directions)
    weighted = [(d.lat_mean_ns, d.total_ios) for d in directions if d.lat_mean_ns is not None]
    counts = [n for _, n in weighted if n is not None]
    lat = None
    if weighted and len(counts) == len(weighted) and sum(counts) > 0:
        lat = sum(m * (n or 0) for m, n in weighted) / sum(counts)
    elif len(weighted) == 1 and weighted[0][1] is None:
        lat = weighted[0][0]  # fio before 2.1.14 printed no I/O count: one direction needs none
    return PassMetrics(
        bw_bytes_per_s=bw,
        iops=iops,
        lat_mean_ns=lat,
        read=reads[0] if len(reads) == 1 else None,
        write=writes[0] if len(writes) == 1 else None,
    )


@dataclass(frozen=True, slots=True)
class TestSummary:
    """One quick test over its measured passes (the warm-up pass is not counted).

    `best_*` is what CrystalDiskMark shows: the highest MB/s and IOPS and the lowest mean latency,
    each over all passes. The mean and spread are what it hides.
    """

    key: str
    label: str
    direction: str
    passes: int
    best_bw_bytes_per_s: float
    best_iops: float
    best_lat_mean_ns: float | None
    mean_bw_bytes_per_s: float
    stdev_bw_bytes_per_s: float | None  # None with one pass
    min_bw_bytes_per_s: float
    max_bw_bytes_per_s: float
    cv_pct: float | None  # coefficient of variation of MB/s over the passes
    mean_iops: float
    mean_lat_mean_ns: float | None
    # cv_pct above noisy_cv_limit_pct: the passes disagree, the best pass is a lucky one;
    # None with one pass (no spread to judge)
    noisy: bool | None = None
    noisy_cv_limit_pct: float = NOISY_CV_PCT


def summarize_tests(
    steps: Sequence[StepResult], noisy_cv_pct: float = NOISY_CV_PCT
) -> tuple[TestSummary, ...]:
    """Summaries in the order the tests ran; tests with no measured pass are left out.
    A test whose passes vary by more than `noisy_cv_pct` (CV of MB/s) is flagged noisy."""
    grouped: dict[str, list[StepResult]] = {}
    for step in steps:
        if not step.discarded:
            grouped.setdefault(step.step_key, []).append(step)
    summaries = []
    for key, group in grouped.items():
        bws = [s.bw_bytes_per_s for s in group]
        lats = [s.lat_mean_ns for s in group if s.lat_mean_ns is not None]
        mean_bw = statistics.fmean(bws)
        stdev = statistics.stdev(bws) if len(bws) > 1 else None
        cv = 100 * stdev / mean_bw if stdev is not None and mean_bw > 0 else None
        summaries.append(
            TestSummary(
                key=key,
                label=group[0].step_label,
                direction=group[0].direction,
                passes=len(group),
                best_bw_bytes_per_s=max(bws),
                best_iops=max(s.iops for s in group),
                best_lat_mean_ns=min(lats) if lats else None,
                mean_bw_bytes_per_s=mean_bw,
                stdev_bw_bytes_per_s=stdev,
                min_bw_bytes_per_s=min(bws),
                max_bw_bytes_per_s=max(bws),
                cv_pct=cv,
                mean_iops=statistics.fmean(s.iops for s in group),
                mean_lat_mean_ns=statistics.fmean(lats) if lats else None,
                noisy=None if cv is None else cv > noisy_cv_pct,
                noisy_cv_limit_pct=noisy_cv_pct,
            )
        )
    return tuple(summaries)
