"""Plan a quick run: CrystalDiskMark's procedure expressed as fio job files.

Procedure (benchmarks.md §1.3): prepare the test file once, then for every test one warm-up pass
that is thrown away followed by `count` time-based passes; all read tests first, then all write
tests, then the mixes, with a pause before every test but the first. The plan is a profile
plan like any other: the passes are its steps, stored under their test's key and pass number.
"""

from ssdlab.model.plan import (
    Direction,
    FioJob,
    Options,
    Pattern,
    QuickSettings,
    QuickTest,
)
from ssdlab.model.profile import (
    PlanTarget,
    ProfilePlan,
    ProfileStep,
    Settings,
    StepRole,
)
from ssdlab.model.typed_settings import decode_settings
from ssdlab.plan.jobfile import check_fio_path
from ssdlab.plan.profile import fill_job, format_runtime
from ssdlab.plan.quick_settings import parse_mode, settings_pairs
from ssdlab.profiles.quick import QuickProfile, load_quick_profile, preset_named

LOG_INTERVAL_MS = 1000


def _rw_option(test: QuickTest) -> str:
    seq = test.pattern is Pattern.SEQ
    return {
        Direction.READ: "read" if seq else "randread",
        Direction.WRITE: "write" if seq else "randwrite",
        Direction.MIX: "rw" if seq else "randrw",
    }[test.direction]


def _data_options(settings: QuickSettings, *, every_write: bool) -> Options:
    """Zeros, or random data: fio's default random buffer (like CrystalDiskMark's one random
    block) for measured passes, fresh random data for every write when filling the file."""
    if settings.data == "zero":
        return (("zero_buffers", ""),)
    return (("refill_buffers", ""),) if every_write else ()


def _common_options(settings: QuickSettings, target_path: str) -> Options:
    return (
        ("filename", target_path),
        ("ioengine", settings.ioengine),
        ("direct", "1" if settings.direct_io else "0"),
    )


def build_test_job(
    test: QuickTest, settings: QuickSettings, target_path: str, log_prefix: str
) -> FioJob:
    """One time-based pass of one test.

    Sequential tests with several threads give each thread its own contiguous slice of the
    test region (offset_increment), so together they stream the region once instead of every
    thread re-reading the same blocks (KDiskMark#107); CrystalDiskMark 9 uses one shared stream.
    """
    region = settings.size_bytes
    options: list[tuple[str, str]] = list(_common_options(settings, target_path))
    if test.pattern is Pattern.SEQ and test.numjobs > 1:
        slice_bytes = region // test.numjobs // test.block_size_bytes * test.block_size_bytes
        options += [("size", str(slice_bytes)), ("offset_increment", str(slice_bytes))]
    else:
        options.append(("size", str(region)))
    options += [
        ("time_based", ""),
        ("runtime", format_runtime(settings.measure_s)),
        ("randrepeat", "0"),
        ("norandommap", ""),
        ("group_reporting", ""),
        ("write_bw_log", log_prefix),
        ("write_iops_log", log_prefix),
        ("write_lat_log", log_prefix),
        ("log_avg_msec", str(LOG_INTERVAL_MS)),
        # per second a histogram of completion latencies in fio's fixed buckets, which add
        # bucket by bucket over drives: `fleet compare`'s fleet-wide percentiles
        ("write_hist_log", log_prefix),
        ("log_hist_msec", str(LOG_INTERVAL_MS)),
    ]
    if test.direction is not Direction.READ:
        options += list(_data_options(settings, every_write=False))
    if test.direction is not Direction.READ and not settings.direct_io:
        options.append(("end_fsync", "1"))
    section: list[tuple[str, str]] = [
        ("rw", _rw_option(test)),
        ("bs", str(test.block_size_bytes)),
        ("iodepth", str(test.iodepth)),
        ("numjobs", str(test.numjobs)),
    ]
    if test.direction is Direction.MIX:
        section.append(("rwmixread", str(test.rwmixread_pct)))
    return FioJob(global_options=tuple(options), sections=((test.key, tuple(section)),))


def build_prepare_job(settings: QuickSettings, target_path: str) -> FioJob:
    """Allocate the test region and fill it with incompressible (or zero) data, 1 MiB at a time."""
    return fill_job(
        target_path,
        settings.size_bytes,
        settings.ioengine,
        direct_io=settings.direct_io,
        zero=settings.data == "zero",
    )


PREPARE_KEY = "prepare"


def pass_step(
    profile: QuickProfile,
    settings: QuickSettings,
    test: QuickTest,
    pass_index: int,
    target_path: str,
    *,
    pause_before_s: float,
) -> ProfileStep:
    """One pass of one test: pass 0 is the warm-up, measured and thrown away."""
    which = "warm-up (discarded)" if pass_index == 0 else f"pass {pass_index}"
    return ProfileStep(
        key=test.key,
        label=test.label,
        role=StepRole.WARMUP if pass_index == 0 else StepRole.MEASURE,
        direction=test.direction.value,
        job=build_test_job(test, settings, target_path, f"{test.key}-p{pass_index}"),
        log_interval_ms=LOG_INTERVAL_MS,
        expected_s=settings.measure_s,
        pause_before_s=pause_before_s,
        round_index=pass_index,
        comment=(
            f"ssdlab {profile.name}/{settings.preset}: "
            f"{test.label} {test.direction.value}, {which} of {settings.count}"
        ),
    )


def prepare_step(profile: QuickProfile, settings: QuickSettings, target_path: str) -> ProfileStep:
    """The test file filled once before the first test; only its raw output is kept."""
    return ProfileStep(
        key=PREPARE_KEY,
        label="prepare test file",
        role=StepRole.PREPARE,
        job=build_prepare_job(settings, target_path),
        log_interval_ms=None,
        expected_bytes=settings.size_bytes,
        comment=f"ssdlab {profile.name}: prepare test file",
        keep_result=False,
    )


def plan_quick(
    profile: QuickProfile,
    settings: QuickSettings,
    *,
    target_path: str,
    target_kind: str,
    fill: bool,
) -> ProfilePlan:
    """Every fio job of a quick run, in the order they run: the file preparation, then per
    test a warm-up pass and `count` measured passes, with a pause before every test but the
    first."""
    check_fio_path(target_path)
    preset = preset_named(profile, settings.preset)
    directions = parse_mode(settings.mode)
    steps: list[ProfileStep] = []
    if fill:
        steps.append(prepare_step(profile, settings, target_path))
    tests = [
        shape.with_direction(direction, settings.mix_read_pct)
        for direction in directions
        for shape in preset.shapes
    ]
    for number, test in enumerate(tests):
        for pass_index in range(settings.count + 1):
            pause = settings.interval_s if number > 0 and pass_index == 0 else 0.0
            steps.append(
                pass_step(profile, settings, test, pass_index, target_path, pause_before_s=pause)
            )
    writes = any(d is not Direction.READ for d in directions)
    return ProfilePlan(
        profile=profile.name,
        profile_version=profile.version,
        settings=settings_pairs(settings),
        target_path=target_path,
        target_kind=target_kind,
        destructive=target_kind == "device" and (writes or fill),
        steps=tuple(steps),
    )


def plan_quick_run(settings: Settings, target: PlanTarget) -> ProfilePlan:
    """The quick profile's planner: resolved settings (plan/quick_settings.quick_settings, as
    pairs by field) on a target; the test region is filled first when the target needs it."""
    return plan_quick(
        load_quick_profile(),
        decode_settings(QuickSettings, settings.items()),
        target_path=target.path,
        target_kind=target.kind,
        fill=target.needs_fill,
    )
