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
) -> FioJob:
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
        if direction == "trim":
            section += [("ioengine", TRIM_ENGINE), ("iodepth", "1")]
        else:
            section.append(("iodepth", str(iodepth)))
        sections.append((f"{MEASURE_KEY}-{direction}", tuple(section)))
    return FioJob(global_options=options, sections=tuple(sections))


def plan_qos(given: Settings, target: PlanTarget) -> ProfilePlan:
    pairs, settings = start_plan(SPEC, QosSettings, given, target)
    workload = targets_of(settings)
    region = region_bytes(target, None)
    tb = (target.capacity_bytes or target.size_bytes) / TB
    notes: list[str] = []
    directions = tuple(d for d, _ in workload.rates_mib_s_per_tb)
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
    if target.needs_fill:
        steps.append(fill_step(target, region))
    steps.append(
        ProfileStep(
            key=MEASURE_KEY,
            label=f"{workload.name} at {tb:.4g} TB",
            role=StepRole.MEASURE,
            direction="mix" if len(directions) > 1 else directions[0],
            job=_job(target, region, workload, tb, directions, duration, iodepth),
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
    return profile_plan(
        SPEC, pairs, target, steps, destructive=target.kind == "device", notes=notes
    )
