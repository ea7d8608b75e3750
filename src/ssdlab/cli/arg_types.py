"""Argument types every command shares: text typed by a user → a checked value, or argparse's
usage error (exit 2) naming what is wrong."""

import argparse
import math
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ssdlab.model.units import parse_duration_s, parse_size_bytes


def size_arg(text: str) -> int:
    try:
        return parse_size_bytes(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def seconds_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if value < 0 or value != value:
        raise argparse.ArgumentTypeError(f"{text!r} must be zero or more seconds")
    return value


def positive_int_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be 1 or more")
    return value


def pct_arg(text: str) -> int:
    """A whole percentage, 0 to 100, with or without its sign: 50 or 50%."""
    try:
        value = int(text.removesuffix("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole percentage") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r} must be from 0 to 100")
    return value


def duration_arg(text: str) -> float:
    try:
        return parse_duration_s(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def int_arg(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def float_arg(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None


def list_arg(convert: Callable[[str], Any]) -> Callable[[str], tuple[Any, ...]]:
    """A comma list of values of one type: '1,2,4' → (1, 2, 4)."""

    def parse(text: str) -> tuple[Any, ...]:
        parts = [part.strip() for part in text.split(",") if part.strip()]
        if not parts:
            raise argparse.ArgumentTypeError("give at least one value, e.g. 1,2,4")
        return tuple(convert(part) for part in parts)

    return parse


def _float_in(text: str, low: float, high: float, example: str) -> float:
    """A number typed by a user, within low ≤ x < high (a trailing % is allowed)."""
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number such as {example}") from None
    if not low <= value < high:
        raise argparse.ArgumentTypeError(f"{text!r} must be from {low:g} to below {high:g}")
    return value


def threshold_arg(text: str) -> float:
    return _float_in(text, 0, 1000, "5%")


def alpha_arg(text: str) -> float:
    value = _float_in(text, 0, 1, "0.05")
    if value == 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be above 0")
    return value


def _epoch_of(text: str) -> float:
    """Unix epoch seconds, or an ISO 8601 time with its timezone (a time without one would be
    read in each host's own zone, so it is refused)."""
    try:
        value = float(text)
    except ValueError:
        pass
    else:
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"{text!r} is not a time after 1970")
        return value
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is neither Unix seconds nor an ISO 8601 time such as 2026-11-26T12:00:00Z"
        ) from None
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} has no timezone, so each host would read it in its own; add one, e.g. "
            f"{text.strip()}Z or {text.strip()}+01:00"
        )
    return moment.timestamp()


def start_at_arg(text: str) -> float:
    """--start-at TIME of `fleet run`: when the runs start (Unix seconds, float, or ISO 8601
    with a timezone); a time already well past is refused, since the clocks then likely
    disagree."""
    from ssdlab.runner.session import late_start_problem  # only when --start-at is given

    start_at = _epoch_of(text)
    problem = late_start_problem(text, start_at, time.time())
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return start_at


def start_time_arg(text: str) -> float:
    """--start-at TIME of a run: its time, checked once the command line is read (a time well
    past is refused when typed here, never when a fleet sent it: `run_start_at`)."""
    return _epoch_of(text)


def start_sent_at_arg(text: str) -> float:
    """--start-sent-at SECONDS, which `fleet run` gives with --start-at: its own clock when it
    sent the start. Held against this host's clock now, as the start arrives: clocks that
    disagree are refused here, by how much (runner/session.clock_problem)."""
    from ssdlab.runner.session import clock_problem  # only when a fleet starts the run

    try:
        sent_at = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not Unix seconds") from None
    if not math.isfinite(sent_at) or sent_at <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a time after 1970")
    problem = clock_problem(sent_at, time.time())
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return sent_at
