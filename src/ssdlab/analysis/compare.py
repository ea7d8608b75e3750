"""Compare runs metric by metric: a ratio, and whether the difference is real or noise.

A change is flagged only when it is both larger than a factor (practical significance) and
supported by the samples (statistical significance: Welch's t-test on the logarithms of the
passes or rounds of each run, two-sided — the scale of the ratio's interval, so the test and the
interval never disagree). This is asv's rule (`_is_result_better` + `~`), with Welch's test
instead of Mann–Whitney U because quick runs have 3 to 5 passes: with three passes a side
Mann–Whitney's smallest two-sided p is 0.1 and it could never call anything significant.

Metrics carry their direction (higher is better for MB/s and IOPS, lower for latency), so a
"worse" verdict never depends on the reader guessing. One sample a side gives a ratio but no
test: a change past the threshold is `UNTESTED` (the ratio stands, no p-value is possible),
never "not significant"; `CANNOT_TELL` is left for a ratio that cannot be computed.

Like for like: a run that kept only one figure per test (a CrystalDiskMark import keeps the
best of its passes, KDiskMark's Default profile the mean) is compared with the same figure of
the other run — best pass with best pass — and the change says so (`basis`).

Every ratio with two passes or more a side carries its interval at level 1 − alpha (95 % by
default): Welch's interval on the logarithms of the passes, exponentiated (analysis/intervals.py);
on passes a few percent apart it excludes 1 when Welch's test finds the means different.
A `--fail-if` rule is judged against that interval (`judge_fail_rules`): *fail* when the whole
interval is past the rule's limit, *pass* when none of it is, *inconclusive* when it straddles
the limit; with one pass a side the measured ratio decides (a gate must not pass a 30 % fall
because the runs had one pass each).
"""

import fnmatch
import math
import re
import statistics
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from ssdlab.analysis.intervals import Interval, ratio_interval, sample_of_repeats
from ssdlab.analysis.step_tails import step_tails
from ssdlab.analysis.tail_intervals import TailEstimate
from ssdlab.analysis.verdict_state import Outcome
from ssdlab.model.step import StepResult

DEFAULT_THRESHOLD_PCT = 5.0
DEFAULT_ALPHA = 0.05


@dataclass(frozen=True, slots=True)
class MetricSamples:
    """One metric of one run: every pass (or steady-state round) it was measured in."""

    key: str  # rnd4k-q1t1-read, seq1m-q8t1-write-lat
    label: str  # RND4K Q1T1 read
    unit: str  # bytes_per_s | iops | ns | bytes | s
    higher_is_better: bool
    values: tuple[float, ...]
    # None: every pass is here; "best" / "mean": only that summary of the passes was kept
    summary: str | None = None

    @property
    def mean(self) -> float:
        return statistics.fmean(self.values)

    @property
    def best(self) -> float:
        return max(self.values) if self.higher_is_better else min(self.values)


class Verdict(StrEnum):
    BETTER = "better"
    WORSE = "worse"
    NOT_SIGNIFICANT = "not significant"  # within the threshold, or the samples do not support it
    UNTESTED = "untested"  # one sample a side: the ratio stands, no significance test possible
    CANNOT_TELL = "cannot tell"  # no ratio (a baseline of 0)
    MISSING = "missing"  # measured in one run only


MARKERS = {
    Verdict.BETTER: "+",
    Verdict.WORSE: "-",
    Verdict.NOT_SIGNIFICANT: "~",
    Verdict.UNTESTED: "?",
    Verdict.CANNOT_TELL: "?",
    Verdict.MISSING: "x",
}


