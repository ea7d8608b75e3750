"""The `align` profile's plan: job files pinned as goldens, and its rules."""

import pytest

from ssdlab.errors import UsageError
from ssdlab.model.units import KiB
from ssdlab.plan.align import plan_align
from tests.unit.plan.profile_golden import DEVICE_TARGET, FILE_TARGET, check_golden


@pytest.mark.parametrize("kind", ["file", "device"])
def test_golden(kind: str, update_golden: bool) -> None:
    target = FILE_TARGET if kind == "file" else DEVICE_TARGET
    check_golden(f"align__{kind}", plan_align({}, target), update_golden)


def test_every_misaligned_write_is_off_the_4k_grid() -> None:
    plan = plan_align({"misalign": 1024}, DEVICE_TARGET)
    for step in plan.all_steps:
        assert step.job is not None
        options = dict(step.job.global_options) | dict(step.job.sections[0][1])
        bs = int(options["bs"])
        align = int(options["blockalign"])
        offset = int(options.get("offset", "0"))
        assert align % (4 * KiB) == 0  # the grid is 4 KiB (or the block size)
        if step.param("offset_align_bytes") == 4 * KiB:
            assert offset == 0
        else:
            assert offset % (4 * KiB) == 1024  # so every write starts 1 KiB past a boundary
        assert step.param("block_size_bytes") == bs


def test_file_target_is_filled_first_and_device_is_destructive() -> None:
    file_plan = plan_align({}, FILE_TARGET)
    assert file_plan.steps[0].key == "fill"
    assert not file_plan.destructive
    device_plan = plan_align({}, DEVICE_TARGET)
    assert device_plan.destructive
    assert all(s.key != "fill" for s in device_plan.all_steps)
    assert len(device_plan.all_steps) == 10  # 5 block sizes × aligned, misaligned


def test_every_point_is_repeated_in_rounds() -> None:
    """--repeat 3 (the default): every block size and alignment once a round, three rounds, so a
    drift over the run touches every point alike; the fill runs once, before them."""
    plan = plan_align({}, FILE_TARGET)
    assert [s.key for s in plan.steps] == ["fill"]
    (loop,) = plan.loops
    assert (loop.min_rounds, loop.max_rounds) == (3, 3)
    assert len(loop.steps) == 10
    assert loop.check == ""  # nothing ends it early


def test_one_repeat_is_the_plan_of_old() -> None:
    plan = plan_align({"repeat": 1}, FILE_TARGET)
    assert plan.loops == ()
    assert len(plan.steps) == 11
    assert plan_align({"repeat": 5}, FILE_TARGET).loops[0].max_rounds == 5


def test_blocks_below_the_logical_sector_are_left_out_with_a_note() -> None:
    from dataclasses import replace

    plan = plan_align({}, replace(DEVICE_TARGET, logical_block_bytes=4096))
    sizes = {s.param("block_size_bytes") for s in plan.all_steps}
    assert sizes == {4096, 8192}
    assert len(plan.notes) == 3
    assert "logical sector is 4096" in plan.notes[0]


def test_misalign_must_be_whole_sectors() -> None:
    with pytest.raises(UsageError, match="multiple of 512"):
        plan_align({"misalign": 700}, DEVICE_TARGET)
    with pytest.raises(UsageError, match="at least 512"):
        plan_align({"misalign": 256}, DEVICE_TARGET)
