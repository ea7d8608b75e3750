"""--start-at: the times it takes and refuses, and the wait that keeps it."""

import argparse
from datetime import UTC, datetime

import pytest

from ssdlab.cli.arg_types import start_at_arg
from ssdlab.runner.session import FINE_WAIT_S, late_start_problem, sleep_until

FUTURE = datetime(2099, 1, 2, 3, 4, 5, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    "text",
    ["2099-01-02T03:04:05Z", "2099-01-02T03:04:05+00:00", "2099-01-02T05:04:05+02:00"],
)
def test_iso_times_with_a_zone_are_epoch_seconds(text: str) -> None:
    assert start_at_arg(text) == FUTURE


def test_epoch_seconds_keep_their_fraction() -> None:
    assert start_at_arg(f"{FUTURE + 0.25}") == FUTURE + 0.25


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("2099-01-02T03:04:05", "has no timezone"),
        ("2099-01-02 03:04", "has no timezone"),
        ("tomorrow", "neither Unix seconds nor an ISO 8601 time"),
        ("nan", "not a time after 1970"),
        ("-5", "not a time after 1970"),
        ("100", "in the past: the clocks of the hosts may disagree"),
    ],
)
def test_bad_times_are_refused_in_one_line(text: str, words: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=words) as error:
        start_at_arg(text)
    assert "\n" not in str(error.value)


def test_a_time_a_little_past_is_kept_and_further_past_refused() -> None:
    assert late_start_problem("x", 100.0, 104.0) is None
    problem = late_start_problem("x", 100.0, 112.0)
    assert problem == (
        "x is 12 s in the past: the clocks of the hosts may disagree; "
        "check with ssdlab fleet doctor"
    )


class FakeClock:
    """A wall clock that moves only when slept on; records every sleep."""

    def __init__(self, now: float) -> None:
        self.now = now
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_the_wait_ends_at_the_time_with_short_sleeps_at_the_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = FakeClock(1000.0)
    monkeypatch.setattr("ssdlab.runner.session.time.sleep", clock.sleep)
    assert sleep_until(1002.0, lambda: False, clock)
    assert clock.now >= 1002.0
    assert max(clock.sleeps) <= 0.25  # a signal or a stepped clock is seen soon
    starts = _times(1000.0, clock.sleeps)
    near = [s for s, at in zip(clock.sleeps, starts, strict=True) if 1002.0 - at <= FINE_WAIT_S]
    assert near
    assert max(near) <= 0.001


def _times(start: float, sleeps: list[float]) -> list[float]:
    at, times = start, []
    for seconds in sleeps:
        times.append(at)
        at += seconds
    return times


def test_a_stop_ends_the_wait_without_starting(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock(1000.0)
    monkeypatch.setattr("ssdlab.runner.session.time.sleep", clock.sleep)
    assert not sleep_until(1060.0, lambda: clock.now > 1001.0, clock)
    assert clock.now < 1060.0


def test_a_time_already_here_does_not_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock(1000.0)
    monkeypatch.setattr("ssdlab.runner.session.time.sleep", clock.sleep)
    assert sleep_until(999.0, lambda: False, clock)
    assert clock.sleeps == []
