"""The `cachefit` profile's plan: job files pinned as goldens, and its rules."""

from dataclasses import replace

import pytest

from ssdlab.errors import UsageError
from ssdlab.model.plan import Direction
from ssdlab.model.profile import ProfilePlan, ProfileStep, StepRole
from ssdlab.model.profile_settings import CachefitSettings
from ssdlab.model.typed_settings import decode_settings
from ssdlab.model.units import GiB, MiB
from ssdlab.plan.cachefit import cache_size_from_finding, plan_cachefit, quick_settings_for
from ssdlab.plan.profile import resolve_profile_settings
from ssdlab.plan.quick import build_test_job
from ssdlab.profiles.cachefit import SPEC
from ssdlab.profiles.quick import load_quick_profile
from tests.unit.plan.profile_golden import DEVICE_TARGET, FILE_TARGET, check_golden

CACHE = 256 * MiB


def options_of(step: ProfileStep) -> dict[str, str]:
    assert step.job is not None
    return dict(step.job.global_options) | dict(step.job.sections[0][1])


def measured(plan: ProfilePlan) -> list[ProfileStep]:
    return [s for s in plan.all_steps if s.role is StepRole.MEASURE]


@pytest.mark.parametrize("kind", ["file", "device"])
def test_golden(kind: str, update_golden: bool) -> None:
    target = FILE_TARGET if kind == "file" else DEVICE_TARGET
    check_golden(f"cachefit__{kind}", plan_cachefit({"cache_size": CACHE}, target), update_golden)


def test_regions_are_a_fraction_and_a_multiple_of_the_cache() -> None:
    plan = plan_cachefit({"cache_size": CACHE}, DEVICE_TARGET)
    assert plan.param("inside_bytes") == 128 * MiB
    assert plan.param("beyond_bytes") == 768 * MiB
    sizes = {(s.param("region"), int(options_of(s)["size"])) for s in measured(plan)}
    assert sizes == {("inside", 128 * MiB), ("beyond", 768 * MiB)}
    fill = plan.all_steps[0]
    assert fill.key == "fill"
    assert fill.role is StepRole.PREPARE
    assert int(options_of(fill)["size"]) == 768 * MiB == fill.expected_bytes
    other = plan_cachefit(
        {"cache_size": 100 * MiB, "inside_fraction": 0.25, "beyond_multiple": 2.0}, DEVICE_TARGET
    )
    assert other.param("inside_bytes") == 25 * MiB
    assert other.param("beyond_bytes") == 200 * MiB


def test_every_quick_test_runs_four_ways_in_both_directions() -> None:
    plan = plan_cachefit({"cache_size": CACHE}, DEVICE_TARGET)
    shapes = load_quick_profile().presets["default"].shapes
    combos = {
        (s.param("test"), s.direction, s.param("io_mode"), s.param("region"))
        for s in measured(plan)
    }
    labels = {shape.with_direction(Direction.READ, None).label for shape in shapes}
    assert len(combos) == len(measured(plan)) == len(labels) * 2 * 2 * 2
    assert {c[0] for c in combos} == labels
    assert all(s.expected_s == 5.0 and s.pause_before_s == 5.0 for s in measured(plan))


def test_jobs_are_the_quick_jobs_with_the_region_as_size() -> None:
    """The numbers come from the quick preset data: each job is quick's, renamed."""
    plan = plan_cachefit({"cache_size": CACHE, "preset": "nvme"}, DEVICE_TARGET)
    given = {"cache_size": CACHE, "preset": "nvme"}
    fit = decode_settings(CachefitSettings, resolve_profile_settings(SPEC, given))
    shapes = load_quick_profile().presets["nvme"].shapes
    steps = measured(plan)
    assert len(steps) == len(shapes) * 8
    for step in steps:
        shape = next(
            s
            for s in shapes
            if s.with_direction(Direction(step.direction), None).label == step.param("test")
        )
        test = shape.with_direction(Direction(step.direction), None)
        size = step.param("region_bytes")
        assert isinstance(size, int)
        settings = quick_settings_for(fit, size, step.param("io_mode") == "direct")
        quick = build_test_job(test, settings, DEVICE_TARGET.path, step.key)
        mine = options_of(step)
        mine.pop("invalidate", None)
        assert mine == dict(quick.global_options) | dict(quick.sections[0][1])
        assert step.job is not None
        assert step.job.sections[0][0] == step.key


