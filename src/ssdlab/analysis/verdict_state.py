"""Every verdict answers yes, no or inconclusive, and every target pass, fail or inconclusive.

A question put to a measured figure ("is misalignment at least 1.5× slower?", "do writes run at
least 5 % faster after a discard?") is answered from its 95 % interval (analysis/intervals.py):

- **yes** when the whole interval lies at or beyond the threshold,
- **no** when the whole interval lies short of it,
- **inconclusive** when the interval straddles it: the data cannot decide, and more repeats
  (`--repeat`) narrow the interval until they can.

A figure measured once without a log has no interval: the answer is then read from the figure
itself, and the verdict says it was measured once (`interval` None). A target (a spec sheet's
claim, a `--fail-if` limit, a baseline's threshold) is judged the same way: *pass*, *fail* or
*inconclusive* when the interval straddles it.
"""

from enum import StrEnum

from ssdlab.analysis.intervals import Interval


class State(StrEnum):
    YES = "yes"
    NO = "no"
    INCONCLUSIVE = "inconclusive"


class Outcome(StrEnum):
    """A stated target against what was measured."""

    PASS = "pass"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"


def at_least(value: float, interval: Interval | None, threshold: float) -> State:
    """Whether the figure is at least `threshold`: yes when its whole interval is, no when none
    of it is, inconclusive when the interval straddles the threshold (or has no end on the side
    that would decide). Measured once (no interval): the figure decides."""
    if interval is None:
        return State.YES if value >= threshold else State.NO
    if interval.low is not None and interval.low >= threshold:
        return State.YES
    if interval.high is not None and interval.high < threshold:
        return State.NO
    return State.INCONCLUSIVE


def at_most(value: float, interval: Interval | None, threshold: float) -> State:
    """Whether the figure is at most `threshold` (the mirror of `at_least`)."""
    if interval is None:
        return State.YES if value <= threshold else State.NO
    if interval.high is not None and interval.high <= threshold:
        return State.YES
    if interval.low is not None and interval.low > threshold:
        return State.NO
    return State.INCONCLUSIVE


def outcome_of(state: State) -> Outcome:
    """A target's outcome from the state of 'is it met?'."""
    return {
        State.YES: Outcome.PASS,
        State.NO: Outcome.FAIL,
        State.INCONCLUSIVE: Outcome.INCONCLUSIVE,
    }[state]


def state_sentence(question: str, state: State, figures: str, threshold: str, no: str) -> str:
    """'QUESTION: yes — FIGURES', 'QUESTION: no — FIGURES; NO', or 'QUESTION: inconclusive —
    FIGURES, which straddles the THRESHOLD; more --repeat narrows it'."""
    if state is State.YES:
        return f"{question}: yes — {figures}"
    if state is State.NO:
        return f"{question}: no — {figures}; {no}"
    return (
        f"{question}: inconclusive — {figures}, which straddles the {threshold}; "
        "more --repeat narrows it"
    )


def interval_words(
    interval: Interval | None, unit: str = "×", digits: int = 2, scale: float = 1.0
) -> str:
    """'95 % interval 1.42–1.58× over 3 repeats', 'measured once, no interval', or for an
    interval with no upper end '95 % interval from 0.81×, unbounded above, over 3 repeats'."""
    if interval is None:
        return "measured once, no interval"
    count = _count_words(interval)
    level = f"{interval.level * 100:g} % interval"

    def shown(value: float) -> str:
        return f"{value * scale:,.{digits}f}"

    if interval.low is None and interval.high is None:
        return f"{level} unbounded {count}"
    if interval.high is None:
        assert interval.low is not None
        return f"{level} from {shown(interval.low)}{unit}, unbounded above, {count}"
    if interval.low is None:
        return f"{level} up to {shown(interval.high)}{unit} {count}"
    return f"{level} {shown(interval.low)}–{shown(interval.high)}{unit} {count}"


def _count_words(interval: Interval) -> str:
    if interval.basis == "repeats":
        return f"over {interval.count} repeats"
    if interval.basis == "order statistics":
        return f"from the order statistics of {interval.count:,} I/Os"
    if interval.basis == "fio's percentile table":
        return f"from fio's percentile table ({interval.count:,} I/Os)"
    if interval.basis == "least-squares fit":
        return f"from a least-squares fit of {interval.count} samples"
    if interval.basis == "rounds of the steady-state window":
        return f"over {interval.count} rounds of the steady-state window"
    if interval.basis == "block bootstrap over seconds":
        return f"from a block bootstrap over {interval.count} seconds"
    return f"from one pass's per-second log ({interval.count} batches)"


def times_slower(ratio: float, digits: int = 1) -> str:
    """'9.0× slower' for a ratio of times taken (≥ 1), '1.39× faster' below 1."""
    if ratio >= 1 or ratio <= 0:
        return f"{ratio:.{digits}f}× slower"
    return f"{1 / ratio:.{digits}f}× faster"
