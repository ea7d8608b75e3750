"""Run comparison: practical and statistical significance together, direction-aware verdicts,
and the --fail-if rules."""

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.analysis.compare import (
    FailRule,
    MetricSamples,
    Verdict,
    check_fail_rules,
    compare_metric,
    compare_runs,
    judge_fail_rules,
    like_for_like,
    parse_fail_rule,
    welch_p_value,
)
from ssdlab.analysis.run_metrics import kept_figure, with_kept_figure


def mbps(key: str, *values: float) -> MetricSamples:
    return MetricSamples(key, key, "bytes_per_s", True, tuple(v * 1e6 for v in values))


def latency(key: str, *values_us: float) -> MetricSamples:
    return MetricSamples(key, key, "ns", False, tuple(v * 1e3 for v in values_us))


def test_welch_matches_the_textbook_example() -> None:
    # R: t.test(c(1,2,3,4,5), c(2,4,6,8,10)) -> t = -1.8974, df = 5.8824, p-value = 0.1075
    p = welch_p_value([1, 2, 3, 4, 5], [2, 4, 6, 8, 10])
    assert p is not None
    assert math.isclose(p, 0.1075, abs_tol=5e-4)


def test_nearly_identical_passes_give_a_p_value_not_an_error() -> None:
    # found by hypothesis: scipy warns of catastrophic cancellation here
    p = welch_p_value([1.0, 1.0000000000000002], [2.0, 2.0000000000000004])
    assert p is not None
    assert 0 <= p <= 1


def test_welch_needs_two_values_a_side() -> None:
    assert welch_p_value([1.0], [2.0, 3.0]) is None
    assert welch_p_value([5.0, 5.0], [5.0, 5.0]) == 1.0
    assert welch_p_value([5.0, 5.0], [6.0, 6.0]) == 0.0


def test_a_clear_fall_in_throughput_is_worse() -> None:
    change = compare_metric(
        mbps("rnd4k-q1t1-read", 60.1, 60.3, 59.9, 60.2, 60.0),
        mbps("rnd4k-q1t1-read", 50.2, 50.0, 49.9, 50.1, 50.3),
    )
    assert change.verdict is Verdict.WORSE
    assert change.ratio is not None
    assert math.isclose(change.ratio, 50.1 / 60.1, rel_tol=1e-9)
    assert change.p_value is not None
    assert change.p_value < 1e-6
    assert change.marker == "-"


def test_lower_latency_is_better() -> None:
    change = compare_metric(latency("x-lat", 100, 101, 99), latency("x-lat", 80, 81, 79))
    assert change.verdict is Verdict.BETTER


def test_a_large_change_the_passes_do_not_support_is_not_significant() -> None:
    # 20 % lower on average, but the passes are all over the place
    change = compare_metric(mbps("k", 100, 40, 160, 100), mbps("k", 80, 20, 150, 70))
    assert change.change_pct is not None
    assert change.change_pct < -5
    assert change.p_value is not None
    assert change.p_value > 0.05
    assert change.verdict is Verdict.NOT_SIGNIFICANT


def test_a_significant_change_below_the_threshold_is_not_flagged() -> None:
    change = compare_metric(mbps("k", 100.0, 100.1, 99.9), mbps("k", 102.0, 102.1, 101.9))
    assert change.p_value is not None
    assert change.p_value < 0.001
    assert change.verdict is Verdict.NOT_SIGNIFICANT
    flagged = compare_metric(
        mbps("k", 100.0, 100.1, 99.9), mbps("k", 102.0, 102.1, 101.9), threshold_pct=1.0
    )
    assert flagged.verdict is Verdict.BETTER


def test_one_pass_a_side_is_untested_with_its_ratio() -> None:
    change = compare_metric(mbps("k", 100), mbps("k", 50))
    assert change.verdict is Verdict.UNTESTED
    assert change.ratio == 0.5
    assert change.p_value is None


def test_metrics_in_one_run_only_are_missing() -> None:
    comparison = compare_runs(1, [mbps("a", 1, 2)], 2, [mbps("b", 1, 2)])
    assert [(c.key, c.verdict) for c in comparison.changes] == [
        ("a", Verdict.MISSING),
        ("b", Verdict.MISSING),
    ]


