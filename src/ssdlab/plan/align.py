"""Plan the `align` profile: one time-based random-write job per block size and alignment.

Aligned runs use `blockalign=4096` (offsets on 4 KiB boundaries; larger blocks too).
Misaligned runs add `offset=<misalign>` to the same 4 KiB grid, so *every* write starts
`misalign` bytes past a 4 KiB boundary (fio's own `blockalign=512` would leave one write in
eight aligned by chance). Block sizes below the device's logical sector cannot be written
with direct I/O and are left out with a note.
"""

from ssdlab.errors import UsageError
from ssdlab.model.plan import FioJob
from ssdlab.model.profile import PlanTarget, ProfilePlan, ProfileStep, Settings, StepRole
from ssdlab.model.profile_settings import AlignSettings
from ssdlab.model.units import KiB, format_block_label
from ssdlab.plan.profile import (
    DEFAULT_IOENGINE,
    fill_step,
    format_runtime,
    log_options,
    profile_plan,
    region_bytes,
    repeat_loop,
    start_plan,
    target_options,
)
from ssdlab.profiles.align import SPEC

UNIT_BYTES = 4 * KiB
LOG_INTERVAL_MS = 1000


def _job(
    target: PlanTarget, region: int, bs: int, shift: int, runtime_s: float, iodepth: int, key: str
) -> FioJob:
    options = [
        *target_options(target, DEFAULT_IOENGINE),
        *((("offset", str(shift)),) if shift else ()),
        ("size", str(region - UNIT_BYTES)),
        ("time_based", ""),
        ("runtime", format_runtime(runtime_s)),
        ("randrepeat", "0"),
        ("norandommap", ""),
        ("group_reporting", ""),
        *log_options(key, LOG_INTERVAL_MS, ("iops", "lat")),
    ]
    section = (
        ("rw", "randwrite"),
        ("bs", str(bs)),
        ("blockalign", str(max(bs, UNIT_BYTES) if bs % UNIT_BYTES == 0 else UNIT_BYTES)),
        ("iodepth", str(iodepth)),
        ("numjobs", "1"),
    )
    return FioJob(global_options=tuple(options), sections=((key, section),))


def plan_align(given: Settings, target: PlanTarget) -> ProfilePlan:
    pairs, settings = start_plan(SPEC, AlignSettings, given, target)
    region = region_bytes(target, None)
    runtime_s = settings.runtime
    iodepth = settings.iodepth
    shift = settings.misalign
    sizes = settings.block_sizes
    if shift % 512:
        raise UsageError(f"--misalign must be a multiple of 512 bytes (got {shift})")
    notes: list[str] = []
    smallest = target.logical_block_bytes or 512
    steps: list[ProfileStep] = []
    measured: list[ProfileStep] = []
    if target.needs_fill:
        steps.append(fill_step(target, region))
    for bs in sorted(set(sizes)):
        if bs < smallest or bs % 512:
            notes.append(
                f"{format_block_label(bs)} B writes left out: the target's logical sector is "
                f"{smallest} bytes, the smallest direct write"
            )
            continue
        for aligned in (True, False):
            label_bs = format_block_label(bs)
            key = f"bs{label_bs.lower()}-{'aligned' if aligned else f'off{shift}'}"
            where = "4 KiB-aligned" if aligned else f"4 KiB + {shift} B offsets"
            measured.append(
                ProfileStep(
                    key=key,
                    label=f"{label_bs} random writes, {where}",
                    role=StepRole.MEASURE,
                    direction="write",
                    job=_job(target, region, bs, 0 if aligned else shift, runtime_s, iodepth, key),
                    params=(
                        ("block_size_bytes", bs),
                        ("offset_align_bytes", UNIT_BYTES if aligned else shift),
                    ),
                    log_interval_ms=LOG_INTERVAL_MS,
                    expected_s=runtime_s,
                )
            )
    repeat = settings.repeat
    loops = (repeat_loop(measured, repeat),) if repeat > 1 else ()
    return profile_plan(
        SPEC,
        pairs,
        target,
        steps if loops else [*steps, *measured],
        destructive=target.kind == "device",
        notes=notes,
        loops=loops,
    )
