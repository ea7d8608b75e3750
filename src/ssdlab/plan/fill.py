"""Plan the `fill` profile: discard, then for each level a sequential fill up to it and random
writes confined to the written span.

Confining the random writes to [0, level × region) keeps the rest of the drive unwritten (and
discarded), which is exactly the extra over-provisioning a less full drive has. Levels run in
ascending order, so each fill only writes the span between the previous level and this one.
With --repeat N each level is a round loop: its fill once, then its random writes N times.
"""

from ssdlab.errors import UsageError
from ssdlab.model.profile import (
    PlanTarget,
    ProfilePlan,
    ProfileStep,
    RoundLoop,
    Settings,
)
from ssdlab.model.profile_settings import FillSettings
from ssdlab.plan.profile import (
    discard_step,
    fill_step,
    profile_plan,
    random_write_step,
    region_bytes,
    repeat_loop,
    start_plan,
)
from ssdlab.profiles.fill import SPEC

ALIGN_BYTES = 1024 * 1024


def plan_fill(given: Settings, target: PlanTarget) -> ProfilePlan:
    pairs, settings = start_plan(SPEC, FillSettings, given, target)
    region = region_bytes(target, None)
    levels = sorted(set(settings.levels))
    if not levels or levels[-1] > 99:
        raise UsageError(
            "--levels must be percentages from 0 to 99 (a full drive has no free span)"
        )
    notes: list[str] = []
    steps: list[ProfileStep] = []
    if target.kind == "device":
        if target.discard_supported is False:
            notes.append(
                "the device does not support discard: it cannot start empty, so the "
                "free part holds old data and the levels show less than they would"
            )
        else:
            steps.append(discard_step(target, region))
    else:
        notes.append(
            "on a file the levels are of the test file; the drive's free space is the "
            "file system's, so this shows the file system's behaviour, not the drive's"
        )
    filled = 0
    loops: list[RoundLoop] = []
    for level in levels:
        span = region * level // 100 // ALIGN_BYTES * ALIGN_BYTES
        before: list[ProfileStep] = []
        if span > filled:
            before.append(
                fill_step(
                    target,
                    span - filled,
                    key=f"fill-{level}",
                    label=f"fill to {level} %",
                    offset_bytes=filled,
                    params=(("level_pct", level), ("offset_bytes", filled)),
                )
            )
            filled = span
        if level == 0:
            notes.append(
                "0 %: random writes over the whole region of the empty drive "
                "(fresh-out-of-box); they fill some of it as they run"
            )
        elif span == 0:
            raise UsageError(f"--levels {level}: {level} % of the region is less than 1 MiB")
        measure = random_write_step(
            target,
            f"randwrite-{level}",
            f"random writes at {level} % full",
            span or region,
            settings,
            (("level_pct", level), ("span_bytes", span)),
        )
        if settings.repeat > 1:  # the level's random writes repeated after its one fill
            loops.append(repeat_loop((measure,), settings.repeat, name=f"level-{level}",
                                     before=before))  # fmt: skip
        else:
            steps += [*before, measure]
    return profile_plan(
        SPEC, pairs, target, steps, destructive=target.kind == "device", notes=notes, loops=loops
    )
