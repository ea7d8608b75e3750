"""The fuzz harness itself: the hang guard fails a stuck input, and anything but the documented
error escapes `outcome` (so a fuzz test that passes means something)."""

import pytest

from ssdlab.errors import ParseError
from tests.fuzz.harness import Hang, hang_guard, outcome


def _never_returns() -> None:
    """A parser stuck on its input."""
    while True:
        continue


def test_hang_guard_stops_a_stuck_input() -> None:
    with pytest.raises(Hang), hang_guard(0.2):
        _never_returns()


def test_hang_guard_is_off_afterwards() -> None:
    with hang_guard(0.2):
        quick = sum(range(10))  # an input that finishes in time
    assert quick == 45
    total = sum(range(10**6))  # no alarm left to fire here
    assert total > 0


def test_outcome_lets_only_parse_errors_through() -> None:
    def refuses(_text: str) -> None:
        raise ParseError("not this")

    def crashes(text: str) -> int:
        return int(text)

    assert outcome(refuses, "x") is None
    assert outcome(crashes, "5") == 5
    with pytest.raises(ValueError, match="invalid literal"):
        outcome(crashes, "x")
