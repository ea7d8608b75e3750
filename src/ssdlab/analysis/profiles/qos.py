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
- A direction that did not run (trims on a file target) leaves its targets inconclusive.

The run passes only when every target passes, fails when any fails, and is inconclusive
otherwise."""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ssdlab.analysis.intervals import Interval
from ssdlab.analysis.step_tails import bins_tail
from ssdlab.analysis.verdict_state import Outcome
from ssdlab.model.finding_names import QOS_VERDICT
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.qos_targets import MAX
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


def judge_target(
    direction: str,
    percentile: float | None,
    limit_ns: float,
    source: str,
    measured: ClatByDirection,
) -> QosItem:
    bins, largest = measured.get(direction, ({}, None))
    n = sum(bins.values())
    if percentile is None:
        return judge_max(direction, limit_ns, source, n, None if largest is None else largest)
    return judge_percentile(direction, percentile, limit_ns, source, bins)


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
    targets = json.loads(str(planned.param("targets")))
    items = tuple(
        judge_target(direction, pct, float(limit), str(source), measured)
        for direction, pct, limit, source in targets
    )
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
        float(planned.param("duration_s")),  # type: ignore[arg-type]
        items,
        outcome.value,
        sentence,
    )
    return {QOS_VERDICT: verdict}