def test_buffered_jobs_invalidate_the_file_and_buffered_writes_flush() -> None:
    plan = plan_cachefit({"cache_size": CACHE}, FILE_TARGET)
    for step in measured(plan):
        options = options_of(step)
        if step.param("io_mode") == "buffered":
            assert options["direct"] == "0"
            assert options["invalidate"] == "1"
            assert ("end_fsync" in options) == (step.direction == "write")
        else:
            assert options["direct"] == "1"
            assert "invalidate" not in options
            assert "end_fsync" not in options


def test_order_reads_then_writes_inside_before_beyond_with_rests() -> None:
    plan = plan_cachefit({"cache_size": CACHE, "recover": 20}, DEVICE_TARGET)
    keys = [s.key for s in plan.all_steps]
    assert keys[:2] == ["fill", "recover-fill"]
    rest = keys.index("recover-writes")
    assert {s.direction for s in plan.all_steps[2:rest]} == {"read"}
    assert {s.direction for s in plan.all_steps[rest + 1 :]} == {"write"}
    assert all(s.idle_s == 20 for s in plan.all_steps if s.role is StepRole.IDLE)
    writes = [s.param("region") for s in plan.all_steps[rest + 1 :]]
    assert writes == sorted(writes, key=lambda r: r != "inside")  # every inside before beyond
    no_rest = plan_cachefit({"cache_size": CACHE, "recover": 0}, DEVICE_TARGET)
    assert all(s.role is not StepRole.IDLE for s in no_rest.all_steps)


def test_missing_cache_size_names_both_ways_to_give_it() -> None:
    with pytest.raises(UsageError, match="--cache-size") as error:
        plan_cachefit({}, DEVICE_TARGET)
    assert "--from-run" in str(error.value)
    with pytest.raises(UsageError, match=r"--from-run 7.*cache-cliff.*--cache-size"):
        plan_cachefit({"from_run": 7}, DEVICE_TARGET)


def test_beyond_the_cache_is_left_out_with_a_note_when_it_does_not_fit() -> None:
    plan = plan_cachefit({"cache_size": 512 * MiB}, FILE_TARGET)  # 3 × 512 MiB > 1 GiB file
    assert plan.param("beyond_bytes") is None
    assert {s.param("region") for s in measured(plan)} == {"inside"}
    assert len(measured(plan)) == 4 * 2 * 2
    assert any("beyond-cache tests left out" in n and "--size" in n for n in plan.notes)
    assert int(options_of(plan.all_steps[0])["size"]) == 256 * MiB  # the fill covers inside only
    small_device = replace(DEVICE_TARGET, size_bytes=GiB, capacity_bytes=GiB)
    device_plan = plan_cachefit({"cache_size": 512 * MiB}, small_device)
    assert device_plan.param("beyond_bytes") is None
    assert any("beyond-cache tests left out" in n for n in device_plan.notes)


def test_an_inside_region_that_does_not_fit_or_is_tiny_is_refused() -> None:
    with pytest.raises(UsageError, match="larger than the target offers"):
        plan_cachefit({"cache_size": 4 * GiB}, FILE_TARGET)
    with pytest.raises(UsageError, match="under 1 MiB"):
        plan_cachefit({"cache_size": MiB}, FILE_TARGET)
    with pytest.raises(UsageError, match="--beyond-multiple must be at least"):
        plan_cachefit({"cache_size": CACHE, "beyond_multiple": 1.0}, FILE_TARGET)


def test_devices_are_destructive_files_are_not() -> None:
    assert plan_cachefit({"cache_size": CACHE}, DEVICE_TARGET).destructive
    assert not plan_cachefit({"cache_size": CACHE}, FILE_TARGET).destructive


def test_a_target_without_direct_io_gets_buffered_tests_only() -> None:
    plan = plan_cachefit({"cache_size": CACHE}, replace(FILE_TARGET, direct_io=False))
    assert {s.param("io_mode") for s in measured(plan)} == {"buffered"}
    assert any("direct-I/O tests left out" in n for n in plan.notes)
    assert options_of(plan.all_steps[0])["direct"] == "0"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"cliff_bytes": 8 * GiB}, 8 * GiB),
        ({"cliff_bytes": 1048576.0}, MiB),
        ({"cliff_bytes": None}, None),
        ({}, None),
        ({"cliff_bytes": 0}, None),
        ({"cliff_bytes": -5}, None),
        ({"cliff_bytes": True}, None),
        ({"cliff_bytes": "8GiB"}, None),
        ({"cliff_bytes": 1.5}, None),
    ],
)
def test_cache_size_from_a_cache_cliff_finding(body: dict[str, object], expected: int) -> None:
    assert cache_size_from_finding(body) == expected