@dataclass(frozen=True, slots=True)
class Change:
    """One metric of one run against the same metric of the baseline run."""

    key: str
    label: str
    unit: str
    higher_is_better: bool
    baseline: MetricSamples | None
    other: MetricSamples | None
    ratio: float | None  # other mean ÷ baseline mean
    change_pct: float | None  # (ratio − 1) × 100
    p_value: float | None  # Welch two-sided; None when not computable
    verdict: Verdict
    basis: str = "mean"  # what was compared: "mean" of the passes, or "best" pass a side
    # the ratio's interval at level 1 − alpha (Welch's, on the logs); None with one pass a side
    ratio_interval: Interval | None = None

    @property
    def marker(self) -> str:
        return MARKERS[self.verdict]


@dataclass(frozen=True, slots=True)
class Comparison:
    baseline_run: int
    other_run: int
    threshold_pct: float
    alpha: float
    changes: tuple[Change, ...]
    # the latency tails of each test's median pass (`KEY-p99`, `KEY-p99.9`), judged by intervals
    tails: tuple[Change, ...] = ()


def welch_p_value(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Two-sided p of Welch's t-test; None with fewer than two values a side.

    Two constant samples: 1.0 when equal, 0.0 when they differ (no noise to hide behind).
    """
    if len(a) < 2 or len(b) < 2:
        return None
    var_a, var_b = statistics.variance(a), statistics.variance(b)
    if var_a == 0 and var_b == 0:
        return 1.0 if statistics.fmean(a) == statistics.fmean(b) else 0.0
    from scipy import stats

    with warnings.catch_warnings():
        # passes equal to the last few bits: scipy warns of lost precision, the p stays valid
        warnings.simplefilter("ignore", RuntimeWarning)
        result = stats.ttest_ind(a, b, equal_var=False)
    p = float(result.pvalue)
    return None if math.isnan(p) else p


def _test_scale(a: Sequence[float], b: Sequence[float]) -> tuple[Sequence[float], Sequence[float]]:
    """The passes on the scale the ratio's interval is built on: their logarithms when every
    value is positive (so p < alpha exactly when the interval excludes 1, and a test whose
    whole interval is past the threshold is never called not significant), else as measured."""
    if all(v > 0 for v in (*a, *b)):
        return [math.log(v) for v in a], [math.log(v) for v in b]
    return a, b


def compare_metric(
    baseline: MetricSamples | None,
    other: MetricSamples | None,
    *,
    threshold_pct: float = DEFAULT_THRESHOLD_PCT,
    alpha: float = DEFAULT_ALPHA,
) -> Change:
    """The change of one metric, with its verdict."""
    known = baseline or other
    if known is None:
        raise ValueError("compare_metric needs the metric in at least one run")
    if baseline is None or other is None:
        return Change(
            known.key,
            known.label,
            known.unit,
            known.higher_is_better,
            baseline,
            other,
            None,
            None,
            None,
            Verdict.MISSING,
        )
    ratio = other.mean / baseline.mean if baseline.mean != 0 else None
    change_pct = None if ratio is None else (ratio - 1) * 100
    p = welch_p_value(*_test_scale(baseline.values, other.values))
    interval = None
    if ratio is not None and len(baseline.values) >= 2 and len(other.values) >= 2:
        interval = ratio_interval(
            sample_of_repeats(other.values), sample_of_repeats(baseline.values), 1 - alpha
        )
    if change_pct is None:
        verdict = Verdict.CANNOT_TELL
    elif abs(change_pct) <= threshold_pct:
        verdict = Verdict.NOT_SIGNIFICANT
    elif p is None:
        verdict = Verdict.UNTESTED
    elif p >= alpha:
        verdict = Verdict.NOT_SIGNIFICANT
    else:
        improved = (change_pct > 0) == baseline.higher_is_better
        verdict = Verdict.BETTER if improved else Verdict.WORSE
    return Change(
        baseline.key,
        baseline.label,
        baseline.unit,
        baseline.higher_is_better,
        baseline,
        other,
        ratio,
        change_pct,
        p,
        verdict,
        ratio_interval=interval,
    )


def compare_runs(
    baseline_run: int,
    baseline: Sequence[MetricSamples],
    other_run: int,
    other: Sequence[MetricSamples],
    *,
    threshold_pct: float = DEFAULT_THRESHOLD_PCT,
    alpha: float = DEFAULT_ALPHA,
) -> Comparison:
    """Every metric of either run, in the baseline's order, then the other's new ones."""
    by_key_a = {m.key: m for m in baseline}
    by_key_b = {m.key: m for m in other}
    keys = list(by_key_a) + [k for k in by_key_b if k not in by_key_a]
    changes = []
    for key in keys:
        a, b = like_for_like(by_key_a.get(key), by_key_b.get(key))
        change = compare_metric(a, b, threshold_pct=threshold_pct, alpha=alpha)
        basis = (a or b).summary if a is not None and b is not None else None
        changes.append(replace(change, basis=basis or "mean"))
    return Comparison(baseline_run, other_run, threshold_pct, alpha, tuple(changes))


def like_for_like(
    a: MetricSamples | None, b: MetricSamples | None
) -> tuple[MetricSamples | None, MetricSamples | None]:
    """The same figure of both sides: when either kept only its best pass (or only a mean),
    the other is reduced to its best pass (or its mean) too."""
    if a is None or b is None:
        return a, b
    summaries = {a.summary, b.summary} - {None}
    if not summaries:
        return a, b
    summary = "best" if "best" in summaries else "mean"

    def reduce(m: MetricSamples) -> MetricSamples:
        value = m.best if summary == "best" else m.mean
        return replace(m, values=(value,), summary=summary)

    return reduce(a), reduce(b)


@dataclass(frozen=True, slots=True)
class FailRule:
    """`rnd4k-q1t1-read:-5%`: fail when the metric falls by more than 5 %; `+10%`: rises by
    more than 10 %. The pattern may use shell wildcards (`*-read:-5%`)."""

    pattern: str
    limit_pct: float  # signed: negative = a fall beyond it fails, positive = a rise

    def __str__(self) -> str:
        return f"{self.pattern}:{self.limit_pct:+g}%"


_RULE_RE = re.compile(r"^(?P<pattern>[^:\s]+):(?P<limit>[+-]\d+(?:\.\d+)?)%$")


def parse_fail_rule(text: str) -> FailRule:
    match = _RULE_RE.match(text.strip())
    if match is None:
        raise ValueError(
            f"{text!r} is not a rule; write METRIC:-5% (fail on a fall of more than 5 %) or "
            "METRIC:+10% (fail on a rise of more than 10 %), e.g. rnd4k-q1t1-read:-5%"
        )
    limit = float(match["limit"])
    if limit == 0:
        raise ValueError(f"{text!r}: the limit must not be 0 %")
    return FailRule(match["pattern"], limit)


@dataclass(frozen=True, slots=True)
class RuleBreach:
    """A `--fail-if` rule judged on one metric of one run: `outcome` pass, fail or
    inconclusive (the ratio's interval straddles the rule's limit, `limit_ratio`)."""

    rule: FailRule
    run: int
    change: Change
    outcome: str = Outcome.FAIL.value

    @property
    def limit_ratio(self) -> float:
        return 1 + self.rule.limit_pct / 100


def gate_outcome(rule: FailRule, change: Change) -> Outcome:
    """A rule against one change: the interval decides, else the measured ratio."""
    limit = 1 + rule.limit_pct / 100
    falls = rule.limit_pct < 0
    if change.verdict is Verdict.MISSING:
        return Outcome.FAIL if change.other is None else Outcome.PASS
    if change.ratio is None:
        return Outcome.INCONCLUSIVE
    interval = change.ratio_interval
    if interval is None:
        past = change.ratio < limit if falls else change.ratio > limit
        return Outcome.FAIL if past else Outcome.PASS
    low, high = interval.low, interval.high
    if falls:
        if high is not None and high < limit:
            return Outcome.FAIL
        if low is not None and low >= limit:
            return Outcome.PASS
        return Outcome.INCONCLUSIVE
    if low is not None and low > limit:
        return Outcome.FAIL
    if high is not None and high <= limit:
        return Outcome.PASS
    return Outcome.INCONCLUSIVE


def judge_fail_rules(
    comparisons: Sequence[Comparison], rules: Sequence[FailRule]
) -> tuple[tuple[RuleBreach, ...], tuple[FailRule, ...]]:
    """(every rule on every metric it matches, judged pass, fail or inconclusive; the rules
    that matched no metric). A metric a later run lacks fails; one only the later run has
    passes (there is nothing it fell from)."""
    judged: list[RuleBreach] = []
    unmatched: list[FailRule] = []
    for rule in rules:
        matched = False
        for comparison in comparisons:
            for change in (*comparison.changes, *comparison.tails):
                if fnmatch.fnmatchcase(change.key, rule.pattern):
                    matched = True
                    outcome = gate_outcome(rule, change)
                    judged.append(RuleBreach(rule, comparison.other_run, change, outcome.value))
        if not matched:
            unmatched.append(rule)
    return tuple(judged), tuple(unmatched)


def check_fail_rules(
    comparisons: Sequence[Comparison], rules: Sequence[FailRule]
) -> tuple[tuple[RuleBreach, ...], tuple[FailRule, ...]]:
    """(breaches, rules that matched no metric): the rules whose judgement is *fail* — the
    change's whole interval is past the rule's own limit (not the display threshold), or with
    one pass a side the measured change is past it, or the metric is missing from a later
    run. An *inconclusive* judgement is not a breach (`judge_fail_rules` gives every one)."""
    judged, unmatched = judge_fail_rules(comparisons, rules)
    return tuple(j for j in judged if j.outcome == Outcome.FAIL.value), unmatched


# --- what the compare charts draw: each test of each run over time, its latency percentiles
# and its completion-latency histogram (fio's json+ clat bins), and the spread of its passes

HISTOGRAM_BUCKETS_PER_DECADE = 10


@dataclass(frozen=True, slots=True)
class MeasuredTest:
    """One test of one run, as the compare charts draw it. The percentiles and the histogram
    are the median pass's (by throughput): one real pass, not a blend of several."""

    key: str  # rnd4k-q1t1-read
    label: str  # RND4K Q1T1 read
    random: bool  # random I/O, read in IOPS; sequential I/O in MB/s
    bw_bytes_per_s: tuple[float, ...]  # every counted pass, in pass order
    iops: tuple[float, ...]
    median_pass: int  # round index of the median pass
    # per log interval, the passes end to end: seconds since the first pass started
    elapsed_s: tuple[float, ...]
    interval_bw_bytes_per_s: tuple[float, ...]
    interval_iops: tuple[float, ...]
    # fio's completion-latency percentiles of the median pass (a mix: the slower direction's)
    percentiles_ns: tuple[tuple[float, int], ...]
    # (bucket's lower edge ns, % of the pass's I/Os), buckets a tenth of a decade wide
    histogram: tuple[tuple[float, float], ...]
    # the median pass's p99 and p99.9 at level TAIL_LEVEL, from fio's table (step_tails.py)
    tails: tuple[TailEstimate, ...] = ()


def is_random(key: str) -> bool:
    """A random-I/O test (rnd4k-…, randwrite-…), judged in IOPS; else sequential, in MB/s."""
    return key.startswith(("rnd", "rand"))


def median_pass(passes: Sequence[StepResult]) -> StepResult:
    """The pass in the middle by throughput (of an even count, the slower of the two middle)."""
    ordered = sorted(passes, key=lambda s: s.bw_bytes_per_s)
    return ordered[(len(ordered) - 1) // 2]


def _intervals(passes: Sequence[StepResult]) -> tuple[list[float], list[float], list[float]]:
    """(seconds, bytes/s, IOPS) per log interval, the passes end to end; a mix's reads and
    writes added up. A pass that logged no interval (shorter than one) among passes that did
    is one point, its own figures in the middle of its time: every pass is in the series."""
    seconds: list[float] = []
    rates: list[float] = []
    iops: list[float] = []
    start = 0.0
    logged = any(step.series for step in passes)
    for step in passes:
        if logged and not step.series:
            runtime = max((d.runtime_s for d in (step.read, step.write) if d), default=0.0)
            seconds.append(start + runtime / 2)
            rates.append(step.bw_bytes_per_s)
            iops.append(step.iops)
            start += runtime
            continue
        totals: dict[float, list[float]] = {}
        for point in step.series:
            if point.bw_bytes_per_s is None or point.iops is None:
                continue
            total = totals.setdefault(point.elapsed_s, [0.0, 0.0])
            total[0] += point.bw_bytes_per_s
            total[1] += point.iops
        for elapsed, (rate, count) in sorted(totals.items()):
            seconds.append(start + elapsed)
            rates.append(rate)
            iops.append(count)
        start += max((p.elapsed_s for p in step.series), default=0.0)
    return seconds, rates, iops


def _percentiles(step: StepResult) -> tuple[tuple[float, int], ...]:
    merged: dict[float, int] = {}
    for metrics in (step.read, step.write):
        if metrics is not None:
            for pct, ns in metrics.clat_percentiles_ns:
                merged[pct] = max(merged.get(pct, 0), ns)
    return tuple(sorted(merged.items()))


def log_histogram(
    bins: Mapping[int, int], per_decade: int = HISTOGRAM_BUCKETS_PER_DECADE
) -> tuple[tuple[float, float], ...]:
    """fio's clat bins (ns → I/O count) in buckets `1/per_decade` of a decade wide, as
    (bucket's lower edge ns, % of the I/Os), empty buckets between the first and last kept
    (a gap shows as 0 %); () without I/O."""
    counted = {ns: count for ns, count in bins.items() if ns > 0 and count > 0}
    total = sum(counted.values())
    if total == 0:
        return ()
    buckets: dict[int, int] = {}
    for ns, count in counted.items():
        index = math.floor(math.log10(ns) * per_decade + 1e-9)
        buckets[index] = buckets.get(index, 0) + count
    return tuple(
        (10 ** (index / per_decade), buckets.get(index, 0) / total * 100)
        for index in range(min(buckets), max(buckets) + 1)
    )


def measured_tests(
    steps: Sequence[StepResult],
    clat_bins: Mapping[int, Sequence[Mapping[int, int]]],
    *,
    window: int | None = None,
) -> tuple[MeasuredTest, ...]:
    """Every measured test of a run, in the order it first ran (`window`: only the last so
    many passes, as `step_metrics` counts them); `clat_bins`: the json+ clat bins of each
    capture's reads and writes (parse/fio_histogram.clat_bins_by_capture)."""
    grouped: dict[str, list[StepResult]] = {}
    for step in steps:
        if not step.discarded:
            grouped.setdefault(step.step_key, []).append(step)
    found = []
    for key, group in grouped.items():
        group.sort(key=lambda s: s.round_index)
        if window is not None:
            group = group[-window:]
        middle = median_pass(group)
        seconds, rates, iops = _intervals(group)
        bins: dict[int, int] = {}
        for histogram in clat_bins.get(middle.capture_id or -1, ()):
            for ns, count in histogram.items():
                bins[ns] = bins.get(ns, 0) + count
        found.append(
            MeasuredTest(
                key=key,
                label=f"{group[0].step_label} {group[0].direction}".strip(),
                random=is_random(key),
                bw_bytes_per_s=tuple(s.bw_bytes_per_s for s in group),
                iops=tuple(s.iops for s in group),
                median_pass=middle.round_index,
                elapsed_s=tuple(seconds),
                interval_bw_bytes_per_s=tuple(rates),
                interval_iops=tuple(iops),
                percentiles_ns=_percentiles(middle),
                histogram=log_histogram(bins),
                tails=tuple(step_tails(middle, TAIL_PERCENTILES, TAIL_LEVEL).values()),
            )
        )
    return tuple(found)


# --- latency tails: a run's p99 against another's, judged by their intervals

TAIL_PERCENTILES = (99.0, 99.9)
TAIL_LEVEL = 0.975
"""Each side's tail interval is at 97.5 %: the two together hold both true values in at least
95 % of runs (Bonferroni), so the ratio's interval below is a 95 % interval."""


def tail_ratio_interval(base: Interval | None, other: Interval | None) -> Interval | None:
    """other ÷ base from the two sides' intervals: [other.low / base.high, other.high /
    base.low]; an end is None (unknown) where an end it needs is unknown; None without both."""
    if base is None or other is None:
        return None
    low = None
    if other.low is not None and base.high:
        low = other.low / base.high
    high = None
    if other.high is not None and base.low:
        high = other.high / base.low
    return Interval(low, high, 2 * TAIL_LEVEL - 1, base.basis, min(base.count, other.count))


def _tail_samples(test: MeasuredTest, tail: TailEstimate) -> MetricSamples:
    key = f"{test.key}-p{tail.pct:g}"
    values = () if tail.value_ns is None else (tail.value_ns,)
    return MetricSamples(key, f"{test.label} p{tail.pct:g}", "ns", False, values)


def compare_tail(
    base: tuple[MeasuredTest, TailEstimate] | None,
    other: tuple[MeasuredTest, TailEstimate] | None,
    threshold_pct: float,
) -> Change:
    """One tail of one test in two runs: the ratio of the median passes' values and its
    interval from the two tail intervals. A side the I/Os cannot bound ('needs ≥ N I/Os') has
    no value: the change cannot tell, and a rule on it is inconclusive."""
    a = None if base is None else _tail_samples(*base)
    b = None if other is None else _tail_samples(*other)
    known = a or b
    assert known is not None
    if a is None or b is None:
        return Change(known.key, known.label, "ns", False, a, b, None, None, None, Verdict.MISSING)
    if not a.values or not b.values:
        return Change(a.key, a.label, "ns", False, a, b, None, None, None, Verdict.CANNOT_TELL)
    assert base is not None
    assert other is not None
    ratio = b.values[0] / a.values[0]
    interval = tail_ratio_interval(base[1].interval, other[1].interval)
    change_pct = (ratio - 1) * 100
    verdict = Verdict.NOT_SIGNIFICANT
    if abs(change_pct) > threshold_pct:
        verdict = Verdict.UNTESTED if interval is None else Verdict.NOT_SIGNIFICANT
        if interval is not None and interval.low is not None and interval.low > 1:
            verdict = Verdict.WORSE
        if interval is not None and interval.high is not None and interval.high < 1:
            verdict = Verdict.BETTER
    return Change(
        a.key, a.label, "ns", False, a, b, ratio, change_pct, None, verdict, "median pass", interval
    )


def compare_tails(
    baseline: Sequence[MeasuredTest], other: Sequence[MeasuredTest], threshold_pct: float
) -> tuple[Change, ...]:
    """Every tail of either run's tests, in the baseline's order, then the other's new ones."""

    def by_key(tests: Sequence[MeasuredTest]) -> dict[str, tuple[MeasuredTest, TailEstimate]]:
        return {f"{t.key}-p{tail.pct:g}": (t, tail) for t in tests for tail in t.tails}

    a, b = by_key(baseline), by_key(other)
    keys = list(a) + [k for k in b if k not in a]
    return tuple(compare_tail(a.get(k), b.get(k), threshold_pct) for k in keys)
