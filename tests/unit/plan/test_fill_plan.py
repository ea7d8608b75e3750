"""The `fill` profile's plan: discard, fills that add up, random writes inside the span."""

from dataclasses import replace

import pytest

from ssdlab.errors import UsageError
from ssdlab.model.profile import ProfileStep
from ssdlab.model.units import MiB
from ssdlab.plan.fill import plan_fill
from tests.unit.plan.profile_golden import DEVICE_TARGET, FILE_TARGET, check_golden


def _options(step: ProfileStep) -> dict[str, str]:
    assert step.job is not None
    return dict(step.job.global_options) | dict(step.job.sections[0][1])


@pytest.mark.parametrize("kind", ["file", "device"])
def test_golden(kind: str, update_golden: bool) -> None:
    target = FILE_TARGET if kind == "file" else DEVICE_TARGET
    check_golden(f"fill__{kind}", plan_fill({}, target), update_golden)


def test_fills_add_up_to_each_level_and_writes_stay_inside() -> None:
    plan = plan_fill({"levels": (90, 0, 50, 75)}, DEVICE_TARGET)
    region = DEVICE_TARGET.size_bytes
    assert plan.destructive
    assert plan.steps[0].key == "discard"
    filled = 0
    for step in plan.all_steps[1:]:
        options = _options(step)
        level = step.param("level_pct")
        assert isinstance(level, int)
        span = region * level // 100 // MiB * MiB
        if step.key.startswith("fill-"):
            assert int(options.get("offset", "0")) == filled
            filled += int(options["size"])
            assert filled == span
        else:
            assert int(options["size"]) == (span or region)
            assert options["rw"] == "randwrite"
            assert "time_based" in options
    assert [s.param("level_pct") for s in plan.all_steps if s.key.startswith("randwrite")] == [
        0, 50, 75, 90,
    ]  # fmt: skip


def test_each_level_fills_once_then_repeats_its_random_writes() -> None:
    plan = plan_fill({"levels": (0, 50)}, DEVICE_TARGET)
    assert [s.key for s in plan.steps] == ["discard"]
    empty, half = plan.loops
    assert (empty.name, empty.before, empty.max_rounds, empty.min_rounds) == ("level-0", (), 3, 3)
    assert [s.key for s in half.before] == ["fill-50"]
    assert [s.key for s in half.steps] == ["randwrite-50"]
    once = plan_fill({"levels": (0, 50), "repeat": 1}, DEVICE_TARGET)
    assert once.loops == ()
    assert [s.key for s in once.steps] == ["discard", "randwrite-0", "fill-50", "randwrite-50"]


def test_rules() -> None:
    with pytest.raises(UsageError, match="0 to 99"):
        plan_fill({"levels": (50, 100)}, DEVICE_TARGET)
    no_discard = plan_fill({}, replace(DEVICE_TARGET, discard_supported=False))
    assert no_discard.all_steps[0].key != "discard"
    assert "discard" in no_discard.notes[0]
    on_file = plan_fill({}, FILE_TARGET)
    assert not on_file.destructive
    assert "file system" in on_file.notes[0]
