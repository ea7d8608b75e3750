"""The progress display's ETA of a run whose round loop stops at a bound it measures (a trial
pts-wsat stops at its bytes written, long before the rounds its 24 hours allow; an endurance
run at its --for): from how far the loop is towards that bound, not from the rounds a time
limit allows."""

import io

import pytest

from ssdlab.cli import progress
from ssdlab.cli.progress import LineProgress, LoopBound
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


def test_the_pace_is_the_loops_own_then_that_since_its_first_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock()
    monkeypatch.setattr(progress.time, "monotonic", clock)
    bound = LoopBound(PLAN)
    assert bound.left(1, 0.5) is None  # the loop has not begun: nothing to measure
    bound.step_started(2)  # its first round, after the fill
    clock.now += 4
    assert bound.left(5, 0.25) == pytest.approx(
        (12.0, 12.0)
    )  # 4 rounds in 4 s for a quarter of the bytes
    clock.now += 2
    assert bound.left(7, 0.75) == pytest.approx((1.0, 1.0))  # half of it in 2 s: 1 s left
    assert bound.left(7, None) is None  # a loop that stops on a judgement says nothing


def test_a_resumed_loop_is_paced_from_its_first_report(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock()
    monkeypatch.setattr(progress.time, "monotonic", clock)
    bound = LoopBound(PLAN)
    bound.step_started(2)
    clock.now += 1
    bound.left(2, 0.6)  # its earlier life wrote most: a first guess only
    clock.now += 1
    assert bound.left(3, 0.7) == pytest.approx((3.0, 3.0))  # a tenth a round, three tenths left


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
