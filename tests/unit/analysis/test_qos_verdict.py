"""The `qos` verdict from synthetic fio histograms whose truth is known: a percentile passes
only when its whole 95 % interval is under the target, fails only when all of it is over, and
is inconclusive between, or when the run is too short to bound it ("needs ≥ N I/Os"); a
maximum is judged as measured, with its n; the run passes only when every target passes."""

import json

import pytest

from ssdlab.analysis.profiles.qos import analyse_qos, judge_change, judge_target, overall
from ssdlab.analysis.verdict_state import Outcome
from ssdlab.model.qos_targets import QosTarget
from ssdlab.model.step import StepResult
from ssdlab.plan.qos import plan_qos
from tests.unit.plan.profile_golden import DEVICE_TARGET

US = 1000.0


def fio_value(ns: int) -> int:
    """The value fio's json+ names the bucket holding `ns` by (its midpoint; exact below 128)."""
    if ns < 128:
        return ns
    k = ns.bit_length() - 1
    width = 1 << (k - 6)
    return (1 << k) + (ns - (1 << k)) // width * width + width // 2


def histogram(*parts: tuple[int, int]) -> dict[int, int]:
    """(latency ns, I/Os) → fio's bins."""
    bins: dict[int, int] = {}
    for ns, count in parts:
        bins[fio_value(ns)] = bins.get(fio_value(ns), 0) + count
    return bins


STEADY = histogram((100_000, 100_000))  # every read 100 µs
STRADDLING = histogram((100_000, 99_000), (3_000_000, 1_000))  # p99 between 100 µs and 3 ms


@pytest.mark.parametrize(
    ("bins", "limit_us", "expected"),
    [
        (STEADY, 2000, Outcome.PASS),
        (STEADY, 50, Outcome.FAIL),
        (STRADDLING, 2000, Outcome.INCONCLUSIVE),
        (STRADDLING, 5000, Outcome.PASS),  # the whole interval lies under 5 ms
        (STRADDLING, 90, Outcome.FAIL),
    ],
)
def test_a_percentile_is_judged_by_its_whole_interval(
    bins: dict[int, int], limit_us: float, expected: Outcome
) -> None:
    item = judge_target(
        QosTarget("read", 99.0, limit_us * US, "test"), {"read": (bins, None)}, 60.0
    )
    assert item.outcome == expected.value
    assert item.n == sum(bins.values())
    assert item.interval is not None
    low, high = item.interval.low, item.interval.high
    assert low is not None
    assert high is not None
    assert low <= (item.value_ns or 0) <= high
    if expected is Outcome.INCONCLUSIVE:
        assert low <= limit_us * US <= high


def test_too_few_ios_are_inconclusive_and_give_no_number() -> None:
    few = histogram((100_000, 1_000_000))  # a million I/Os: p99.9999 needs 3,688,878
    item = judge_target(
        QosTarget("read", 99.9999, 8500 * US, "test"), {"read": (few, 100_000)}, 60.0
    )
    assert item.outcome == Outcome.INCONCLUSIVE.value
    assert item.value_ns is None
    assert item.interval is None
    assert item.needs_ios == 3_688_878
    assert "needs ≥ 3,688,878 I/Os" in item.sentence
    enough = histogram((100_000, 10_000_000))  # 10^7: the count the OCP tail asks for
    judged = judge_target(
        QosTarget("read", 99.9999, 8500 * US, "test"), {"read": (enough, 100_000)}, 60.0
    )
    assert judged.outcome == Outcome.PASS.value


def test_the_maximum_is_a_sample_extreme_with_its_n() -> None:
    measured = {"write": (STEADY, 16_000_000)}
    over = judge_target(QosTarget("write", None, 15_000 * US, "test"), measured, 60.0)
    assert over.outcome == Outcome.FAIL.value
    assert over.interval is None
    assert over.n == 100_000
    assert "largest of 100,000 I/Os" in over.sentence
    under = judge_target(QosTarget("write", None, 30_000 * US, "test"), measured, 60.0)
    assert under.outcome == Outcome.PASS.value


def test_a_direction_that_did_not_run_is_inconclusive() -> None:
    item = judge_target(QosTarget("trim", None, 1000 * US, "test"), {"read": (STEADY, 1)}, 60.0)
    assert item.outcome == Outcome.INCONCLUSIVE.value
    assert (
        judge_target(QosTarget("trim", 99.0, 1e6, "t"), {}, 60.0).outcome
        == Outcome.INCONCLUSIVE.value
    )


def test_the_run_passes_only_when_every_target_passes() -> None:
    passed = judge_target(QosTarget("read", 99.0, 2000 * US, "t"), {"read": (STEADY, None)}, 60.0)
    failed = judge_target(QosTarget("read", 99.0, 50 * US, "t"), {"read": (STEADY, None)}, 60.0)
    unsure = judge_target(
        QosTarget("read", 99.0, 2000 * US, "t"), {"read": (STRADDLING, None)}, 60.0
    )
    assert overall([passed, passed]) is Outcome.PASS
    assert overall([passed, unsure]) is Outcome.INCONCLUSIVE
    assert overall([passed, unsure, failed]) is Outcome.FAIL