@given(
    st.lists(st.floats(1, 1e4), min_size=2, max_size=8),
    st.floats(0.2, 5.0),
)
def test_verdict_follows_direction(values: list[float], factor: float) -> None:
    """Scaling every pass by a factor: the ratio is the factor, and a flagged change points the
    way the metric's direction says."""
    base = MetricSamples("k", "k", "bytes_per_s", True, tuple(values))
    other = MetricSamples("k", "k", "bytes_per_s", True, tuple(v * factor for v in values))
    change = compare_metric(base, other)
    assert change.ratio is not None
    assert math.isclose(change.ratio, factor, rel_tol=1e-9)
    if change.verdict is Verdict.BETTER:
        assert factor > 1
    if change.verdict is Verdict.WORSE:
        assert factor < 1


def test_fail_rules_parse_and_refuse_nonsense() -> None:
    assert parse_fail_rule("rnd4k-q1t1-read:-5%") == FailRule("rnd4k-q1t1-read", -5.0)
    assert parse_fail_rule("*-lat:+10%") == FailRule("*-lat", 10.0)
    for bad in ("rnd4k", "rnd4k:-5", "rnd4k:5%", "rnd4k:-0%", ":-5%"):
        with pytest.raises(ValueError, match=r"rule|0 %"):
            parse_fail_rule(bad)


def test_fail_rule_breaches_need_support_from_the_passes() -> None:
    noisy = compare_runs(1, [mbps("k", 100, 40, 160, 100)], 2, [mbps("k", 80, 20, 150, 70)])
    clear = compare_runs(1, [mbps("k", 100, 101, 99)], 3, [mbps("k", 90, 91, 89)])
    single = compare_runs(1, [mbps("k", 100)], 4, [mbps("k", 70)])
    gone = compare_runs(1, [mbps("k", 100, 101)], 5, [])
    rule = parse_fail_rule("k:-5%")
    breaches, unmatched = check_fail_rules([noisy, clear, single, gone], [rule])
    assert [b.run for b in breaches] == [3, 4, 5]
    assert unmatched == ()
    # a rule tighter than the display threshold still applies its own limit
    small = compare_runs(1, [mbps("k", 100.0, 100.1, 99.9)], 6, [mbps("k", 97.0, 97.1, 96.9)])
    assert small.changes[0].verdict is Verdict.NOT_SIGNIFICANT
    assert [b.run for b in check_fail_rules([small], [parse_fail_rule("k:-2%")])[0]] == [6]
    assert check_fail_rules([small], [parse_fail_rule("nothing:-2%")])[1] == (
        FailRule("nothing", -2.0),
    )


def test_fail_if_is_pass_fail_or_inconclusive_by_the_interval_of_the_ratio() -> None:
    rule = parse_fail_rule("k:-5%")
    clear = compare_runs(1, [mbps("k", 100, 101, 99)], 2, [mbps("k", 90, 91, 89)])
    held = compare_runs(1, [mbps("k", 100, 101, 99)], 3, [mbps("k", 99, 100, 98)])
    unsure = compare_runs(1, [mbps("k", 100, 104, 96)], 4, [mbps("k", 93, 97, 89)])
    judged, unmatched = judge_fail_rules([clear, held, unsure], [rule])
    assert [(j.run, j.outcome) for j in judged] == [(2, "fail"), (3, "pass"), (4, "inconclusive")]
    assert unmatched == ()
    interval = unsure.changes[0].ratio_interval
    assert interval is not None
    assert interval.low is not None
    assert interval.high is not None
    assert interval.low < 0.95 < interval.high  # straddles the rule's limit
    # only a fail is a breach: the exit code's business
    assert [b.run for b in check_fail_rules([clear, held, unsure], [rule])[0]] == [2]
    rise = parse_fail_rule("k-lat:+10%")
    slower = compare_runs(1, [latency("k-lat", 100, 101, 99)], 5, [latency("k-lat", 130, 131, 129)])
    assert judge_fail_rules([slower], [rise])[0][0].outcome == "fail"


def test_a_fall_exactly_at_the_limit_is_inconclusive() -> None:
    """Runs 5 % apart in truth, measured with 3 % noise in three passes a side: a -5 % rule is
    neither passed nor failed, except in the few repeats whose interval misses the truth."""
    rule = parse_fail_rule("k:-5%")
    outcomes = []
    for seed in range(200):
        r = np.random.default_rng(seed)
        base = mbps("k", *r.normal(100, 3, 3))
        other = mbps("k", *r.normal(95, 2.85, 3))
        outcomes.append(
            judge_fail_rules([compare_runs(1, [base], 2, [other])], [rule])[0][0].outcome
        )
    assert sum(o == "inconclusive" for o in outcomes) / len(outcomes) >= 0.9


# Like for like: an import keeps one figure per test


