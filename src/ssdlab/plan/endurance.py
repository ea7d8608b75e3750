"""Plan the `endurance` profile: one fio iteration, repeated in a round loop until a stop
condition or a safety limit ends the run.

Every iteration is the same job file (bounded by time or by bytes), with fresh random data for
every write (`refill_buffers`, incompressible) and random offsets that are not repeated from one
iteration to the next (`randrepeat=0`), so a drive cannot make an endurance run cheaper by
compressing or deduplicating.
"""

from ssdlab.errors import ParseError, UsageError
from ssdlab.model.plan import FioJob, Options
from ssdlab.model.profile import (
    PlanTarget,
    ProfilePlan,
    ProfileStep,
    RoundLoop,
    Settings,
    SettingValue,
    StepRole,
)
from ssdlab.model.profile_settings import EnduranceSettings
from ssdlab.model.units import KiB, format_decimal_bytes
from ssdlab.plan.profile import (
    DEFAULT_IOENGINE,
    format_runtime,
    log_options,
    region_bytes,
    start_plan,
    target_options,
)
from ssdlab.plan.user_job import job_writes, parse_fio_jobfile
from ssdlab.profiles.endurance import (
    BYTE_BOUNDED,
    CLIENT_TRIM_BYTES,
    CLIENT_TRIM_FRACTION,
    CLIENT_WRITES,
    CLIENT_ZONES,
    DEFAULT_ITERATION_S,
    JESD219_LARGE,
    JESD219_SMALL,
    JESD219_ZONES,
    MAX_DEFAULT_ITERATION_BYTES,
    MAX_ITERATIONS,
    SPEC,
)

STEP_KEY = "iteration"
# fio stops a byte-bounded random job after io_size bytes; number_ios bounds the JESD219 jobs,
# so io_size is set far above what they write.
_UNBOUNDED_IO_SIZE = "1000000000000000"


def bssplit(mix: tuple[tuple[int, float], ...]) -> str:
    """fio's bssplit value with the shares scaled to 100 % (fio takes decimal percentages)."""
    total = sum(share for _, share in mix)
    parts = []
    for size, share in mix:
        pct = round(100.0 * share / total, 4)
        parts.append(f"{size}/{pct:g}")
    return ":".join(parts)


def mean_transfer_bytes(mix: tuple[tuple[int, float], ...]) -> float:
    total = sum(share for _, share in mix)
    return sum(size * share for size, share in mix) / total


def _common(target: PlanTarget, region: int) -> Options:
    return (
        *target_options(target, DEFAULT_IOENGINE),
        ("size", str(region)),
        ("norandommap", ""),
        ("randrepeat", "0"),
        ("refill_buffers", ""),
        ("group_reporting", ""),  # several jobs (JESD219's two) are one iteration's writes
    )


def _bound(iteration_s: float | None, iteration_bytes: int | None) -> Options:
    if iteration_s is not None:
        return (("time_based", ""), ("runtime", format_runtime(iteration_s)))
    assert iteration_bytes is not None
    return (("io_size", str(iteration_bytes)),)


def _jesd219_enterprise(iteration_bytes: int, iodepth: int) -> tuple[tuple[str, Options], ...]:
    """Two jobs in the JESD219 I/O ratio (10 % of I/Os below 4 KiB, 512-byte aligned; 90 % of
    4 KiB and more, 4 KiB aligned), each bounded by its number of I/Os."""
    small_share = sum(share for _, share in JESD219_SMALL)
    large_share = sum(share for _, share in JESD219_LARGE)
    per_io = (
        small_share * mean_transfer_bytes(JESD219_SMALL)
        + large_share * mean_transfer_bytes(JESD219_LARGE)
    ) / (small_share + large_share)
    total_ios = max(10, round(iteration_bytes / per_io))
    small_ios = max(1, round(total_ios * small_share / (small_share + large_share)))
    small_depth = max(1, round(iodepth * small_share / 100))
    common = (("rw", "randwrite"), ("random_distribution", JESD219_ZONES))
    return (
        (
            "sub4k",
            (*common, ("bssplit", bssplit(JESD219_SMALL)), ("blockalign", "512"),
             ("iodepth", str(small_depth)), ("number_ios", str(small_ios))),
        ),
        (
            "large",
            (*common, ("bssplit", bssplit(JESD219_LARGE)), ("blockalign", str(4 * KiB)),
             ("iodepth", str(max(1, iodepth - small_depth))),
             ("number_ios", str(total_ios - small_ios))),
        ),
    )  # fmt: skip


def _jesd219_client(
    target: PlanTarget, iteration_bytes: int, iodepth: int
) -> tuple[tuple[str, Options], ...]:
    """ssdlab's client approximation: skewed mixed-size writes, plus TRIM on block devices."""
    writes: Options = (
        ("rw", "randwrite"),
        ("random_distribution", CLIENT_ZONES),
        ("bssplit", bssplit(CLIENT_WRITES)),
        ("blockalign", str(4 * KiB)),
        ("iodepth", str(iodepth)),
        ("io_size", str(iteration_bytes)),
    )
    jobs: list[tuple[str, Options]] = [("writes", writes)]
    if target.kind == "device":
        trims = max(1, round(iteration_bytes * CLIENT_TRIM_FRACTION / CLIENT_TRIM_BYTES))
        trim: Options = (
            ("rw", "randtrim"),
            ("bs", str(CLIENT_TRIM_BYTES)),
            ("iodepth", "1"),
            ("number_ios", str(trims)),
        )
        jobs.append(("trims", trim))
    return tuple(jobs)


