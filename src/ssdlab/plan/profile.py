"""What every profile's planner shares: settings from the option table, and common fio options."""

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from ssdlab.errors import UsageError
from ssdlab.model.plan import FioJob, Options
from ssdlab.model.profile import (
    OptionKind,
    OptionSpec,
    PlanTarget,
    ProfilePlan,
    ProfileSpec,
    ProfileStep,
    RoundLoop,
    SettingValue,
    StepRole,
)
from ssdlab.model.typed_settings import decode_settings
from ssdlab.model.units import MiB, format_size
from ssdlab.plan.jobfile import check_fio_path

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

DEFAULT_IOENGINE = "libaio"
S = TypeVar("S", bound="DataclassInstance")  # a profile's settings class


def _shown(value: float) -> str:
    """A number for a message; `:g` overflows on a whole number beyond any float."""
    text = str(value) if isinstance(value, int) else f"{value:g}"
    return text if len(text) <= 24 else f"{text[:12]}…({len(text)} digits)"


def _check_number(option: OptionSpec, value: float) -> None:
    if option.minimum is not None and value < option.minimum:
        raise UsageError(f"{option.flag} must be at least {option.minimum:g} (got {_shown(value)})")
    if option.maximum is not None and value > option.maximum:
        raise UsageError(f"{option.flag} must be at most {option.maximum:g} (got {_shown(value)})")


def _check_value(option: OptionSpec, value: SettingValue) -> None:
    if value is None:
        return
    if option.kind is OptionKind.CHOICE and value not in option.choices:
        raise UsageError(f"{option.flag} must be one of {', '.join(option.choices)} (got {value})")
    if isinstance(value, tuple):
        if not value:
            raise UsageError(f"{option.flag} needs at least one value")
        for item in value:
            _check_number(option, item)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        _check_number(option, value)


def resolve_profile_settings(
    spec: ProfileSpec, given: Mapping[str, SettingValue]
) -> tuple[tuple[str, SettingValue], ...]:
    """Every option of the profile, in table order: the given value, else the default.

    Raises UsageError naming the option for a value outside its range or choices, and
    ValueError for a name the profile does not have (a programming error).
    """
    unknown = set(given) - {option.name for option in spec.options}
    if unknown:
        raise ValueError(f"profile {spec.name} has no option(s) {', '.join(sorted(unknown))}")
    settings: list[tuple[str, SettingValue]] = []
    for option in spec.options:
        value = given.get(option.name)
        if value is None:
            value = option.default
        _check_value(option, value)
        settings.append((option.name, value))
    return tuple(settings)


def start_plan(
    spec: ProfileSpec, kind: type[S], given: Mapping[str, SettingValue], target: PlanTarget
) -> tuple[tuple[tuple[str, SettingValue], ...], S]:
    """What every planner does first: check the target path fio will be given, resolve the
    profile's settings (refusing bad values), and decode them into its settings class `kind`
    (the table's `settings_type`). The pairs are what the plan stores."""
    if kind is not spec.settings_type:
        raise ValueError(f"profile {spec.name} fills {spec.settings_type}, not {kind}")
    check_fio_path(target.path)
    settings = resolve_profile_settings(spec, given)
    return settings, decode_settings(kind, settings)


