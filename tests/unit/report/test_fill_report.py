"""The `fill` verdict: levels in order, relative speed, a plain sentence."""

import json

import pytest

from ssdlab.analysis.profiles.fill import VERDICT, analyse_fill
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.step import StepResult
from ssdlab.plan.fill import plan_fill
from ssdlab.store.lifecycle import to_json
from tests.unit.plan.profile_golden import DEVICE_TARGET


def _step(level: int, iops: float) -> StepResult:
    write = DirectionMetrics(1, 1, 1.0, iops * 4096, iops, 900.0, 10.0, 9e5, 5.0, 800.0,
                             ((50.0, 700), (99.0, 4000)))  # fmt: skip
    return StepResult(f"randwrite-{level}", "", "write", 1, False, iops * 4096, iops, 900.0,
                      None, write)  # fmt: skip


def test_levels_relative_to_the_emptiest_and_the_sentence() -> None:
    plan = plan_fill({}, DEVICE_TARGET)
    steps = [_step(90, 20_000), _step(0, 62_000), _step(50, 50_000), _step(75, 31_000)]
    found = analyse_fill(plan, steps, {}, {})[VERDICT]
    assert [r.level_pct for r in found.levels] == [0, 50, 75, 90]
    assert found.levels[-1].relative_to_lowest == pytest.approx(20 / 62)
    assert found.levels[0].lat_p99_ns == 4000
    assert found.summary is not None
    assert found.summary.startswith("at 90 % full random writes run 3.10× slower than at 0 %")
    stored = json.loads(to_json(found))  # the stored body: the fields, rows as objects
    assert set(stored) == {"levels", "summary", "target_kind"}
    assert stored["levels"][0] == {
        "level_pct": 0, "iops": 62_000, "bw_bytes_per_s": 62_000 * 4096, "lat_mean_ns": 900.0,
        "lat_p99_ns": 4000, "relative_to_lowest": 1.0,
    }  # fmt: skip