def test_a_best_only_side_is_compared_best_with_best() -> None:
    imported = replace(mbps("k", 500), summary="best")
    quick = mbps("k", 400, 450, 480)  # best 480, mean 443.3
    comparison = compare_runs(1, [imported], 2, [quick])
    (change,) = comparison.changes
    assert change.basis == "best"
    assert change.ratio == pytest.approx(480 / 500)
    assert change.other is not None
    assert change.other.values == (480e6,)


def test_best_of_latency_is_the_lowest() -> None:
    imported = replace(latency("k-lat", 100), summary="best")
    quick = latency("k-lat", 90, 80, 120)
    (change,) = compare_runs(1, [imported], 2, [quick]).changes
    assert change.ratio == pytest.approx(0.8)
    assert change.basis == "best"
    assert change.verdict is Verdict.UNTESTED


def test_a_mean_only_side_is_compared_mean_with_mean() -> None:
    a, b = like_for_like(replace(mbps("k", 100), summary="mean"), mbps("k", 80, 120, 130))
    assert a is not None
    assert b is not None
    assert len(b.values) == 1
    assert b.values[0] == pytest.approx(110e6)
    assert b.summary == "mean"


def test_full_runs_are_left_alone() -> None:
    a, b = mbps("k", 1, 2), mbps("k", 3, 4)
    assert like_for_like(a, b) == (a, b)
    (change,) = compare_runs(1, [a], 2, [b]).changes
    assert change.basis == "mean"


def test_a_ten_fold_change_with_one_pass_a_side_is_untested_not_cannot_tell() -> None:
    change = compare_metric(mbps("k", 100), mbps("k", 980))
    assert change.verdict is Verdict.UNTESTED
    assert change.ratio == pytest.approx(9.8)
    assert change.p_value is None


def test_within_the_threshold_one_pass_a_side_is_not_significant() -> None:
    assert compare_metric(mbps("k", 100), mbps("k", 101)).verdict is Verdict.NOT_SIGNIFICANT


@pytest.mark.parametrize(
    ("kind", "profile", "source", "preset", "kept"),
    [
        ("import", "quick", "CrystalDiskMark 8.0.4", "Default", "best"),
        ("import", "quick", "KDiskMark 3.0.0", "Default", "mean"),
        ("import", "quick", "KDiskMark 3.0.0", "Peak", "best"),
        ("import", "quick", "ssdlab (CrystalDiskMark text layout)", None, "best"),
        ("import", "fio", "fio-3.34", None, None),
        ("quick", "quick", None, "default", None),
    ],
)
def test_kept_figure(
    kind: str, profile: str, source: str | None, preset: str | None, kept: str | None
) -> None:
    assert kept_figure(kind, profile, source, preset) == kept
    marked = with_kept_figure([mbps("k", 1)], kept)
    assert marked[0].summary == kept


def test_a_change_wholly_past_the_threshold_is_worse_not_not_significant() -> None:
    """Three passes a side where Welch's test on the values as measured gives p = 0.093 while
    the ratio's interval on the logarithms is 0.24–0.86: the test is on the logarithms, p < 0.05,
    so the verdict agrees with the interval (a regression a baseline gate fails is "worse")."""
    assert welch_p_value([150.0, 84.0, 93.0], [40.0, 56.0, 50.0]) == pytest.approx(0.0934, abs=1e-4)
    change = compare_metric(mbps("k", 150.0, 84.0, 93.0), mbps("k", 40.0, 56.0, 50.0))
    assert change.ratio_interval is not None
    assert change.ratio_interval.high is not None
    assert change.ratio_interval.high == pytest.approx(0.864, abs=1e-3)
    assert change.p_value == pytest.approx(0.0292, abs=1e-4)
    assert change.verdict is Verdict.WORSE


@given(
    st.lists(st.floats(1.0, 1e4), min_size=2, max_size=6),
    st.lists(st.floats(1.0, 1e4), min_size=2, max_size=6),
)
def test_the_verdict_agrees_with_the_interval(a: list[float], b: list[float]) -> None:
    """p < alpha exactly when the ratio's interval excludes 1; so a change whose whole interval
    is past the threshold is worse or better, never "not significant"."""
    change = compare_metric(mbps("k", *a), mbps("k", *b))
    interval = change.ratio_interval
    assert interval is not None
    assert interval.low is not None
    assert interval.high is not None
    assert change.p_value is not None
    excludes_one = interval.high < 1 or interval.low > 1
    if abs(math.log(interval.high) if interval.high < 1 else math.log(interval.low)) > 1e-9:
        assert excludes_one == (change.p_value < 0.05)
    if interval.high < 0.94 and change.change_pct is not None and change.change_pct < -5:
        assert change.verdict is Verdict.WORSE
