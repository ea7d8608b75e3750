"""The `sweep` profile's plan: the grid, the workloads, and when it writes."""

import pytest

from ssdlab.errors import UsageError
from ssdlab.plan.sweep import parse_workloads, plan_sweep
from tests.unit.plan.profile_golden import DEVICE_TARGET, FILE_TARGET, check_golden

SMALL = {"threads": (1, 4), "iodepths": (1, 32)}


@pytest.mark.parametrize("kind", ["file", "device"])
def test_golden(kind: str, update_golden: bool) -> None:
    target = FILE_TARGET if kind == "file" else DEVICE_TARGET
    check_golden(f"sweep__{kind}", plan_sweep(SMALL, target), update_golden)


def test_default_grid_is_six_by_six_per_workload() -> None:
    plan = plan_sweep({}, DEVICE_TARGET)
    assert len(plan.all_steps) == 2 * 36
    assert plan.destructive
    cell = plan.all_steps[-1]
    assert cell.job is not None
    options = dict(cell.job.global_options) | dict(cell.job.sections[0][1])
    assert (options["rw"], options["rwmixread"], options["bs"]) == ("randrw", "70", "8192")
    assert (options["numjobs"], options["iodepth"]) == ("32", "32")
    assert "group_reporting" in options
    assert options["percentile_list"] == "50:99:99.9"


def test_a_read_only_sweep_of_a_device_writes_nothing() -> None:
    plan = plan_sweep({**SMALL, "workloads": "randread:4KiB"}, DEVICE_TARGET)
    assert not plan.destructive
    assert "nothing is written" in plan.notes[0]
    on_file = plan_sweep({**SMALL, "workloads": "randread:4KiB"}, FILE_TARGET)
    assert on_file.steps[0].key == "fill"
    assert len(on_file.all_steps) == 5


def test_the_whole_matrix_is_repeated_in_rounds() -> None:
    """--repeat 2 (the default): every cell once a round, the matrix twice; 1 is one pass."""
    plan = plan_sweep(SMALL, FILE_TARGET)
    assert [s.key for s in plan.steps] == ["fill"]
    (loop,) = plan.loops
    assert (loop.min_rounds, loop.max_rounds, len(loop.steps)) == (2, 2, 8)
    once = plan_sweep({**SMALL, "repeat": 1}, FILE_TARGET)
    assert once.loops == ()
    assert len(once.steps) == 9


def test_workloads_are_parsed_or_refused() -> None:
    (mix,) = parse_workloads("randrw65:64KiB")
    assert (mix.rw, mix.rwmix_read_pct, mix.block_size_bytes, mix.key) == (
        "randrw", 65, 65536, "randrw65-64k",
    )  # fmt: skip
    for bad in ("randrw:4KiB", "random:4KiB", "randread", "randread:700", "randread:4KiB;x"):
        with pytest.raises(UsageError, match="--workloads"):
            parse_workloads(bad)
