"""The `trim` verdicts from facts, step findings and results."""

import json

from ssdlab.analysis.profiles.trim import (
    EFFECT,
    SUPPORT,
    TrimEffect,
    TrimSupport,
    analyse_trim,
    fstrim_result,
    zero_check,
)
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.step import StepResult
from ssdlab.parse.tool_outputs import fstrim_trimmed_bytes, read_back_of
from ssdlab.plan.trim import plan_trim
from ssdlab.store.lifecycle import to_json
from tests.unit.plan.profile_golden import DEVICE_TARGET


def _step(key: str, iops: float, round_index: int = 1) -> StepResult:
    write = DirectionMetrics(1, 1, 1.0, iops * 4096, iops, 250.0, 1.0, 1e4, 1.0, 200.0)
    return StepResult(key, key, "write", round_index, False, iops * 4096, iops, 250.0, None,
                      write)  # fmt: skip


def test_support_from_the_kernel_limits() -> None:
    plan = plan_trim({}, DEVICE_TARGET)
    none = analyse_trim(plan, [], {"discard_max_bytes": 0, "discard_granularity_bytes": 0}, {})
    assert isinstance(support := none[SUPPORT], TrimSupport)
    assert support.supported is False
    assert "no TRIM support" in support.sentence
    unknown = analyse_trim(plan, [], {}, {})[SUPPORT]
    assert isinstance(unknown, TrimSupport)
    assert unknown.supported is None
    assert json.loads(to_json(unknown)) == {
        "supported": None, "discard_granularity_bytes": None, "discard_max_bytes": None,
        "sentence": "the kernel does not say whether the device supports discard",
    }  # fmt: skip
    found = analyse_trim(
        plan,
        [_step("dirty", 20_000), _step("discarded", 50_000)],
        {"discard_max_bytes": 2**31, "discard_granularity_bytes": 4096},
        {},
    )
    assert isinstance(support := found[SUPPORT], TrimSupport)
    assert support.supported is True
    assert isinstance(effect := found[EFFECT], TrimEffect)
    assert effect.ratio == 2.5
    assert json.loads(to_json(effect)) == {
        "dirty_iops": 20_000, "discarded_iops": 50_000, "dirty_lat_mean_ns": 250.0,
        "discarded_lat_mean_ns": 250.0, "ratio": 2.5,
        "sentence": "Faster after a discard: yes — random writes after a discard ran at 2.50× "
        "the speed on the dirty region (measured once, no interval)",
        "passes": 1, "dirty_interval": None, "discarded_interval": None, "ratio_interval": None,
        "state": "yes", "min_effect": 1.05,
    }  # fmt: skip


def test_repeated_rounds_say_whether_writes_run_faster_after_a_discard() -> None:
    plan = plan_trim({}, DEVICE_TARGET)
    facts = {"discard_max_bytes": 2**31, "discard_granularity_bytes": 4096}

    def effect(dirty: list[float], discarded: list[float]) -> TrimEffect:
        steps = [_step("dirty", v, i) for i, v in enumerate(dirty, 1)]
        steps += [_step("discarded", v, i) for i, v in enumerate(discarded, 1)]
        found = analyse_trim(plan, steps, facts, {})[EFFECT]
        assert isinstance(found, TrimEffect)
        return found

    faster = effect([20_000, 20_400, 19_600], [50_000, 51_000, 49_000])
    assert (faster.state, faster.passes) == ("yes", 3)
    assert faster.ratio_interval is not None
    assert faster.ratio_interval.holds(2.5)
    same = effect([20_000, 20_100, 19_900], [20_000, 19_950, 20_050])
    assert same.state == "no"
    unsure = effect([20_000, 18_000, 22_000], [21_000, 19_000, 23_000])
    assert unsure.state == "inconclusive"
    assert unsure.sentence.startswith("Faster after a discard: inconclusive — ")


def test_zero_check_and_fstrim_outputs() -> None:
    ok = json.dumps({"jobs": [{"total_err": 0, "read": {"io_bytes": 16 << 20}}]})
    bad = json.dumps({"jobs": [{"total_err": 3, "read": {"io_bytes": 16 << 20}}]})
    assert read_back_of(ok) == (0, 16 << 20)
    assert read_back_of("garbage") is None
    assert zero_check(read_back_of(ok)) == {
        "zeroes": True, "blocks_not_zero": 0, "read_bytes": 16 << 20,
        "sentence": "discarded blocks read back as zeroes",
    }  # fmt: skip
    assert zero_check(read_back_of(bad))["zeroes"] is False
    assert zero_check(None)["zeroes"] is None
    trimmed_bytes = fstrim_trimmed_bytes("/mnt: 1.1 GiB (1181155328 bytes) trimmed\n")
    assert trimmed_bytes == 1181155328
    trimmed = fstrim_result(0.5, trimmed_bytes)
    assert trimmed["sentence"] == "fstrim took 0.50 s and trimmed 1.18 GB (1,181,155,328 B)"
