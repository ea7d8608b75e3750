"""The progress display's ETA of a run whose round loop stops at a bound it measures (a trial
pts-wsat stops at its bytes written, long before the rounds its 24 hours allow): from how far
the loop is towards that bound, not from the rounds the time limit allows."""

import io

import pytest

from ssdlab.cli import progress
from ssdlab.cli.progress import LineProgress, bounded_total
from ssdlab.model.profile import ProfilePlan, ProfileStep, RoundLoop, StepRole
from ssdlab.runner.events import ProfileRunStarted, RoundFinished, StepStarted

FILL = ProfileStep("fill", "fill the region", StepRole.PREPARE)
WRITE = ProfileStep("wsat", "RND 4KiB writes", StepRole.MEASURE, expected_s=0.5)
DAY_OF_ROUNDS = 172_800  # 24 h of half-second rounds
PLAN = ProfilePlan(
    profile="pts-wsat",
    profile_version=1,
    settings=(),
    target_path="/dev/loop0",
    target_kind="device",
    destructive=True,
    steps=(),
    loops=(RoundLoop(steps=(WRITE,), max_rounds=DAY_OF_ROUNDS, before=(FILL,)),),
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_steps_a_bounded_loop_takes_follow_its_progress() -> None:
    assert bounded_total(PLAN, 5, 0.25) == 1 + 16  # the fill, and 4 rounds a quarter of it
    assert bounded_total(PLAN, 5, None) is None  # a loop that stops on a judgement


def test_the_eta_is_the_bound_left_not_the_rounds_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(progress.time, "monotonic", clock)
    out = io.StringIO()
    display = LineProgress(out)
    display(ProfileRunStarted(1, PLAN, None))
    display(StepStarted(FILL, 1, 1 + DAY_OF_ROUNDS))
    clock.now += 100  # a long fill: not part of the loop's pace
    for number in range(2, 6):  # four half-second rounds
        display(StepStarted(WRITE, number, 1 + DAY_OF_ROUNDS))
        clock.now += 0.5
    display(RoundFinished(4, stop=False, summary="4 of 16 GB written", progress=0.25))
    display(StepStarted(WRITE, 6, 1 + DAY_OF_ROUNDS))
    last = out.getvalue().splitlines()[-1]
    assert last.endswith(", in 6 s")  # 2 s for a quarter: 6 s for the rest
