"""The `fill` profile's verdict: random-write speed at each fill level, against the lowest.

A level's random writes run `--repeat` times: its figures are their means, with Student's 95 %
interval, and its speed against the emptiest level has its interval too (analysis/intervals.py).
The verdict asks whether the fullest level is more than 5 % slower than the emptiest (the
practical threshold compare uses): yes, no, or inconclusive when the interval of the slowdown
straddles 1.05×.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ssdlab.analysis.intervals import (
    Interval,
    Sample,
    mean_interval,
    ratio_interval,
    sample_of_repeats,
)
from ssdlab.analysis.passes import p99_ns
from ssdlab.analysis.verdict_state import State, at_least, interval_words, state_sentence
from ssdlab.model.finding_names import FILL_LEVELS
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.step import StepResult

VERDICT = FILL_LEVELS
MIN_SLOWDOWN = 1.05
"""The emptiest level's IOPS over the fullest's that counts as slowing down (5 %, compare's)."""


@dataclass(frozen=True, slots=True)
class FillLevel:
    """Random writes at one fill level (the means of its `passes`), and their IOPS against the
    lowest level's, each with its 95 % interval (None: measured once, or stored before)."""

    level_pct: int
    iops: float
    bw_bytes_per_s: float
    lat_mean_ns: float | None
    lat_p99_ns: float | None
    relative_to_lowest: float | None
    passes: int = 1
    iops_interval: Interval | None = None
    relative_interval: Interval | None = None
    pass_iops: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class FillLevels:
    """The verdict: every level, lowest first, and the sentence comparing the two ends (None
    with fewer than two levels, or no I/O at one end). Stored as its fields. `slowdown` is the
    lowest level's IOPS over the fullest's, with its interval and `state`: whether it is at
    least `min_slowdown` (yes, no, inconclusive; None when it was not computed, or the verdict
    was stored before ssdlab gave intervals)."""

    levels: tuple[FillLevel, ...]
    summary: str | None
    target_kind: str
    slowdown: float | None = None
    slowdown_interval: Interval | None = None
    state: str | None = None
    min_slowdown: float = MIN_SLOWDOWN


def _mean(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known and len(known) == len(values) else None


def fill_levels(plan: ProfilePlan, steps: Sequence[StepResult]) -> FillLevels:
    levels = {s.key: s.param("level_pct") for s in plan.all_steps if s.key.startswith("randwrite-")}
    passes: dict[int, list[StepResult]] = {}
    for step in steps:
        if not step.discarded and isinstance(level := levels.get(step.step_key), int):
            passes.setdefault(level, []).append(step)
    measured = sorted(passes.items())
    samples = {level: sample_of_repeats([s.iops for s in group]) for level, group in measured}
    base = samples[measured[0][0]] if measured else None
    rows = tuple(_level(level, group, samples[level], base) for level, group in measured)
    summary = slowdown = interval = state = None
    if len(rows) >= 2 and base is not None and base.mean and rows[-1].iops:
        first, last = rows[0], rows[-1]
        slowdown = base.mean / last.iops
        interval = ratio_interval(base, samples[last.level_pct])
        state = at_least(slowdown, interval, MIN_SLOWDOWN)
        summary = _summary(first, last, slowdown, interval, state)
    return FillLevels(
        rows,
        summary,
        plan.target_kind,
        slowdown,
        interval,
        None if state is None else state.value,
    )


def _level(
    level: int, group: Sequence[StepResult], sample: Sample, base: Sample | None
) -> FillLevel:
    relative = None if base is None or not base.mean else sample.mean / base.mean
    return FillLevel(
        level_pct=level,
        iops=sample.mean,
        bw_bytes_per_s=sum(s.bw_bytes_per_s for s in group) / len(group),
        lat_mean_ns=_mean([s.lat_mean_ns for s in group]),
        lat_p99_ns=_mean([p99_ns(s) for s in group]),
        relative_to_lowest=relative,
        passes=len(group),
        iops_interval=mean_interval(sample),
        relative_interval=None if base is None or base is sample else ratio_interval(sample, base),
        pass_iops=tuple(s.iops for s in group),
    )


def _summary(
    first: FillLevel, last: FillLevel, slowdown: float, interval: Interval | None, state: State
) -> str:
    how = f"{slowdown:.2f}× slower" if slowdown > 1 else f"{1 / slowdown:.2f}× as fast"
    figures = (
        f"at {last.level_pct} % full random writes run {how} than at {first.level_pct} % "
        f"({last.iops:,.0f} against {first.iops:,.0f} IOPS; {interval_words(interval)})"
    )
    return state_sentence(
        "Slows as it fills",
        state,
        figures,
        f"{MIN_SLOWDOWN:g}× that counts as slowing down",
        f"not more than {MIN_SLOWDOWN:g}× slower",
    )


def analyse_fill(
    plan: ProfilePlan,
    steps: Sequence[StepResult],
    _facts: Mapping[str, Any],
    _outputs: Mapping[int, str],
) -> dict[str, FillLevels]:
    return {VERDICT: fill_levels(plan, steps)}
