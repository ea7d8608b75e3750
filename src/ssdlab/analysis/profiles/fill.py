"""The `fill` profile's verdict: random-write speed at each fill level, against the lowest."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ssdlab.analysis.passes import p99_ns
from ssdlab.model.finding_names import FILL_LEVELS
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.step import StepResult

VERDICT = FILL_LEVELS


@dataclass(frozen=True, slots=True)
class FillLevel:
    """Random writes at one fill level, and their IOPS against the lowest level's."""

    level_pct: int
    iops: float
    bw_bytes_per_s: float
    lat_mean_ns: float | None
    lat_p99_ns: float | None
    relative_to_lowest: float | None


@dataclass(frozen=True, slots=True)
class FillLevels:
    """The verdict: every level, lowest first, and the sentence comparing the two ends (None
    with fewer than two levels, or no I/O at one end). Stored as its fields."""

    levels: tuple[FillLevel, ...]
    summary: str | None
    target_kind: str


def fill_levels(plan: ProfilePlan, steps: Sequence[StepResult]) -> FillLevels:
    levels = {s.key: s.param("level_pct") for s in plan.steps if s.key.startswith("randwrite-")}
    measured = sorted(
        (
            (level, step)
            for step in steps
            if not step.discarded and isinstance(level := levels.get(step.step_key), int)
        ),
        key=lambda found: found[0],
    )
    base = float(measured[0][1].iops) if measured and measured[0][1].iops else None
    rows = tuple(
        FillLevel(
            level_pct=level,
            iops=step.iops,
            bw_bytes_per_s=step.bw_bytes_per_s,
            lat_mean_ns=step.lat_mean_ns,
            lat_p99_ns=p99_ns(step),
            relative_to_lowest=None if base is None else step.iops / base,
        )
        for level, step in measured
    )
    summary = None
    if len(rows) >= 2 and base and rows[-1].iops:
        first, last = rows[0], rows[-1]
        speed = float(last.iops) / base
        how = f"{1 / speed:.2f}× slower" if speed < 1 else f"{speed:.2f}× as fast"
        summary = (
            f"at {last.level_pct} % full random writes run {how} than at "
            f"{first.level_pct} % ({last.iops:,.0f} against {first.iops:,.0f} IOPS)"
        )
    return FillLevels(rows, summary, plan.target_kind)


def analyse_fill(
    plan: ProfilePlan,
    steps: Sequence[StepResult],
    _facts: Mapping[str, Any],
    _outputs: Mapping[int, str],
) -> dict[str, FillLevels]:
    return {VERDICT: fill_levels(plan, steps)}
