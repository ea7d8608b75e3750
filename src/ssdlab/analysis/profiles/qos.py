"""The `qos` profile's verdict: every target of the workload judged from fio's completion
latency histogram of its direction (json+ `clat_ns.bins`, every I/O counted).

- **A percentile** has its value and its 95 % interval from order statistics
  (analysis/step_tails.bins_tail: the outer bounds of fio's buckets holding ranks l and u, so
  the bucket width widens the interval and never moves it). It **passes** when the whole
  interval is at or under the target, **fails** when the whole interval is over it, and is
  **inconclusive** when the interval straddles the target, or when the run had fewer I/Os than
  the percentile needs to be bounded at all: then it is given as "needs ≥ N I/Os", no number.
- **The maximum** is a sample extreme: the largest completion latency fio saw among the n I/Os
  (clat_ns max, exact). It passes when it is at or under the target and fails when over; it
  has no interval, and n is stated, since a longer run can only raise it.
- **A count** (OCP CTO-3: at most 7 I/Os over 2 s in an hour, none over 8 s) is read from the
  histogram's buckets: those wholly above the threshold count, those wholly at or under it do
  not, and a bucket that straddles it (fio's buckets at 2 s and at 8 s both do) makes the
  count a range, unless the largest latency measured lies at or under the threshold. It
  passes when the whole range is at most the target's number (and the run lasted the
  target's window, when it names one: a shorter run cannot show an hour), fails when the
  whole range is over it within one window, and is inconclusive otherwise.
- A direction that did not run (trims on a file target) leaves its targets inconclusive.

The run passes only when every target passes, fails when any fails, and is inconclusive
otherwise."""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ssdlab.analysis.intervals import Interval
from ssdlab.analysis.step_tails import bins_tail, fio_bucket_bounds
from ssdlab.analysis.verdict_state import Outcome
from ssdlab.model.finding_names import QOS_VERDICT
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.qos_targets import ALL, MAX, QosTarget
from ssdlab.model.step import StepResult
from ssdlab.model.units import format_count

MEASURE_KEY = "qos"
ClatByDirection = Mapping[str, tuple[Mapping[int, int], int | None]]


@dataclass(frozen=True, slots=True)
class QosItem:
    """One target judged: `check` is "p99.9999" or "max"; latencies in ns."""

    direction: str
    check: str
    limit_ns: float
    source: str
    n: int
    value_ns: float | None
    interval: Interval | None
    needs_ios: int | None  # a percentile: the I/Os it needs to be bounded
    outcome: str  # an Outcome value
    sentence: str
    count: tuple[int, int] | None = None  # a count target: the I/Os over it, lowest–highest
    at_most: int | None = None


@dataclass(frozen=True, slots=True)
class QosVerdict:
    workload: str
    capacity_tb: float
    duration_s: float
    items: tuple[QosItem, ...]
    outcome: str
    sentence: str


def _us(ns: float) -> str:
    return f"{ns / 1000:,.1f} µs"


def judge_percentile(
    direction: str, pct: float, limit_ns: float, source: str, bins: Mapping[int, int]
) -> QosItem:
    tail = bins_tail(bins, pct)
    check = f"p{pct:g}"
    if not tail.estimable or tail.interval is None:
        return QosItem(
            direction, check, limit_ns, source, tail.n, None, None, tail.needs,
            Outcome.INCONCLUSIVE.value,
            f"{direction} {check}: needs ≥ {format_count(tail.needs)} I/Os "
            f"(the run had {format_count(tail.n)})",
        )  # fmt: skip
    low, high = tail.interval.low, tail.interval.high
    if high is not None and high <= limit_ns:
        outcome = Outcome.PASS
    elif low is not None and low > limit_ns:
        outcome = Outcome.FAIL
    else:
        outcome = Outcome.INCONCLUSIVE
    shown = "?" if tail.value_ns is None else _us(tail.value_ns)
    ends = f"{'?' if low is None else _us(low)} – {'?' if high is None else _us(high)}"
    return QosItem(
        direction, check, limit_ns, source, tail.n, tail.value_ns, tail.interval, tail.needs,
        outcome.value,
        f"{direction} {check} {shown} (95 % {ends}, n = {format_count(tail.n)}) against "
        f"{_us(limit_ns)}: {outcome.value}",
    )  # fmt: skip


def judge_max(
    direction: str, limit_ns: float, source: str, n: int, largest_ns: float | None
) -> QosItem:
    if n == 0 or largest_ns is None:
        return QosItem(
            direction, MAX, limit_ns, source, n, None, None, None, Outcome.INCONCLUSIVE.value,
            f"{direction} max: no I/O measured",
        )  # fmt: skip
    outcome = Outcome.PASS if largest_ns <= limit_ns else Outcome.FAIL
    return QosItem(
        direction, MAX, limit_ns, source, n, largest_ns, None, None, outcome.value,
        f"{direction} max {_us(largest_ns)} (the largest of {format_count(n)} I/Os) against "
        f"{_us(limit_ns)}: {outcome.value}",
    )  # fmt: skip