def check_ioengine(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise UsageError(f"--ioengine {name!r} is not an ioengine name")
    return name


def target_options(target: PlanTarget, ioengine: str, *, direct_io: bool | None = None) -> Options:
    """filename, ioengine and direct: the first lines of every job file."""
    direct = target.direct_io if direct_io is None else direct_io
    return (
        ("filename", target.path),
        ("ioengine", ioengine),
        ("direct", "1" if direct else "0"),
    )


def log_options(
    prefix: str, interval_ms: int, kinds: tuple[str, ...] = ("bw", "iops", "lat")
) -> Options:
    """Per-interval logs fio writes next to the job file, averaged over `interval_ms`."""
    return (
        *((f"write_{kind}_log", prefix) for kind in kinds),
        ("log_avg_msec", str(interval_ms)),
    )


def format_runtime(seconds: float) -> str:
    """fio time value: whole seconds as '5', anything else in milliseconds as '500ms'."""
    if seconds == int(seconds):
        return str(int(seconds))
    return f"{round(seconds * 1000)}ms"


def fill_job(
    path: str,
    size_bytes: int,
    ioengine: str,
    *,
    direct_io: bool,
    zero: bool = False,
    offset_bytes: int = 0,
) -> FioJob:
    """Write `size_bytes` from `offset_bytes` once, 1 MiB at a time, with fresh random data for
    every write (incompressible) or zeros, preallocating a file first."""
    options: list[tuple[str, str]] = [
        ("filename", path),
        ("ioengine", ioengine),
        ("direct", "1" if direct_io else "0"),
    ]
    if offset_bytes:
        options.append(("offset", str(offset_bytes)))
    options += [
        ("size", str(size_bytes)),
        ("fallocate", "native"),
        ("zero_buffers", "") if zero else ("refill_buffers", ""),
        ("end_fsync", "1"),
    ]
    section = (("rw", "write"), ("bs", str(MiB)), ("iodepth", "8"), ("numjobs", "1"))
    return FioJob(global_options=tuple(options), sections=(("prepare", section),))


def region_bytes(target: PlanTarget, requested: int | None, *, align_bytes: int = MiB) -> int:
    """The test region: what was asked for (or the target's size), rounded down to whole MiB."""
    size = requested if requested is not None else target.size_bytes
    if target.capacity_bytes is not None and size > target.capacity_bytes:
        raise UsageError(
            f"--size {format_size(size)} is larger than {target.path} "
            f"({format_size(target.capacity_bytes)})"
        )
    region = size // align_bytes * align_bytes
    if region < align_bytes:
        raise UsageError(f"--size must be at least {format_size(align_bytes)}")
    return region


def fill_step(
    target: PlanTarget,
    size_bytes: int,
    *,
    key: str = "fill",
    label: str = "write the test file once",
    offset_bytes: int = 0,
    params: tuple[tuple[str, SettingValue], ...] = (),
) -> ProfileStep:
    """A prepare step that writes `size_bytes` once (random data, 1 MiB at a time)."""
    return ProfileStep(
        key=key,
        label=label,
        role=StepRole.PREPARE,
        job=fill_job(
            target.path,
            size_bytes,
            DEFAULT_IOENGINE,
            direct_io=target.direct_io,
            offset_bytes=offset_bytes,
        ),
        params=params,
        log_interval_ms=None,
        expected_bytes=size_bytes,
    )


def discard_step(target: PlanTarget, region: int) -> ProfileStep:
    """A prepare step that discards `region` bytes from the start (fio trim, 64 MiB at a
    time, or the region at once when smaller), so the drive holds nothing there: the `fill`
    profile's start, and the `cache` profile's with --prefill."""
    options = (*target_options(target, DEFAULT_IOENGINE), ("size", str(region)))
    # fio refuses a block larger than the job's size: a region under 64 MiB in one trim
    section = (("rw", "trim"), ("bs", str(min(64 * MiB, region))), ("iodepth", "8"))
    return ProfileStep(
        key="discard",
        label="discard the region so the drive starts empty",
        role=StepRole.PREPARE,
        direction="trim",
        job=FioJob(global_options=options, sections=(("discard", section),)),
        log_interval_ms=None,
        expected_bytes=region,
    )


def timed_random_options(runtime_s: float) -> Options:
    """A time-based job over random offsets with fresh random data for every write."""
    return (
        ("time_based", ""),
        ("runtime", format_runtime(runtime_s)),
        ("norandommap", ""),
        ("randrepeat", "0"),
        ("refill_buffers", ""),
    )


def profile_plan(
    spec: ProfileSpec,
    settings: tuple[tuple[str, SettingValue], ...],
    target: PlanTarget,
    steps: Sequence[ProfileStep],
    *,
    destructive: bool,
    notes: Sequence[str] = (),
    loops: Sequence[RoundLoop] = (),
    after: Sequence[ProfileStep] = (),
) -> ProfilePlan:
    """The plan of a profile: its steps, then its round loops (a profile's repeats), then the
    steps after them."""
    return ProfilePlan(
        profile=spec.name,
        profile_version=spec.version,
        settings=settings,
        target_path=target.path,
        target_kind=target.kind,
        destructive=destructive,
        steps=tuple(steps),
        notes=tuple(notes),
        loops=tuple(loops),
        after=tuple(after),
    )


def repeat_loop(
    steps: Sequence[ProfileStep],
    repeat: int,
    *,
    name: str = "",
    before: Sequence[ProfileStep] = (),
) -> RoundLoop:
    """`steps` run `repeat` times over, as rounds: every round is one repeat of each of them, in
    plan order, so a drift over the run touches every measurement alike; a run stopped in a
    round resumes at that round (finished rounds are kept). No check ends it early. `before`
    runs once, before the first round."""
    return RoundLoop(
        steps=tuple(steps),
        max_rounds=repeat,
        min_rounds=repeat,
        name=name,
        before=tuple(before),
    )


class RandomWrites(Protocol):
    """The settings of a timed random-write measurement (profiles/random_writes.py): fill's
    and trim's."""

    @property
    def runtime(self) -> float: ...  # seconds

    @property
    def block_size(self) -> int: ...  # bytes

    @property
    def iodepth(self) -> int: ...


def random_write_step(
    target: PlanTarget,
    key: str,
    label: str,
    size_bytes: int,
    settings: RandomWrites,
    params: tuple[tuple[str, SettingValue], ...] = (),
) -> ProfileStep:
    """Random writes over the first `size_bytes` for --runtime, at --block-size and --iodepth
    (the options of profiles/random_writes.py)."""
    runtime = settings.runtime
    options = (
        *target_options(target, DEFAULT_IOENGINE),
        ("size", str(size_bytes)),
        *timed_random_options(runtime),
        ("group_reporting", ""),
    )
    section = (
        ("rw", "randwrite"),
        ("bs", str(settings.block_size)),
        ("iodepth", str(settings.iodepth)),
        ("numjobs", "1"),
    )
    return ProfileStep(
        key=key,
        label=label,
        role=StepRole.MEASURE,
        direction="write",
        job=FioJob(global_options=options, sections=((key, section),)),
        params=params,
        log_interval_ms=None,
        expected_s=runtime,
    )
