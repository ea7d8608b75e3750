"""The `trim` profile's plan: what runs on a device, a file and a device without discard."""

from dataclasses import replace

import pytest

from ssdlab.plan.trim import plan_trim
from tests.unit.plan.profile_golden import DEVICE_TARGET, FILE_TARGET, check_golden


@pytest.mark.parametrize("kind", ["file", "device"])
def test_golden(kind: str, update_golden: bool) -> None:
    target = FILE_TARGET if kind == "file" else DEVICE_TARGET
    check_golden(f"trim__{kind}", plan_trim({"fstrim": "/srv/ssd"}, target), update_golden)


def test_device_order_and_the_zero_check_never_fails_the_run() -> None:
    plan = plan_trim({}, DEVICE_TARGET)
    keys = [s.key for s in plan.all_steps]
    assert keys == ["pattern", "discard-pattern", "zero-check", "fill", "dirty", "discard",
                    "discarded"]  # fmt: skip
    (loop,) = plan.loops  # --repeat 3: each round fills the region again, so it is dirty again
    assert [s.key for s in loop.steps] == ["fill", "dirty", "discard", "discarded"]
    assert (loop.min_rounds, loop.max_rounds) == (3, 3)
    once = plan_trim({"repeat": 1, "fstrim": "/srv/ssd"}, DEVICE_TARGET)
    assert once.loops == ()
    assert [s.key for s in once.steps][-1] == "fstrim"
    assert [s.key for s in plan_trim({"fstrim": "/srv/ssd"}, DEVICE_TARGET).after] == ["fstrim"]
    assert plan.destructive
    check = plan.steps[2].command
    assert check[0] == "fio"
    assert "--verify_pattern=0x00" in check
    assert "--continue_on_error=verify" in check  # counts bad blocks instead of failing


def test_file_and_no_discard_measure_only_facts() -> None:
    on_file = plan_trim({}, FILE_TARGET)
    assert on_file.steps == ()
    assert not on_file.destructive
    assert "file" in on_file.notes[0]
    fstrim = plan_trim({"fstrim": "/srv/ssd"}, FILE_TARGET)
    assert fstrim.steps[0].command == ("fstrim", "--verbose", "/srv/ssd")
    bare = plan_trim({}, replace(DEVICE_TARGET, discard_supported=False))
    assert bare.steps == ()
    assert not bare.destructive
    assert "does not support" in bare.notes[0]
