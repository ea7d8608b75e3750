"""Shared by the profile plan tests: fixed targets, and plans rendered as golden text."""

from pathlib import Path

from ssdlab.app.plan_jobs import plan_jobs, plan_sequence
from ssdlab.model.profile import PlanTarget, ProfilePlan
from ssdlab.model.units import GiB
from tests.conftest import ROOT, assert_golden

GOLDEN = ROOT / "tests" / "golden" / "plan"

FILE_TARGET = PlanTarget(
    path="/srv/ssd/ssdlab-0123456789ab.tmp",
    kind="file",
    size_bytes=GiB,
    capacity_bytes=None,
    direct_io=True,
    needs_fill=True,
    logical_block_bytes=512,
    discard_supported=True,
)
DEVICE_TARGET = PlanTarget(
    path="/dev/nvme0n1",
    kind="device",
    size_bytes=4 * GiB,
    capacity_bytes=4 * GiB,
    direct_io=True,
    needs_fill=False,
    logical_block_bytes=512,
    discard_supported=True,
)


def render_profile_plan(plan: ProfilePlan) -> str:
    """Every job file of the plan, in the '### name' layout of the quick goldens, followed by
    the plan's notes and its non-fio steps (idle pauses, system tools) as comments."""
    text = "".join(f"### {name}\n{job}" for name, job in plan_jobs(plan))
    extra = [f"; note: {note}" for note in plan.notes]
    repeats: dict[str, int] = {}
    for number, step, _round in plan_sequence(plan):
        if step.job is None:
            what = f"idle {step.idle_s:g} s" if step.idle_s else " ".join(step.command)
            repeats[what] = repeats.get(what, 0) + 1
            if repeats[what] == 1:
                extra.append(f"; step {number} {step.key}: {what}")
    extra += [f"; repeated {n} times: {what}" for what, n in repeats.items() if n > 1]
    for loop in plan.loops:
        extra.append(
            f"; loop {loop.name or '-'}: {len(loop.steps)} steps a round, rounds "
            f"{loop.min_rounds}..{loop.max_rounds}; {loop.check or 'no check'}"
        )
    if plan.params:
        extra.append("; params: " + ", ".join(f"{k}={v!r}" for k, v in plan.params))
    return text + ("### plan-notes\n" + "\n".join(extra) + "\n" if extra else "")


def check_golden(name: str, plan: ProfilePlan, update: bool) -> None:
    assert_golden(GOLDEN / f"{name}.fio", render_profile_plan(plan), update)


__all__ = ["DEVICE_TARGET", "FILE_TARGET", "GOLDEN", "Path", "check_golden", "render_profile_plan"]
