"""Plan the `trim` profile.

Device target, when it discards: (1) a pattern written to the first 16 MiB, discarded, then
read back by fio with `verify_pattern=0x00` and `continue_on_error=verify`, so fio counts the
blocks that did not come back as zeroes instead of failing; (2) the region written in full,
random writes over it (dirty), the region discarded, the same random writes again
(discarded), all of (2) --repeat times in rounds. fstrim, when asked, runs last on the mount
point the user named.
"""

from ssdlab.model.plan import FioJob
from ssdlab.model.profile import (
    PlanTarget,
    ProfilePlan,
    ProfileStep,
    RoundLoop,
    Settings,
    StepRole,
)
from ssdlab.model.profile_settings import TrimSettings
from ssdlab.model.units import MiB
from ssdlab.plan.profile import (
    DEFAULT_IOENGINE,
    fill_step,
    profile_plan,
    random_write_step,
    region_bytes,
    repeat_loop,
    start_plan,
    target_options,
)
from ssdlab.profiles.trim import SPEC, ZERO_CHECK_BYTES


def _job(
    target: PlanTarget,
    key: str,
    size: int,
    section: tuple[tuple[str, str], ...],
    extra: tuple[tuple[str, str], ...] = (),
) -> FioJob:
    options = (*target_options(target, DEFAULT_IOENGINE), ("size", str(size)), *extra)
    return FioJob(global_options=options, sections=((key, section),))


def _discard(target: PlanTarget, key: str, label: str, size: int) -> ProfileStep:
    return ProfileStep(
        key=key,
        label=label,
        role=StepRole.PREPARE,
        direction="trim",
        job=_job(
            target, key, size, (("rw", "trim"), ("bs", str(min(64 * MiB, size))), ("iodepth", "8"))
        ),
        log_interval_ms=None,
        expected_bytes=size,
    )


def _zero_check(target: PlanTarget) -> list[ProfileStep]:
    write = ProfileStep(
        key="pattern",
        label="write 0xab over the first 16 MiB",
        role=StepRole.PREPARE,
        job=_job(
            target,
            "pattern",
            ZERO_CHECK_BYTES,
            (("rw", "write"), ("bs", str(MiB))),
            (("buffer_pattern", "0xab"),),
        ),
        log_interval_ms=None,
        expected_bytes=ZERO_CHECK_BYTES,
    )
    read = ProfileStep(
        key="zero-check",
        label="read the discarded 16 MiB back, counting blocks that are not zeroes",
        role=StepRole.COMMAND,
        direction="command",
        command=(
            "fio",
            "--name=zero-check",
            f"--filename={target.path}",
            "--direct=1",
            "--rw=read",
            f"--bs={MiB}",
            f"--size={ZERO_CHECK_BYTES}",
            "--verify=pattern",
            "--verify_pattern=0x00",
            "--continue_on_error=verify",
            "--output-format=json",
        ),
        log_interval_ms=None,
    )
    return [
        write,
        _discard(target, "discard-pattern", "discard those 16 MiB", ZERO_CHECK_BYTES),
        read,
    ]


def plan_trim(given: Settings, target: PlanTarget) -> ProfilePlan:
    pairs, settings = start_plan(SPEC, TrimSettings, given, target)
    steps: list[ProfileStep] = []
    loops: list[RoundLoop] = []
    notes: list[str] = []
    writes = False
    if target.kind == "device" and target.discard_supported is False:
        notes.append(
            "the device does not support discard (discard_max_bytes is 0): there is "
            "nothing to measure but the facts"
        )
    elif target.kind == "device":
        writes = True
        region = region_bytes(target, None)
        steps += _zero_check(target)
        effect = [fill_step(target, region, label="write the region in full")]
        effect.append(
            random_write_step(
                target,
                "dirty",
                "random writes on the dirty region",
                region,
                settings,
                (("state", "dirty"),),
            )
        )
        effect.append(_discard(target, "discard", "discard the region", region))
        effect.append(
            random_write_step(
                target,
                "discarded",
                "random writes right after discard",
                region,
                settings,
                (("state", "discarded"),),
            )
        )
        if settings.repeat > 1:  # every round fills the region again, so it is dirty again
            loops.append(repeat_loop(effect, settings.repeat))
        else:
            steps += effect
    else:
        notes.append(
            "a file target: fio cannot discard inside a file, so only the discard "
            "facts of the device under it (and fstrim, with --fstrim) are measured"
        )
    mount = settings.fstrim
    after: list[ProfileStep] = []
    if mount is not None:
        (after if loops else steps).append(
            ProfileStep(
                key="fstrim",
                label=f"fstrim {mount}",
                role=StepRole.COMMAND,
                direction="command",
                command=("fstrim", "--verbose", mount),
                log_interval_ms=None,
            )
        )
    return profile_plan(
        SPEC, pairs, target, steps, destructive=writes, notes=notes, loops=loops, after=after
    )
