"""Plan the `sweep` profile: one time-based job per workload × threads × queue depth.

A cell runs `numjobs` = threads jobs at `iodepth` with group reporting, so its numbers are the
cell's total. A file target is written once first, so reads read real data; a read-only sweep
of a device reads whatever is on it and does not write.
"""

import re
from dataclasses import dataclass

from ssdlab.errors import UsageError
from ssdlab.model.plan import FioJob
from ssdlab.model.profile import PlanTarget, ProfilePlan, ProfileStep, Settings, StepRole
from ssdlab.model.profile_settings import SweepSettings
from ssdlab.model.units import format_block_label, parse_size_bytes
from ssdlab.plan.profile import (
    DEFAULT_IOENGINE,
    fill_step,
    format_runtime,
    profile_plan,
    region_bytes,
    repeat_loop,
    start_plan,
    target_options,
)
from ssdlab.profiles.sweep import SPEC

_PATTERN = re.compile(r"^(randread|randwrite|read|write|randrw(\d{1,2}))$")


@dataclass(frozen=True, slots=True)
class Workload:
    rw: str  # fio's rw
    rwmix_read_pct: int  # 100 reads only, 0 writes only
    block_size_bytes: int

    @property
    def key(self) -> str:
        mix = f"{self.rwmix_read_pct}" if self.rw == "randrw" else ""
        return f"{self.rw}{mix}-{format_block_label(self.block_size_bytes).lower()}"

    @property
    def label(self) -> str:
        if self.rw == "randrw":
            what = f"random {self.rwmix_read_pct}/{100 - self.rwmix_read_pct}"
        else:
            what = {"randread": "random read", "randwrite": "random write"}.get(self.rw, self.rw)
        return f"{format_block_label(self.block_size_bytes)} {what}"

    @property
    def writes(self) -> bool:
        return self.rwmix_read_pct < 100


def parse_workloads(text: str) -> tuple[Workload, ...]:
    """'randread:4KiB,randrw70:8KiB' → workloads; UsageError naming the bad part."""
    found = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        pattern, _, size = part.partition(":")
        match = _PATTERN.match(pattern)
        if match is None or not size:
            raise UsageError(
                f"--workloads: {part!r} is not PATTERN:BLOCK (e.g. randread:4KiB, randrw70:8KiB)"
            )
        try:
            block = parse_size_bytes(size)
        except ValueError as error:
            raise UsageError(f"--workloads: {part!r}: {error}") from None
        if block < 512 or block % 512:
            raise UsageError(f"--workloads: {part!r}: the block must be whole 512-byte sectors")
        if match.group(2) is not None:
            found.append(Workload("randrw", int(match.group(2)), block))
        else:
            reads = 100 if pattern in ("randread", "read") else 0
            found.append(Workload(pattern, reads, block))
    if not found:
        raise UsageError("--workloads names no workload")
    return tuple(found)


def _cell(
    target: PlanTarget,
    region: int,
    workload: Workload,
    threads: int,
    depth: int,
    settings: SweepSettings,
) -> ProfileStep:
    key = f"{workload.key}-t{threads}-q{depth}"
    runtime = settings.runtime
    ramp = settings.ramp
    options = [
        *target_options(target, DEFAULT_IOENGINE),
        ("size", str(region)),
        ("time_based", ""),
        ("runtime", format_runtime(runtime)),
        *((("ramp_time", format_runtime(ramp)),) if ramp else ()),
        ("norandommap", ""),
        ("randrepeat", "0"),
        ("refill_buffers", ""),
        ("group_reporting", ""),
        ("percentile_list", "50:99:99.9"),
    ]
    section = [("rw", workload.rw)]
    if workload.rw == "randrw":
        section.append(("rwmixread", str(workload.rwmix_read_pct)))
    section += [
        ("bs", str(workload.block_size_bytes)),
        ("numjobs", str(threads)),
        ("iodepth", str(depth)),
    ]
    return ProfileStep(
        key=key,
        label=f"{workload.label}, T{threads} Q{depth}",
        role=StepRole.MEASURE,
        direction="mix"
        if workload.rw == "randrw"
        else ("read" if not workload.writes else "write"),
        job=FioJob(global_options=tuple(options), sections=((key, tuple(section)),)),
        params=(
            ("workload", workload.key),
            ("threads", threads),
            ("iodepth", depth),
            ("block_size_bytes", workload.block_size_bytes),
            ("rwmix_read_pct", workload.rwmix_read_pct),
        ),
        log_interval_ms=None,
        expected_s=runtime + ramp,
    )


def plan_sweep(given: Settings, target: PlanTarget) -> ProfilePlan:
    pairs, settings = start_plan(SPEC, SweepSettings, given, target)
    workloads = parse_workloads(settings.workloads)
    region = region_bytes(target, None)
    threads = sorted(set(settings.threads))
    depths = sorted(set(settings.iodepths))
    steps: list[ProfileStep] = []
    notes: list[str] = []
    if target.needs_fill:
        steps.append(fill_step(target, region))
    writes = any(w.writes for w in workloads)
    if target.kind == "device" and not writes:
        notes.append("read-only sweep: the device is read as it is, nothing is written")
    cells = [
        _cell(target, region, workload, t, q, settings)
        for workload in workloads
        for t in threads
        for q in depths
    ]
    repeat = settings.repeat
    loops = (repeat_loop(cells, repeat),) if repeat > 1 else ()
    return profile_plan(
        SPEC,
        pairs,
        target,
        steps if loops else [*steps, *cells],
        destructive=target.kind == "device" and writes,
        notes=notes,
        loops=loops,
    )