def _user_jobs(settings: EnduranceSettings) -> tuple[Options, tuple[tuple[str, Options], ...]]:
    text = settings.job_text
    if text is None or not text.strip():
        raise UsageError("--workload job needs --job-file FILE (your fio job file)")
    try:
        job = parse_fio_jobfile(text)
    except ParseError as error:
        raise UsageError(f"the job file {settings.job_file}: {error}") from None
    if not job_writes(job):
        raise UsageError(
            f"the job file {settings.job_file} does not write (no rw= of a write kind); an "
            "endurance run needs writes"
        )
    return job.global_options, job.sections


def iteration_bound(settings: EnduranceSettings, region: int) -> tuple[float | None, int | None]:
    """(seconds, bytes) of one iteration: exactly one of them is set."""
    workload = settings.workload
    seconds = settings.iteration_time
    size = settings.iteration_bytes
    if seconds is not None and size is not None:
        raise UsageError("give --iteration-time or --iteration-bytes, not both")
    if workload in BYTE_BOUNDED:
        if seconds is not None:
            raise UsageError(
                f"{workload} iterations are bounded by bytes, so that its jobs keep their "
                "ratio of I/Os; give --iteration-bytes instead of --iteration-time"
            )
        return None, size or min(region, MAX_DEFAULT_ITERATION_BYTES)
    if seconds is None and size is None:
        return DEFAULT_ITERATION_S, None
    return seconds, size


def _stop_words(settings: EnduranceSettings) -> str:
    words = []
    if settings.for_time is not None:
        words.append(f"after {settings.for_time} s of writing")
    if settings.until_written is not None:
        words.append(f"at {format_decimal_bytes(settings.until_written)} written")
    wear = settings.until_wear
    if wear is not None:
        words.append(f"when wear rose by {wear:g} points")
    words.append("on a safety limit (temperature, new media errors, SMART failure, end of life)")
    return "; ".join(words)


def plan_endurance(given: Settings, target: PlanTarget) -> ProfilePlan:
    pairs, settings = start_plan(SPEC, EnduranceSettings, given, target)
    workload = settings.workload
    region = region_bytes(target, None)
    iteration_s, iteration_bytes = iteration_bound(settings, region)
    iodepth = settings.iodepth
    log_ms = max(1, round(settings.log_interval * 1000))
    notes: list[str] = []
    globals_: Options = (*_common(target, region), *log_options(STEP_KEY, log_ms, ("bw",)))
    sections: tuple[tuple[str, Options], ...]
    if workload == "jesd219-enterprise":
        if target.logical_block_bytes not in (None, 512):
            raise UsageError(
                f"jesd219-enterprise writes 512-byte transfers, but {target.path} has "
                f"{target.logical_block_bytes}-byte logical blocks; use randwrite-4k or "
                "reformat the drive with a 512-byte LBA format"
            )
        globals_ = (*globals_, ("io_size", _UNBOUNDED_IO_SIZE))
        assert iteration_bytes is not None
        sections = _jesd219_enterprise(iteration_bytes, iodepth)
    elif workload == "jesd219-client":
        assert iteration_bytes is not None
        sections = _jesd219_client(target, iteration_bytes, iodepth)
        notes.append(
            "jesd219-client is ssdlab's approximation of the JESD219A client workload (a trace "
            "JEDEC does not publish): see docs/endurance.md"
        )
        if target.kind == "file":
            notes.append("on a file target the client workload writes only: fio cannot trim files")
    elif workload == "job":
        extra_globals, sections = _user_jobs(settings)
        globals_ = (*globals_, *extra_globals, *_bound(iteration_s, iteration_bytes))
    else:
        rw, bs = ("randwrite", 4 * KiB) if workload == "randwrite-4k" else ("write", 128 * KiB)
        section: Options = (
            ("rw", rw),
            ("bs", str(bs)),
            ("iodepth", str(iodepth)),
            ("numjobs", "1"),
        )
        globals_ = (*globals_, *_bound(iteration_s, iteration_bytes))
        sections = (("writes", section),)
    if target.kind == "file":
        notes.append(
            "on a file the writes go through the file system: the drive's WAF and wear include "
            "its metadata writes, and other files on the drive share its wear"
        )
    params: tuple[tuple[str, SettingValue], ...] = (
        ("workload", workload),
        ("iteration_s", iteration_s),
        ("iteration_bytes", iteration_bytes),
        ("region_bytes", region),
    )
    step = ProfileStep(
        key=STEP_KEY,
        label=f"{workload} iteration",
        role=StepRole.MEASURE,
        direction="write",
        job=FioJob(global_options=globals_, sections=sections),
        params=params,
        log_interval_ms=log_ms,
        expected_s=iteration_s,
        expected_bytes=iteration_bytes,
    )
    loop = RoundLoop(
        steps=(step,),
        max_rounds=MAX_ITERATIONS,
        min_rounds=1,
        check=_stop_words(settings),
        name="",
    )
    return ProfilePlan(
        profile=SPEC.name,
        profile_version=SPEC.version,
        settings=pairs,
        target_path=target.path,
        target_kind=target.kind,
        destructive=target.kind == "device",
        steps=(),
        notes=tuple(notes),
        loops=(loop,),
        params=params,
    )
