"""The `trim` profile's verdicts: discard support from the kernel's limits, random writes on a
dirty region against a freshly discarded one, and what the zero-check and fstrim steps found.

The dirty and discarded writes run `--repeat` times (each round fills the region again): their
IOPS are the means of the rounds with Student's 95 % intervals, and discarded / dirty has
its own. The verdict asks whether writes run more than 5 % faster after a discard (the
practical threshold compare uses): yes, no, or inconclusive when the interval straddles 1.05×.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ssdlab.analysis.intervals import Interval, mean_interval, ratio_interval, sample_of_repeats
from ssdlab.analysis.verdict_state import State, at_least, interval_words, state_sentence
from ssdlab.model.finding_names import TRIM_EFFECT, TRIM_SUPPORT
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.step import StepResult
from ssdlab.model.units import format_size

SUPPORT = TRIM_SUPPORT
EFFECT = TRIM_EFFECT
MIN_EFFECT = 1.05
"""Discarded / dirty IOPS that counts as faster after a discard (5 %, compare's threshold)."""


@dataclass(frozen=True, slots=True)
class TrimSupport:
    """What the kernel says of discard on the target (None: it does not say)."""

    supported: bool | None
    discard_granularity_bytes: int | None
    discard_max_bytes: int | None
    sentence: str


@dataclass(frozen=True, slots=True)
class TrimEffect:
    """Random writes on a dirty region against a freshly discarded one: the means of `passes`
    rounds, each with its 95 % interval, and whether discarded / dirty is at least
    `min_effect` (`state`: yes, no, inconclusive; None when stored before ssdlab gave them)."""

    dirty_iops: float
    discarded_iops: float
    dirty_lat_mean_ns: float | None
    discarded_lat_mean_ns: float | None
    ratio: float | None  # discarded / dirty IOPS
    sentence: str
    passes: int = 1
    dirty_interval: Interval | None = None
    discarded_interval: Interval | None = None
    ratio_interval: Interval | None = None
    state: str | None = None
    min_effect: float = MIN_EFFECT


def _support(facts: Mapping[str, Any]) -> TrimSupport:
    granularity = facts.get("discard_granularity_bytes")
    largest = facts.get("discard_max_bytes")
    if not isinstance(largest, int):
        sentence = "the kernel does not say whether the device supports discard"
        supported = None
    elif largest == 0:
        sentence = "no TRIM support: the device accepts no discard"
        supported = False
    else:
        sentence = (
            f"TRIM supported: discards of up to {format_size(largest)} at a time, in units of "
            + (format_size(granularity) if isinstance(granularity, int) else "an unknown size")
        )
        supported = True
    return TrimSupport(supported, granularity, largest, sentence)


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known and len(known) == len(values) else None


def _effect(steps: Sequence[StepResult]) -> TrimEffect | None:
    found: dict[str, list[StepResult]] = {}
    for step in steps:
        if not step.discarded:
            found.setdefault(step.step_key, []).append(step)
    dirty, fresh = found.get("dirty"), found.get("discarded")
    if not dirty or not fresh:
        return None
    a = sample_of_repeats([s.iops for s in fresh])
    b = sample_of_repeats([s.iops for s in dirty])
    ratio = a.mean / b.mean if b.mean else None
    interval = ratio_interval(a, b)
    state = None if ratio is None else at_least(ratio, interval, MIN_EFFECT)
    return TrimEffect(
        dirty_iops=b.mean,
        discarded_iops=a.mean,
        dirty_lat_mean_ns=_mean([s.lat_mean_ns for s in dirty]),
        discarded_lat_mean_ns=_mean([s.lat_mean_ns for s in fresh]),
        ratio=ratio,
        sentence="n/a" if ratio is None or state is None else _sentence(ratio, interval, state),
        passes=min(len(dirty), len(fresh)),
        dirty_interval=mean_interval(b),
        discarded_interval=mean_interval(a),
        ratio_interval=interval,
        state=None if state is None else state.value,
    )


def _sentence(ratio: float, interval: Interval | None, state: State) -> str:
    figures = (
        f"random writes after a discard ran at {ratio:.2f}× the speed on the dirty region "
        f"({interval_words(interval)})"
    )
    return state_sentence(
        "Faster after a discard",
        state,
        figures,
        f"{MIN_EFFECT:g}× that counts as faster",
        f"not {MIN_EFFECT:g}× or more",
    )


def analyse_trim(
    _plan: ProfilePlan,
    steps: Sequence[StepResult],
    facts: Mapping[str, Any],
    _outputs: Mapping[int, str],
) -> dict[str, TrimSupport | TrimEffect]:
    found: dict[str, TrimSupport | TrimEffect] = {SUPPORT: _support(facts)}
    effect = _effect(steps)
    if effect is not None:
        found[EFFECT] = effect
    return found


def zero_check(read_back: tuple[int, int] | None) -> dict[str, Any]:
    """From the zero-check step's read (parse/tool_outputs.read_back_of: blocks that did not
    verify, bytes read): did the discarded blocks read back as zeroes."""
    if read_back is None:
        return {"zeroes": None, "sentence": "the read-back could not be read"}
    errors, read = read_back
    zeroes = errors == 0 and read > 0
    return {
        "zeroes": zeroes,
        "blocks_not_zero": errors,
        "read_bytes": read,
        "sentence": "discarded blocks read back as zeroes"
        if zeroes
        else f"discarded blocks did not read back as zeroes ({errors} MiB blocks differed)",
    }


def fstrim_result(elapsed: Any, trimmed: int | None) -> dict[str, Any]:
    """How long fstrim took (the step's `elapsed_s`) and what it trimmed."""
    return {
        "elapsed_s": elapsed,
        "trimmed_bytes": trimmed,
        "sentence": f"fstrim took {elapsed:.2f} s"
        + ("" if trimmed is None else f" and trimmed {format_size(trimmed)}"),
    }
