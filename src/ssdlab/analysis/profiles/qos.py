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
- **A change** (OCP TRIM-6/7: read latency within 5 % of its baseline while the host trims,
  and while the drive collects garbage after a write burst) is the ratio of a read percentile
  in that phase to the same percentile of the reads alone. Each percentile's interval is taken
  at 97.5 %, so both hold together in at least 95 % of runs, and the ratio's interval is
  [phase low ÷ baseline high, phase high ÷ baseline low]. It passes when the whole interval is
  at or under 1 + change, fails when all of it is over, and is inconclusive otherwise or when
  either phase had too few I/Os. Only a slowdown is judged: reads that get faster pass.
- A direction that did not run (trims on a file target) leaves its targets inconclusive.

The run passes only when every target passes, fails when any fails, and is inconclusive
otherwise."""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ssdlab.analysis.intervals import Interval
from ssdlab.analysis.step_tails import bins_tail, fio_bucket_bounds
from ssdlab.analysis.tail_intervals import TailEstimate
from ssdlab.analysis.verdict_state import Outcome
from ssdlab.model.finding_names import QOS_VERDICT
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.qos_targets import ALL, MAX, QosTarget
from ssdlab.model.step import StepResult
from ssdlab.model.units import format_count

MEASURE_KEY = "qos"
PHASE_KEYS = {"trim": "qos-trim", "burst": "qos-after-burst"}  # plan/qos.py's step keys
EACH_LEVEL = 0.975  # two percentiles' intervals at 97.5 % each: both hold in ≥ 95 % of runs
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


def against(low: float | None, high: float | None, limit: float) -> Outcome:
    """An interval against a limit: pass when all of it is at or under, fail when all of it
    is over, inconclusive when it straddles the limit or an end that would decide is unknown."""
    if high is not None and high <= limit:
        return Outcome.PASS
    if low is not None and low > limit:
        return Outcome.FAIL
    return Outcome.INCONCLUSIVE


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
    outcome = against(low, high, limit_ns)
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


def _ratio_interval(before: TailEstimate, during: TailEstimate) -> Interval:
    """[during low ÷ before high, during high ÷ before low] (an unknown end stays unknown)."""
    if before.interval is None or during.interval is None:
        raise ValueError("a ratio of percentiles needs both intervals")
    b_low, b_high = before.interval.low, before.interval.high
    d_low, d_high = during.interval.low, during.interval.high
    low = None if d_low is None or not b_high else d_low / b_high
    high = None if d_high is None or not b_low else d_high / b_low
    return Interval(low, high, 0.95, RATIO_BASIS, min(before.n, during.n))


RATIO_BASIS = "two percentiles' intervals at 97.5 % each"


def judge_change(
    target: QosTarget, baseline: ClatByDirection, phase: ClatByDirection | None
) -> QosItem:
    """A read percentile in a phase against the reads alone (module text); `limit_ns` of the
    item holds the ratio allowed, `value_ns` the ratio measured."""
    pct = target.percentile or 50.0
    allowed = 1 + (target.change_pct or 0.0) / 100
    check, source = target.check, target.source
    if phase is None:
        return QosItem(
            "read", check, allowed, source, 0, None, None, None, Outcome.INCONCLUSIVE.value,
            f"read {check}: the phase did not run",
        )  # fmt: skip
    before = bins_tail(baseline.get("read", ({}, None))[0], pct, EACH_LEVEL)
    during = bins_tail(phase.get("read", ({}, None))[0], pct, EACH_LEVEL)
    fewest = min(before.n, during.n)
    short = [t for t in (before, during) if not t.estimable or t.interval is None]
    if short:
        need = max(t.needs for t in short)
        return QosItem(
            "read", check, allowed, source, fewest, None, None, need,
            Outcome.INCONCLUSIVE.value,
            f"read {check}: needs ≥ {format_count(need)} I/Os in each phase "
            f"(had {format_count(fewest)})",
        )  # fmt: skip
    interval = _ratio_interval(before, during)
    low, high = interval.low, interval.high
    outcome = against(low, high, allowed)
    ratio = (
        None if not before.value_ns or during.value_ns is None
        else during.value_ns / before.value_ns
    )  # fmt: skip
    ends = f"{'?' if low is None else f'{low:.3f}'} – {'?' if high is None else f'{high:.3f}'}"
    return QosItem(
        "read", check, allowed, source, fewest, ratio, interval, None, outcome.value,
        f"read {check}: {'?' if ratio is None else f'{ratio:.3f}'}× the reads alone "
        f"(95 % {ends}) against at most {allowed:.2f}×: {outcome.value}",
    )  # fmt: skip


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
    by_key = {
        s.step_key: clat.get(s.capture_id, {})
        for s in steps
        if not s.discarded and s.capture_id is not None
    }
    measured = by_key.get(MEASURE_KEY, {})
    duration_s = float(planned.param("duration_s"))  # type: ignore[arg-type]
    targets = [QosTarget(**data) for data in json.loads(str(planned.param("targets")))]
    items = tuple(
        judge_target(target, measured, duration_s)
        if target.phase is None
        else judge_change(target, measured, by_key.get(PHASE_KEYS[target.phase]))
        for target in targets
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
        duration_s,
        items,
        outcome.value,
        sentence,
    )
    return {QOS_VERDICT: verdict}
