"""Plan the `qos` profile: one fio job file with a job per direction of the workload, each at
its rate per TB of the target (`rate=` in bytes per second: MiB/s per TB × the target's TB,
10^12 bytes of the whole device, or of the file region on a file target), running together
for the duration. fio's json+ output keeps every completion latency in its histogram
(`clat_ns.bins`, 64 buckets per power of two), from which analysis/profiles/qos.py judges the
targets.

A workload may set its own queue depth and duration (OCP CTO-3: an hour at QD1), and a rate
may be unlimited. Otherwise the default duration is the longest any direction needs for its
deepest percentile to have 10 I/Os expected above it (10 / (1 − q) I/Os: 10^7 for p99.9999,
measurement-frontiers §3.5).
Trims run only on a device (fio cannot discard inside a file), through psync: fio's libaio
engine has no trim."""

import json
import math

from ssdlab.errors import UsageError
from ssdlab.model.plan import FioJob
from ssdlab.model.profile import PlanTarget, ProfilePlan, ProfileStep, Settings, StepRole
from ssdlab.model.profile_settings import QosSettings
from ssdlab.model.qos_targets import QosWorkload, qos_workload
from ssdlab.model.units import MiB
from ssdlab.plan.profile import (
    DEFAULT_IOENGINE,
    fill_step,
    format_runtime,
    profile_plan,
    region_bytes,
    start_plan,
    target_options,
)
from ssdlab.profiles.qos import SPEC, TARGETS_ORIGIN, shipped_targets

TB = 10**12
ABOVE = 10  # I/Os expected above the deepest percentile judged, for the default duration
TRIM_ENGINE = "psync"
RW = {"read": "randread", "write": "randwrite", "trim": "randtrim"}
MEASURE_KEY = "qos"
TRIM_KEY = "qos-trim"  # the baseline's reads with trims running (TRIM-6)
BURST_KEY = "qos-burst"  # a write burst (TRIM-7) ...
AFTER_BURST_KEY = "qos-after-burst"  # ... and the baseline's reads right after it
BURST_IODEPTH = 32


def targets_of(settings: QosSettings) -> QosWorkload:
    """The workload judged, from the buyer's file or ssdlab's; UsageError on a bad file."""
    text = settings.targets_text if settings.targets_text is not None else shipped_targets()
    origin = f"--targets {settings.targets}" if settings.targets_text else TARGETS_ORIGIN
    try:
        return qos_workload(text, origin, settings.workload)
    except ValueError as error:
        raise UsageError(str(error)) from None


def targets_json(workload: QosWorkload) -> str:
    """The targets judged, kept with the step (analysis/profiles/qos.py reads them back)."""
    return json.dumps([target.as_data() for target in workload.targets])


def rate_bytes(workload: QosWorkload, direction: str, tb: float) -> int:
    """fio's rate= of a direction: its MiB/s per TB × the target's TB, at least 1 byte/s."""
    return max(1, round(workload.rate(direction) * MiB * tb))


def needed_ios(percentile: float) -> int:
    """I/Os for ABOVE expected above the percentile."""
    return math.ceil(ABOVE / (round(100.0 - percentile, 9) / 100.0) - 1e-9)


def default_duration(workload: QosWorkload, tb: float, directions: tuple[str, ...]) -> float:
    """Seconds for every direction's deepest percentile to have its I/Os (at least 60)."""
    longest = 60.0
    for target in workload.targets:
        if target.percentile is None or target.direction not in directions:
            continue
        if math.isinf(workload.rate(target.direction)):
            continue  # unlimited: the workload's own duration_s, or --duration
        per_s = rate_bytes(workload, target.direction, tb) / workload.block_size_bytes
        longest = max(longest, needed_ios(target.percentile) / per_s)
    return float(math.ceil(longest))


def _job(
    target: PlanTarget,
    region: int,
    workload: QosWorkload,
    tb: float,
    directions: tuple[str, ...],
    duration_s: float,
    iodepth: int,
    *,
    split: bool = False,
) -> FioJob:
    """`split`: reads and writes on the region's first half, trims on its second, so that no
    read lands on a block just trimmed (a drive answers those without reading its flash)."""
    options = (
        *target_options(target, DEFAULT_IOENGINE),
        ("size", str(region)),
        ("bs", str(workload.block_size_bytes)),
        ("time_based", ""),
        ("runtime", format_runtime(duration_s)),
        ("norandommap", ""),
        ("randrepeat", "0"),
        ("refill_buffers", ""),
        ("group_reporting", ""),
    )
    sections = []
    for direction in directions:
        section: list[tuple[str, str]] = [("rw", RW[direction])]
        if not math.isinf(workload.rate(direction)):
            section.append(("rate", str(rate_bytes(workload, direction, tb))))
        half = region // 2 // workload.block_size_bytes * workload.block_size_bytes
        if split and direction == "trim":
            section += [("offset", str(half)), ("size", str(half))]
        elif split:
            section.append(("size", str(half)))
        if direction == "trim":
            section += [("ioengine", TRIM_ENGINE), ("iodepth", "1")]
        else:
            section.append(("iodepth", str(iodepth)))
        sections.append((f"{MEASURE_KEY}-{direction}", tuple(section)))
    return FioJob(global_options=options, sections=tuple(sections))


