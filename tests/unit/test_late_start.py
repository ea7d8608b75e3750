"""A run that gets its --start-at late starts at once and records how late (issue #32): 31 of
40 runs of a loaded fleet were refused as "clocks that may disagree" when they had merely been
told late. Only a clock the node can show to disagree (against the seat's reading as it sent
the start) is refused. Every clock here is injected: nothing depends on this machine's speed."""

import argparse
import sqlite3
import time
from pathlib import Path

import pytest

from ssdlab.cli.arg_types import start_sent_at_arg
from ssdlab.cli.profile_setup import run_start_at
from ssdlab.errors import UsageError
from ssdlab.runner.session import (
    CLOCK_LIMIT_S,
    START_AT_PARAM,
    START_LATE_PARAM,
    TRANSIT_LIMIT_S,
    Edges,
    RunSession,
    clock_problem,
    started_params,
)

START = 1_800_000_000.0


def _session(notices: list[str]) -> RunSession:
    def no_store() -> sqlite3.Connection:
        raise AssertionError("waiting for the start opens no store")

    def no_progress() -> object:
        raise AssertionError("no progress while waiting")

    def no_exit(text: str) -> None:
        raise AssertionError(text)

    edges = Edges(progress=no_progress, hard_exit=no_exit, notice=notices.append)  # type: ignore[arg-type]
    return RunSession(Path("unused.db"), no_store, edges)


@pytest.mark.parametrize("late", [0.5, 12.0, 600.0])
def test_a_fleet_start_reached_late_starts_at_once_and_says_how_late(late: float) -> None:
    notices: list[str] = []
    got = _session(notices).wait_for_start(START, fleet=True, clock=lambda: START + late)
    assert got == late
    (said,) = notices
    assert said.startswith(f"starting now, {late:.1f} s after the fleet's start time ")
    assert "clocks of the hosts may disagree" not in said
    assert START_LATE_PARAM in said


def test_a_time_typed_here_and_reached_late_after_the_checks_starts_too() -> None:
    notices: list[str] = []
    got = _session(notices).wait_for_start(START, clock=lambda: START + 30.0)
    assert got == 30.0
    assert notices[0].startswith("starting now, 30.0 s after ")
    assert "the checks before the start took that long" in notices[0]


def test_a_start_in_time_is_waited_for_and_not_late(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [START - 2.0]
    monkeypatch.setattr(
        "ssdlab.runner.session.time.sleep", lambda s: now.__setitem__(0, now[0] + s)
    )
    notices: list[str] = []
    assert _session(notices).wait_for_start(START, fleet=True, clock=lambda: now[0]) is None
    assert now[0] >= START
    (said,) = notices
    assert said.startswith("starting at ")


def test_the_run_records_its_start_time_and_how_late_it_started() -> None:
    kept = (("size", 1),)
    assert started_params(kept, START, None) == (("size", 1), (START_AT_PARAM, START))
    late = started_params(kept, START, 12.34567)
    assert late == (("size", 1), (START_AT_PARAM, START), (START_LATE_PARAM, 12.346))


@pytest.mark.parametrize(
    "took",
    [0.0, 0.02, 3.0, 45.0, TRANSIT_LIMIT_S, -CLOCK_LIMIT_S + 0.1],
)
def test_a_start_that_took_its_time_to_arrive_is_no_clock_problem(took: float) -> None:
    assert clock_problem(START, START + took) is None


def test_a_start_that_arrived_before_it_was_sent_is_a_clock_behind() -> None:
    problem = clock_problem(START, START - 42.0)
    assert problem is not None
    assert problem.startswith("this host's clock is at least 42.0 s behind the fleet seat's")


def test_a_start_that_arrived_after_any_journey_is_a_clock_ahead() -> None:
    problem = clock_problem(START, START + TRANSIT_LIMIT_S + 300.0)
    assert problem is not None
    assert problem.startswith("this host's clock is at least 300 s ahead of the fleet seat's")


def test_the_seats_reading_is_held_against_this_clock_as_it_is_read() -> None:
    assert start_sent_at_arg(f"{time.time() - 30:.3f}") > 0  # a late arrival: taken
    with pytest.raises(argparse.ArgumentTypeError, match="behind the fleet seat's"):
        start_sent_at_arg(f"{time.time() + 3600:.3f}")
    with pytest.raises(argparse.ArgumentTypeError, match="not Unix seconds"):
        start_sent_at_arg("soon")


def _args(start_at: float | None, sent_at: float | None) -> argparse.Namespace:
    return argparse.Namespace(start_at=start_at, start_sent_at=sent_at)


def test_a_time_typed_here_far_in_the_past_is_still_a_usage_error() -> None:
    with pytest.raises(UsageError, match="is 60 s in the past: the clocks of the hosts may"):
        run_start_at(_args(START, None), START + 60.0)
    assert run_start_at(_args(START, None), START + 4.0) == START


def test_a_time_a_fleet_sent_is_kept_however_late() -> None:
    assert run_start_at(_args(START, START - 10.0), START + 600.0) == START


def test_the_seats_reading_goes_with_a_start_time() -> None:
    assert run_start_at(_args(None, None), START) is None
    with pytest.raises(UsageError, match="goes with --start-at"):
        run_start_at(_args(None, START), START)
