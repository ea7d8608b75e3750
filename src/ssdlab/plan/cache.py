"""Plan the `cache` profile: one size-bound write with a bandwidth log and a histogram log at
the same interval (its exact bytes over time: parse/fio_hist_series.py), and an optional idle
pause and second write (the recovery probe).

The write is bound by bytes, not time, so a cache of any size is passed; progress comes from
fio's own status lines. Every write has fresh random data (`refill_buffers`), so a drive that
compresses or deduplicates cannot make its cache look bigger. `--rate` caps both writes at that
many bytes per second (fio `rate=`): the log then has about size / rate / interval points
whatever the target's speed. `--repeat N` writes the region N times, each write after the
first --recovery-idle after the one before (the write steps share their key, by pass).
`--prefill P` puts a discard of the region and a sequential write of its first P % (and
`--prefill-idle` seconds of idle) before the first write: the fill level the cache is measured
at, which `ssdlab model fit` reads from the stored settings to tell the cache's kind.
"""

from dataclasses import replace

from ssdlab.errors import UsageError
from ssdlab.model.plan import FioJob
from ssdlab.model.profile import (
    HIST_LOG,
    WRITE_SERIES,
    PlanTarget,
    ProfilePlan,
    ProfileStep,
    Settings,
    StepRole,
)
from ssdlab.model.profile_settings import CacheSettings
from ssdlab.model.units import MiB
from ssdlab.plan.profile import (
    DEFAULT_IOENGINE,
    discard_step,
    fill_step,
    log_options,
    profile_plan,
    region_bytes,
    start_plan,
    target_options,
)
from ssdlab.profiles.cache import DEFAULT_BLOCK, SPEC


def _write_job(
    target: PlanTarget,
    key: str,
    size: int,
    rw: str,
    bs: int,
    iodepth: int,
    log_ms: int,
    rate: int | None,
) -> FioJob:
    options = (
        *target_options(target, DEFAULT_IOENGINE),
        ("size", str(size)),
        ("refill_buffers", ""),
        ("norandommap", ""),
        ("randrepeat", "0"),
        *log_options(key, log_ms, ("bw",)),
        # the exact bytes-over-time series (analysis/write_series.py)
        ("write_hist_log", key),
        ("log_hist_msec", str(log_ms)),
    )
    section: tuple[tuple[str, str], ...] = (
        ("rw", rw),
        ("bs", str(bs)),
        ("iodepth", str(iodepth)),
        ("numjobs", "1"),
    )
    if rate is not None:
        section = (*section, ("rate", str(rate)))
    return FioJob(global_options=options, sections=((key, section),))


def _write_step(
    target: PlanTarget, key: str, label: str, size: int, settings: CacheSettings, log_ms: int
) -> ProfileStep:
    pattern = settings.pattern
    bs = settings.block_size or DEFAULT_BLOCK[pattern]
    rw = "write" if pattern == "seq" else "randwrite"
    rate = settings.rate
    return ProfileStep(
        key=key,
        label=label,
        role=StepRole.MEASURE,
        direction="write",
        job=_write_job(target, key, size, rw, bs, settings.iodepth, log_ms, rate),
        params=(
            ("block_size_bytes", bs),
            ("pattern", pattern),
            ("size_bytes", size),
            *((("rate_bytes_per_s", rate),) if rate is not None else ()),
            (WRITE_SERIES, HIST_LOG),
        ),
        log_interval_ms=log_ms,
        expected_bytes=size,
    )


def _idle_step(key: str, seconds: float, what: str) -> ProfileStep:
    return ProfileStep(
        key=key,
        label=f"idle {seconds:g} s so the drive can empty {what}",
        role=StepRole.IDLE,
        direction="idle",
        idle_s=seconds,
        log_interval_ms=None,
    )


def plan_cache(given: Settings, target: PlanTarget) -> ProfilePlan:
    pairs, settings = start_plan(SPEC, CacheSettings, given, target)
    region = region_bytes(target, None)
    log_ms = max(1, round(settings.log_interval * 1000))
    pattern = settings.pattern
    first = _write_step(target, "write", f"sustained {pattern} write", region, settings, log_ms)
    idle = settings.recovery_idle
    repeat = settings.repeat
    steps = [first]
    if repeat > 1:  # the writes share the step's key, by their pass (1, 2, …)
        steps = [
            replace(first, round_index=number, pause_before_s=0.0 if number == 1 else idle or 0.0)
            for number in range(1, repeat + 1)
        ]
    notes = []
    if idle is not None:
        probe = min(settings.recovery_size or region, region)
        steps.append(_idle_step("idle", idle, "its cache"))
        steps.append(
            _write_step(target, "probe", f"recovery {pattern} write", probe, settings, log_ms)
        )
    rate = settings.rate
    if rate is not None:
        notes.append(
            f"writes capped at {rate:,} bytes/s (fio rate=): a drive that empties its cache "
            "while it is written this slowly may show a later cliff, or none"
        )
    if target.kind == "file":
        notes.append(
            "on a file the write goes through the file system, and the drive's free space is "
            "not controlled: the cache found is the one the file system lets through"
        )
    steps = [*_prefill_steps(target, region, settings, notes), *steps]
    return profile_plan(
        SPEC, pairs, target, steps, destructive=target.kind == "device", notes=notes
    )


PREFILL_ALIGN = MiB


def _prefill_steps(
    target: PlanTarget, region: int, settings: CacheSettings, notes: list[str]
) -> list[ProfileStep]:
    """--prefill P: discard the region (a device), write its first P % sequentially, idle
    --prefill-idle seconds; nothing without --prefill."""
    level = settings.prefill
    if level is None:
        if settings.prefill_idle is not None:
            raise UsageError("--prefill-idle waits after --prefill: give --prefill too")
        return []
    if level > 99:
        raise UsageError(
            f"--prefill {level}: at most 99 (a full drive leaves the write nothing to measure "
            "a cache in that is not an overwrite)"
        )
    steps: list[ProfileStep] = []
    if target.kind == "device":
        if target.discard_supported is False:
            raise UsageError(
                f"--prefill needs a device that takes discards: {target.path} does not, so "
                "the data already on it stays and the fill level would not be known; run "
                "without --prefill"
            )
        steps.append(discard_step(target, region))
    else:
        notes.append(
            "--prefill on a file: the level is of the test file; the drive's fill is the file "
            "system's, not this one"
        )
    span = region * level // 100 // PREFILL_ALIGN * PREFILL_ALIGN
    if span > 0:
        steps.append(
            fill_step(
                target,
                span,
                key="prefill",
                label=f"prefill: write {level} % of the region sequentially",
                params=(("level_pct", level), ("size_bytes", span)),
            )
        )
    idle = settings.prefill_idle
    if idle is not None:
        steps.append(_idle_step("prefill-idle", idle, "its cache of the prefill"))
    return steps