def count_over(
    bins: Mapping[int, int], threshold_ns: float, largest_ns: float | None
) -> tuple[int, int]:
    """(fewest, most) I/Os over the threshold that fio's buckets allow: a bucket wholly above
    counts, one that straddles the threshold may or may not; none when the largest latency
    measured is at or under it."""
    if largest_ns is not None and largest_ns <= threshold_ns:
        return 0, 0
    sure = unsure = 0
    for value, count in bins.items():
        low, high = fio_bucket_bounds(value)
        if low > threshold_ns:
            sure += count
        elif high > threshold_ns:
            unsure += count
    return sure, sure + unsure


def judge_count(
    target: QosTarget, bins: Mapping[int, int], largest_ns: float | None, duration_s: float
) -> QosItem:
    n = sum(bins.values())
    at_most = target.at_most or 0
    check = target.check
    if n == 0:
        return QosItem(
            target.direction, check, target.limit_ns, target.source, 0, None, None, None,
            Outcome.INCONCLUSIVE.value, f"{target.direction} {check}: no I/O measured",
            None, at_most,
        )  # fmt: skip
    fewest, most = count_over(bins, target.limit_ns, largest_ns)
    window = target.window_s
    if most <= at_most and (window is None or duration_s >= window):
        outcome = Outcome.PASS
    elif fewest > at_most and (window is None or duration_s <= window):
        outcome = Outcome.FAIL
    else:
        outcome = Outcome.INCONCLUSIVE
    counted = f"{fewest:,}" if fewest == most else f"{fewest:,}–{most:,} (a bucket straddles it)"
    short = ""
    if window is not None and duration_s < window and outcome is Outcome.INCONCLUSIVE:
        short = f"; the run lasted {duration_s:,.0f} s of the {window:,.0f} s the target counts"
    return QosItem(
        target.direction, check, target.limit_ns, target.source, n, None, None, None,
        outcome.value,
        f"{target.direction} {check}: {counted} of {format_count(n)} I/Os, at most {at_most} "
        f"allowed: {outcome.value}{short}",
        (fewest, most), at_most,
    )  # fmt: skip


def _measured(direction: str, measured: ClatByDirection) -> tuple[dict[int, int], float | None]:
    """A direction's bins and largest latency; ALL: every direction's together."""
    chosen = list(measured) if direction == ALL else [direction]
    bins: dict[int, int] = {}
    largest: float | None = None
    for name in chosen:
        found, top = measured.get(name, ({}, None))
        for value, count in found.items():
            bins[value] = bins.get(value, 0) + count
        if top is not None:
            largest = top if largest is None else max(largest, top)
    return bins, largest


def judge_target(target: QosTarget, measured: ClatByDirection, duration_s: float) -> QosItem:
    bins, largest = _measured(target.direction, measured)
    if target.at_most is not None:
        return judge_count(target, bins, largest, duration_s)
    n = sum(bins.values())
    if target.percentile is None:
        return judge_max(target.direction, target.limit_ns, target.source, n, largest)
    return judge_percentile(
        target.direction, target.percentile, target.limit_ns, target.source, bins
    )


def overall(items: Sequence[QosItem]) -> Outcome:
    outcomes = {item.outcome for item in items}
    if Outcome.FAIL.value in outcomes:
        return Outcome.FAIL
    if outcomes == {Outcome.PASS.value}:
        return Outcome.PASS
    return Outcome.INCONCLUSIVE


def analyse_qos(
    plan: ProfilePlan,
    steps: Sequence[StepResult],
    _facts: Mapping[str, object],
    clat: Mapping[int, ClatByDirection],
) -> dict[str, QosVerdict]:
    """The verdict of the run's measured step; `clat` is each capture's per-direction clat
    histogram and maximum (parse/fio_histogram.clat_by_direction)."""
    planned = plan.step_named(MEASURE_KEY)
    if planned is None:
        return {}
    measured_step = next((s for s in steps if s.step_key == MEASURE_KEY and not s.discarded), None)
    measured = (
        {}
        if measured_step is None or measured_step.capture_id is None
        else clat.get(measured_step.capture_id, {})
    )
    duration_s = float(planned.param("duration_s"))  # type: ignore[arg-type]
    targets = [QosTarget(**data) for data in json.loads(str(planned.param("targets")))]
    items = tuple(judge_target(target, measured, duration_s) for target in targets)
    outcome = overall(items)
    passed = sum(item.outcome == Outcome.PASS.value for item in items)
    failed = sum(item.outcome == Outcome.FAIL.value for item in items)
    sentence = (
        f"{outcome.value}: {passed} of {len(items)} targets pass, {failed} fail, "
        f"{len(items) - passed - failed} inconclusive"
    )
    verdict = QosVerdict(
        str(planned.param("workload")),
        float(planned.param("capacity_tb")),  # type: ignore[arg-type]
        duration_s,
        items,
        outcome.value,
        sentence,
    )
    return {QOS_VERDICT: verdict}