def _step(capture_id: int) -> StepResult:
    return StepResult("qos", "qos", "mix", 0, False, 0.0, 0.0, None, None, None, capture_id)


def test_the_shipped_ocp_targets_judged_from_a_run() -> None:
    plan = plan_qos({"duration": 60.0}, DEVICE_TARGET)
    reads = histogram((100_000, 20_000_000))
    writes = histogram((1_000_000, 20_000_000))
    clat = {7: {"read": (reads, 1_000_000), "write": (writes, 20_000_000)}}
    (verdict,) = analyse_qos(plan, [_step(7)], {}, clat).values()
    checks = {(i.direction, i.check): i.outcome for i in verdict.items}
    assert checks == {
        ("read", "p99"): "pass",
        ("read", "p99.99"): "pass",
        ("read", "p99.9999"): "pass",
        ("read", "max"): "pass",
        ("write", "p99.99"): "pass",
        ("write", "p99.9999"): "pass",
        ("write", "max"): "pass",
    }
    assert verdict.outcome == "pass"
    slow = {7: {"read": (reads, 1_000_000), "write": (writes, 40_000_000)}}
    (failed,) = analyse_qos(plan, [_step(7)], {}, slow).values()
    assert failed.outcome == "fail"  # one write of 40 ms is over the 30 ms maximum
    assert json.loads(json.dumps([i.check for i in failed.items]))


S = 1_000_000_000  # ns
OVER_2S = QosTarget("all", None, 2 * S, "CTO-3", at_most=7, window_s=3600)
OVER_8S = QosTarget("all", None, 8 * S, "CTO-3", at_most=0)


def test_a_bucket_straddling_the_threshold_makes_the_count_a_range() -> None:
    straddled = fio_value(2 * S)  # fio's bucket 1,996,488,704–2,013,265,919 ns holds 2 s
    assert straddled - (1 << 23) < 2 * S < straddled + (1 << 23)
    bins = {**histogram((100_000, 1_000_000), (3 * S, 5)), straddled: 4}
    item = judge_target(OVER_2S, {"read": (bins, None)}, 3600.0)
    assert item.count == (5, 9)
    assert item.outcome == Outcome.INCONCLUSIVE.value  # 5 to 9 against at most 7
    assert "5–9" in item.sentence
    # the largest latency measured at or under the threshold settles it: none over
    settled = judge_target(OVER_2S, {"read": (bins, 1.999 * S)}, 3600.0)
    assert settled.count == (0, 0)


def test_an_hour_of_qd1_counted_against_cto3() -> None:
    calm = histogram((100_000, 36_000_000), (3 * S, 7))
    both = {"read": (calm, 3 * S), "write": (histogram((50_000, 10)), 60_000)}
    assert judge_target(OVER_2S, both, 3600.0).outcome == "pass"  # 7, reads and writes together
    assert judge_target(OVER_8S, both, 3600.0).outcome == "pass"
    stormy = histogram((100_000, 36_000_000), (3 * S, 8), (9 * S, 1))
    over = {"read": (stormy, 9 * S)}
    assert judge_target(OVER_2S, over, 3600.0).outcome == "fail"
    assert judge_target(OVER_8S, over, 3600.0).outcome == "fail"
    # ten minutes with none over 2 s cannot show an hour with at most 7
    short = judge_target(OVER_2S, {"read": (histogram((100_000, 10)), 1)}, 600.0)
    assert short.outcome == "inconclusive"
    assert "lasted 600 s of the 3,600 s" in short.sentence
    # two hours with 8 over 2 s may have put 4 in each hour
    spread = judge_target(OVER_2S, {"read": (histogram((3 * S, 8)), 3 * S)}, 7200.0)
    assert spread.outcome == "inconclusive"


CHANGE_99 = QosTarget("read", 99.0, 0.0, "TRIM-6", phase="trim", change_pct=5.0)


def _reads(*parts: tuple[int, int]) -> dict[str, tuple[dict[int, int], None]]:
    return {"read": (histogram(*parts), None)}


def test_a_change_is_the_ratio_of_two_percentiles_with_its_interval() -> None:
    alone = _reads((100_000, 99_000), (500_000, 1_000))  # p99 between 100 and 500 µs
    same = judge_change(CHANGE_99, alone, alone)
    assert same.outcome == "inconclusive"  # ranks l and u straddle the step: wide interval
    steady = _reads((100_000, 100_000))
    assert judge_change(CHANGE_99, steady, steady).outcome == "pass"
    slower = judge_change(CHANGE_99, steady, _reads((200_000, 100_000)))
    assert slower.outcome == "fail"
    assert slower.value_ns == pytest.approx(2.0, rel=0.02)
    assert slower.interval is not None
    assert slower.interval.low is not None
    assert slower.interval.low > 1.05
    faster = judge_change(CHANGE_99, steady, _reads((50_000, 100_000)))
    assert faster.outcome == "pass"  # only a slowdown is judged
    short = judge_change(CHANGE_99, steady, _reads((100_000, 100)))
    assert short.outcome == "inconclusive"
    assert short.value_ns is None
    assert "needs ≥" in short.sentence
    missing = judge_change(CHANGE_99, steady, None)
    assert missing.outcome == "inconclusive"
