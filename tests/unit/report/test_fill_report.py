"""The `fill` verdict: levels in order, relative speed, a plain sentence."""

import json

import pytest

from ssdlab.analysis.profiles.fill import VERDICT, analyse_fill
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.step import StepResult
from ssdlab.plan.fill import plan_fill
from ssdlab.store.lifecycle import to_json
from tests.unit.plan.profile_golden import DEVICE_TARGET


def _step(level: int, iops: float, round_index: int = 1) -> StepResult:
    write = DirectionMetrics(1, 1, 1.0, iops * 4096, iops, 900.0, 10.0, 9e5, 5.0, 800.0,
                             ((50.0, 700), (99.0, 4000)))  # fmt: skip
    return StepResult(f"randwrite-{level}", "", "write", round_index, False, iops * 4096, iops,
                      900.0, None, write)  # fmt: skip


def test_levels_relative_to_the_emptiest_and_the_sentence() -> None:
    plan = plan_fill({}, DEVICE_TARGET)
    steps = [_step(90, 20_000), _step(0, 62_000), _step(50, 50_000), _step(75, 31_000)]
    found = analyse_fill(plan, steps, {}, {})[VERDICT]
    assert [r.level_pct for r in found.levels] == [0, 50, 75, 90]
    assert found.levels[-1].relative_to_lowest == pytest.approx(20 / 62)
    assert found.levels[0].lat_p99_ns == 4000
    assert found.summary is not None
    assert found.summary.startswith(
        "Slows as it fills: yes — at 90 % full random writes run 3.10× slower than at 0 %"
    )
    assert found.summary.endswith("measured once, no interval)")
    assert found.state == "yes"
    stored = json.loads(to_json(found))  # the stored body: the fields, rows as objects
    assert set(stored) == {
        "levels", "summary", "target_kind", "slowdown", "slowdown_interval", "state",
        "min_slowdown",
    }  # fmt: skip
    assert stored["levels"][0] == {
        "level_pct": 0, "iops": 62_000, "bw_bytes_per_s": 62_000 * 4096, "lat_mean_ns": 900.0,
        "lat_p99_ns": 4000, "relative_to_lowest": 1.0, "passes": 1, "iops_interval": None,
        "relative_interval": None, "pass_iops": [62_000],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("full", "spread", "state"),
    [(40_000.0, 0.01, "yes"), (59_800.0, 0.005, "no"), (58_000.0, 0.05, "inconclusive")],
)
def test_repeated_levels_say_yes_no_or_inconclusive(full: float, spread: float, state: str) -> None:
    plan = plan_fill({"levels": (0, 90)}, DEVICE_TARGET)
    steps = [
        _step(level, iops * (1 + spread * sign), round_index)
        for level, iops in ((0, 60_000.0), (90, full))
        for round_index, sign in ((1, -1), (2, 0), (3, 1))
    ]
    found = analyse_fill(plan, steps, {}, {})[VERDICT]
    assert found.state == state
    assert found.summary is not None
    assert found.summary.startswith(f"Slows as it fills: {state} — ")
    assert "95 % interval" in found.summary
    last = found.levels[-1]
    assert last.passes == 3
    assert last.relative_interval is not None
    assert last.relative_interval.holds(full / 60_000)
