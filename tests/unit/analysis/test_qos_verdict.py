"""The `qos` verdict from synthetic fio histograms whose truth is known: a percentile passes
only when its whole 95 % interval is under the target, fails only when all of it is over, and
is inconclusive between, or when the run is too short to bound it ("needs ≥ N I/Os"); a
maximum is judged as measured, with its n; the run passes only when every target passes."""

import json

import pytest

from ssdlab.analysis.profiles.qos import analyse_qos, judge_target, overall
from ssdlab.analysis.verdict_state import Outcome
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
    item = judge_target("read", 99.0, limit_us * US, "test", {"read": (bins, None)})
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
    item = judge_target("read", 99.9999, 8500 * US, "test", {"read": (few, 100_000)})
    assert item.outcome == Outcome.INCONCLUSIVE.value
    assert item.value_ns is None
    assert item.interval is None
    assert item.needs_ios == 3_688_878
    assert "needs ≥ 3,688,878 I/Os" in item.sentence
    enough = histogram((100_000, 10_000_000))  # 10^7: the count the OCP tail asks for
    judged = judge_target("read", 99.9999, 8500 * US, "test", {"read": (enough, 100_000)})
    assert judged.outcome == Outcome.PASS.value


def test_the_maximum_is_a_sample_extreme_with_its_n() -> None:
    measured = {"write": (STEADY, 16_000_000)}
    over = judge_target("write", None, 15_000 * US, "test", measured)
    assert over.outcome == Outcome.FAIL.value
    assert over.interval is None
    assert over.n == 100_000
    assert "largest of 100,000 I/Os" in over.sentence
    under = judge_target("write", None, 30_000 * US, "test", measured)
    assert under.outcome == Outcome.PASS.value


def test_a_direction_that_did_not_run_is_inconclusive() -> None:
    item = judge_target("trim", None, 1000 * US, "test", {"read": (STEADY, 1)})
    assert item.outcome == Outcome.INCONCLUSIVE.value
    assert judge_target("trim", 99.0, 1e6, "t", {}).outcome == Outcome.INCONCLUSIVE.value


def test_the_run_passes_only_when_every_target_passes() -> None:
    passed = judge_target("read", 99.0, 2000 * US, "t", {"read": (STEADY, None)})
    failed = judge_target("read", 99.0, 50 * US, "t", {"read": (STEADY, None)})
    unsure = judge_target("read", 99.0, 2000 * US, "t", {"read": (STRADDLING, None)})
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
