"""Plan the `cachefit` profile: the quick tests × {direct, buffered} × {inside, beyond the cache}.

Procedure:
1. Write the largest test region once (fresh random data, flushed), so every read comes from
   written flash and the file exists at full size. Devices are filled too: reading LBAs that
   were never written measures the controller's shortcut, not the flash.
2. Let the drive rest (`--recover`) so it can empty its write cache after the fill.
3. Reads: inside region direct, inside buffered, beyond direct, beyond buffered; each the
   preset's tests in the quick order. Reads first, so no write test has filled the cache.
4. Rest again, then the writes in the same order: inside before beyond, because writing the
   beyond region is what overflows the drive's cache.

With --repeat N the reads run N rounds, then the writes N rounds, each round of writes after
its own rest, so every round starts with the drive's cache as empty as the first.

Each test is one time-based pass built by the quick planner (`build_test_job`) from a
QuickSettings with the region as its size, so its job file is the quick job with that size.
Buffered jobs say `invalidate=1` (fio drops *this file's* cached pages before the job
starts; nothing system-wide), so a buffered read starts cold and shows what the page cache
gives over `--runtime`; buffered writes end with `end_fsync=1` (from the quick planner) so
their time includes writing the data back and no writeback spills into the next test.
"""

from collections.abc import Mapping
from typing import Any

from ssdlab.errors import UsageError
from ssdlab.model.plan import Direction, FioJob, QuickSettings, QuickTest
from ssdlab.model.profile import (
    PlanTarget,
    ProfilePlan,
    ProfileStep,
    RoundLoop,
    Settings,
    SettingValue,
    StepRole,
)
from ssdlab.model.profile_settings import CachefitSettings
from ssdlab.model.units import MiB, format_size
from ssdlab.plan.profile import (
    DEFAULT_IOENGINE,
    fill_job,
    region_bytes,
    repeat_loop,
    start_plan,
)
from ssdlab.plan.quick import build_test_job
from ssdlab.profiles.cachefit import QUICK, SPEC
from ssdlab.profiles.quick import preset_named

CACHE_FINDING = "cache-cliff"  # the `cache` profile's finding that holds cliff_bytes
IO_MODES = ("direct", "buffered")
REGIONS = ("inside", "beyond")
DIRECTIONS = (Direction.READ, Direction.WRITE)


def cache_size_from_finding(body: Mapping[str, Any]) -> int | None:
    """The write-cache size in a `cache` run's cache-cliff finding (its `cliff_bytes`), or None
    when that run found no cliff."""
    value = body.get("cliff_bytes")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    return int(value) if value > 0 else None


def _cache_bytes(settings: CachefitSettings) -> int:
    cache = settings.cache_size
    if cache is not None:
        return cache
    run = settings.from_run
    if run is not None:
        raise UsageError(
            f"--from-run {run}: no cache size was read from run {run} (it needs a "
            f"{CACHE_FINDING} finding with cliff_bytes, as a `cache` run that found its cliff "
            "stores); give --cache-size SIZE instead"
        )
    raise UsageError(
        "cachefit needs the drive's write-cache size: give --cache-size SIZE (e.g. 8GiB), "
        "or --from-run RUN_ID of an earlier `ssdlab run cache` on this drive"
    )


def _regions(
    target: PlanTarget, cache: int, settings: CachefitSettings
) -> tuple[int, int | None, list[str]]:
    """(inside bytes, beyond bytes or None when it does not fit, notes)."""
    available = region_bytes(target, None)
    inside = int(cache * settings.inside_fraction) // MiB * MiB
    beyond = int(cache * settings.beyond_multiple) // MiB * MiB
    if inside < MiB:
        raise UsageError(
            f"the inside region ({settings.inside_fraction:g} of a "
            f"{format_size(cache)} cache) is under 1 MiB; raise --cache-size or --inside-fraction"
        )
    if inside > available:
        raise UsageError(
            f"the inside region ({format_size(inside)}) is larger than the target offers "
            f"({format_size(available)}); give --size of at least {format_size(beyond)} "
            "(a file target) or a smaller --inside-fraction"
        )
    if beyond <= available:
        return inside, beyond, []
    note = (
        f"beyond-cache tests left out: {settings.beyond_multiple:g}× the "
        f"{format_size(cache)} cache is {format_size(beyond)}, but the target offers "
        f"{format_size(available)}"
        + ("; give --size to use a larger test file" if target.kind == "file" else "")
    )
    return inside, None, [note]