def _phase_steps(
    target: PlanTarget,
    region: int,
    workload: QosWorkload,
    tb: float,
    baseline: tuple[str, ...],
    duration: float,
    iodepth: int,
    notes: list[str],
) -> list[ProfileStep]:
    """The steps a change target compares with the baseline (OCP TRIM-6/7): its reads with
    trims running (a device only), and its reads right after a write burst as long."""
    phases = {t.phase for t in workload.targets if t.phase is not None}
    steps: list[ProfileStep] = []
    if "trim" in phases and target.kind != "device":
        notes.append("reads with trims running left out: fio cannot discard inside a file")
    elif "trim" in phases:
        if not workload.rate("trim"):
            raise UsageError(
                f"workload {workload.name} judges reads during trims: give it a trim rate"
            )
        job = _job(target, region, workload, tb, (*baseline, "trim"), duration, iodepth, split=True)
        steps.append(
            _measure(TRIM_KEY, f"{workload.name}: reads with trims running", job, duration)
        )
    if "burst" in phases:
        burst = FioJob(
            global_options=_job(target, region, workload, tb, (), duration, 1).global_options,
            sections=(("burst", (("rw", "randwrite"), ("iodepth", str(BURST_IODEPTH)))),),
        )
        label = f"{workload.name}: a write burst"
        steps.append(_measure(BURST_KEY, label, burst, duration, StepRole.PREPARE, "write"))
        job = _job(target, region, workload, tb, baseline, duration, iodepth, split=True)
        steps.append(
            _measure(AFTER_BURST_KEY, f"{workload.name}: reads after the burst", job, duration)
        )
    return steps


def _measure(
    key: str,
    label: str,
    job: FioJob,
    duration: float,
    role: StepRole = StepRole.MEASURE,
    direction: str = "mix",
) -> ProfileStep:
    """A timed fio step with no interval logs: its json+ histogram is what is judged."""
    return ProfileStep(
        key=key,
        label=label,
        role=role,
        direction=direction,
        job=job,
        log_interval_ms=None,
        expected_s=duration,
    )


def plan_qos(given: Settings, target: PlanTarget) -> ProfilePlan:
    pairs, settings = start_plan(SPEC, QosSettings, given, target)
    workload = targets_of(settings)
    region = region_bytes(target, None)
    tb = (target.capacity_bytes or target.size_bytes) / TB
    notes: list[str] = []
    directions = tuple(d for d, _ in workload.rates_mib_s_per_tb)
    phased = any(t.phase is not None for t in workload.targets)
    if phased:
        directions = tuple(d for d in directions if d != "trim")  # trims: their own phase
    if "trim" in directions and target.kind != "device":
        directions = tuple(d for d in directions if d != "trim")
        notes.append("trims left out: fio cannot discard inside a file (a device target trims)")
    if not directions:
        raise UsageError(f"workload {workload.name} has nothing to run on a file target")
    duration = (
        settings.duration or workload.duration_s or default_duration(workload, tb, directions)
    )
    iodepth = workload.iodepth or settings.iodepth
    steps: list[ProfileStep] = []
    if target.needs_fill or phased:  # TRIM-6/7 read written blocks, as a drive in use has them
        steps.append(fill_step(target, region))
    steps.append(
        ProfileStep(
            key=MEASURE_KEY,
            label=f"{workload.name} at {tb:.4g} TB",
            role=StepRole.MEASURE,
            direction="mix" if len(directions) > 1 else directions[0],
            job=_job(target, region, workload, tb, directions, duration, iodepth, split=phased),
            params=(
                ("workload", workload.name),
                ("capacity_tb", tb),
                ("duration_s", duration),
                ("directions", ",".join(directions)),
                ("targets", targets_json(workload)),
            ),
            log_interval_ms=None,
            expected_s=duration,
        )
    )
    if phased:
        steps += _phase_steps(target, region, workload, tb, directions, duration, iodepth, notes)
    return profile_plan(
        SPEC, pairs, target, steps, destructive=target.kind == "device", notes=notes
    )
