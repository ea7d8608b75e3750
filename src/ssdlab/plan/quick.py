"""Plan a quick run: CrystalDiskMark's procedure expressed as fio job files.

Procedure (benchmarks.md §1.3): prepare the test file once, then for every test one warm-up pass
that is thrown away followed by `count` time-based passes; all read tests first, then all write
tests, then the mixes, with a pause before every test but the first. The plan is a profile
plan like any other: the passes are its steps, stored under their test's key and pass number.
"""

from collections.abc import Mapping, Sequence
from dataclasses import fields

from ssdlab.errors import UsageError
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
    SettingValue,
    StepRole,
)
from ssdlab.model.units import MiB
from ssdlab.plan.jobfile import check_fio_path
from ssdlab.plan.profile import fill_job, format_runtime
from ssdlab.profiles.quick import QuickProfile, load_quick_profile, preset_named

MODES: dict[str, tuple[Direction, ...]] = {
    "all": (Direction.READ, Direction.WRITE, Direction.MIX),
    "read": (Direction.READ,),
    "write": (Direction.WRITE,),
    "mix": (Direction.MIX,),
}
DATA_CHOICES = ("random", "zero")
LOG_INTERVAL_MS = 1000


def parse_mode(text: str) -> tuple[Direction, ...]:
    """'all', 'read', 'write', 'mix' or a comma list such as 'read,write'."""
    directions: list[Direction] = []
    for part in text.split(","):
        name = part.strip().lower()
        if name not in MODES:
            raise UsageError(
                f"--mode {text!r}: choose all, read, write, mix or a comma list (read,write)"
            )
        directions.extend(d for d in MODES[name] if d not in directions)
    order = (Direction.READ, Direction.WRITE, Direction.MIX)
    return tuple(d for d in order if d in directions)


def resolve_settings(
    profile: QuickProfile,
    *,
    preset: str | None,
    size_bytes: int | None,
    count: int | None,
    measure_s: float | None,
    interval_s: float | None,
    mode: str,
    mix_read_pct: int | None,
    data: str,
    ioengine: str,
    direct_io: bool,
) -> QuickSettings:
    """Merge command-line values over the preset over the profile defaults, and check them."""
    chosen = preset_named(profile, preset or profile.default_preset)
    settings = QuickSettings(
        preset=chosen.name,
        size_bytes=size_bytes if size_bytes is not None else profile.default_size_bytes,
        count=count if count is not None else profile.default_count,
        measure_s=measure_s
        if measure_s is not None
        else chosen.measure_s or profile.default_measure_s,
        interval_s=interval_s
        if interval_s is not None
        else (chosen.interval_s if chosen.interval_s is not None else profile.default_interval_s),
        mode=",".join(d.value for d in parse_mode(mode)),
        mix_read_pct=mix_read_pct if mix_read_pct is not None else profile.default_mix_read_pct,
        data=data,
        ioengine=ioengine,
        direct_io=direct_io,
    )
    if settings.size_bytes < MiB:
        raise UsageError(f"--size must be at least 1MiB (got {settings.size_bytes} bytes)")
    if not 1 <= settings.count <= 100:
        raise UsageError(f"--count must be between 1 and 100 (got {settings.count})")
    if not 0.1 <= settings.measure_s <= 3600:
        raise UsageError(f"--measure must be between 0.1 and 3600 seconds (got {measure_s})")
    if not 0 <= settings.interval_s <= 3600:
        raise UsageError(f"--interval must be between 0 and 3600 seconds (got {interval_s})")
    if not 0 <= settings.mix_read_pct <= 100:
        raise UsageError(f"--mix must be a read percentage from 0 to 100 (got {mix_read_pct})")
    if settings.data not in DATA_CHOICES:
        raise UsageError(f"--data must be random or zero (got {data!r})")
    if not settings.ioengine.replace("_", "").isalnum():
        raise UsageError(f"--ioengine {ioengine!r} is not an ioengine name")
    return settings


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


def settings_pairs(settings: QuickSettings) -> tuple[tuple[str, SettingValue], ...]:
    """A quick run's settings as a plan records them (the stored settings of every quick run)."""
    return tuple((f.name, getattr(settings, f.name)) for f in fields(QuickSettings))


def settings_from_values(settings: Settings | Sequence[tuple[str, SettingValue]]) -> QuickSettings:
    """Resolved quick settings given as a profile's settings (by QuickSettings' field names)."""
    values = dict(settings.items() if isinstance(settings, Mapping) else settings)
    return QuickSettings(
        preset=str(values["preset"]),
        size_bytes=int(str(values["size_bytes"])),
        count=int(str(values["count"])),
        measure_s=float(str(values["measure_s"])),
        interval_s=float(str(values["interval_s"])),
        mode=str(values["mode"]),
        mix_read_pct=int(str(values["mix_read_pct"])),
        data=str(values["data"]),
        ioengine=str(values["ioengine"]),
        direct_io=bool(values["direct_io"]),
    )


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
    """The quick profile's planner: resolved settings (see `resolve_settings`) on a target;
    the test region is filled first when the target needs it."""
    return plan_quick(
        load_quick_profile(),
        settings_from_values(settings),
        target_path=target.path,
        target_kind=target.kind,
        fill=target.needs_fill,
    )