def quick_settings_for(settings: CachefitSettings, size: int, direct: bool) -> QuickSettings:
    """The quick settings whose test jobs are this profile's: the region as the size."""
    return QuickSettings(
        preset=settings.preset,
        size_bytes=size,
        count=1,
        measure_s=settings.runtime,
        interval_s=settings.interval,
        mode="read,write",
        mix_read_pct=QUICK.default_mix_read_pct,
        data="random",
        ioengine=DEFAULT_IOENGINE,
        direct_io=direct,
    )


def _test_job(test: QuickTest, settings: QuickSettings, path: str, key: str) -> FioJob:
    """The quick planner's job for this test, named for the step; buffered jobs say that fio
    drops this file's cached pages first (fio's default, written out to be seen)."""
    job = build_test_job(test, settings, path, key)
    extra = () if settings.direct_io else (("invalidate", "1"),)
    options = (*job.global_options[:3], *extra, *job.global_options[3:])
    return FioJob(global_options=options, sections=((key, job.sections[0][1]),))


def _measure_step(
    test: QuickTest, mode: str, region: str, size: int, settings: CachefitSettings, path: str
) -> ProfileStep:
    key = f"{mode}-{region}-{test.key}"
    quick = quick_settings_for(settings, size, mode == "direct")
    params: tuple[tuple[str, SettingValue], ...] = (
        ("test", test.label),
        ("pattern", test.pattern.value),
        ("block_size_bytes", test.block_size_bytes),
        ("iodepth", test.iodepth),
        ("numjobs", test.numjobs),
        ("io_mode", mode),
        ("region", region),
        ("region_bytes", size),
    )
    return ProfileStep(
        key=key,
        label=f"{test.label} {test.direction.value}, {mode}, {region} the cache "
        f"({format_size(size)})",
        role=StepRole.MEASURE,
        direction=test.direction.value,
        job=_test_job(test, quick, path, key),
        params=params,
        expected_s=settings.runtime,
        pause_before_s=settings.interval,
    )


def _rest(key: str, label: str, seconds: float) -> list[ProfileStep]:
    if seconds <= 0:
        return []
    return [ProfileStep(key, label, StepRole.IDLE, "idle", idle_s=seconds, log_interval_ms=None)]


def plan_cachefit(given: Settings, target: PlanTarget) -> ProfilePlan:
    pairs, settings = start_plan(SPEC, CachefitSettings, given, target)
    cache = _cache_bytes(settings)
    inside, beyond, notes = _regions(target, cache, settings)
    sizes = {"inside": inside, "beyond": beyond}
    modes = IO_MODES if target.direct_io else ("buffered",)
    if not target.direct_io:
        notes.append(
            "direct-I/O tests left out: the target cannot do O_DIRECT, so only buffered "
            "figures are measured"
        )
    notes.append(
        "buffered tests use libaio like the direct ones; buffered libaio submits synchronously, "
        "so their queue depth does not apply (page-cache readahead and writeback do the "
        "queueing)"
    )
    shapes = preset_named(QUICK, settings.preset).shapes
    recover_s = settings.recover
    filled = beyond if beyond is not None else inside
    steps: list[ProfileStep] = [
        ProfileStep(
            key="fill",
            label=f"write the test region once ({format_size(filled)})",
            role=StepRole.PREPARE,
            job=fill_job(target.path, filled, DEFAULT_IOENGINE, direct_io=target.direct_io),
            log_interval_ms=None,
            expected_bytes=filled,
        ),
        *_rest("recover-fill", "rest after the fill (drive empties its write cache)", recover_s),
    ]
    loops: list[RoundLoop] = []
    for direction in DIRECTIONS:
        tests: list[ProfileStep] = []
        if direction is Direction.WRITE:
            tests += _rest("recover-writes", "rest before the write tests", recover_s)
        for region in REGIONS:
            size = sizes[region]
            if size is None:
                continue
            for mode in modes:
                for shape in shapes:
                    test = shape.with_direction(direction, None)
                    tests.append(_measure_step(test, mode, region, size, settings, target.path))
        if settings.repeat > 1:  # every round of writes rests first, as the first one does
            loops.append(repeat_loop(tests, settings.repeat, name=f"{direction.value}s"))
        else:
            steps += tests
    return ProfilePlan(
        profile=SPEC.name,
        profile_version=SPEC.version,
        settings=pairs,
        target_path=target.path,
        target_kind=target.kind,
        destructive=target.kind == "device",
        steps=tuple(steps),
        notes=tuple(notes),
        loops=tuple(loops),
        params=(("cache_bytes", cache), ("inside_bytes", inside), ("beyond_bytes", beyond)),
    )
