"""The OCP Datacenter NVMe SSD thermal requirements, judged from a run's series and counters.

Each requirement is answered yes, no or inconclusive with its evidence, or *cannot be checked on
this drive* with the reason (a value the drive does not report). Sources: OCP Datacenter NVMe
SSD Specification v2.0, §8.2 (TTHROTTLE) and §6.5 (REL); docs/thermal.md says how each is read.

* **TTHROTTLE-5** throttling starts at composite 77 °C: every onset interval at or above 77 °C.
* **TTHROTTLE-7** throttling ends below 75 °C: every exit threshold at or below 75 °C (the drive
  leaves throttling only once its reading is under 75 °C).
* **TTHROTTLE-9 / -10** WCTEMP = 015Eh (350 K), CCTEMP = 0166h (358 K) in Identify Controller.
* **TTHROTTLE-11** Warning Composite Temperature Time counts each minute at or above WCTEMP:
  its increase over the run against the minutes the series spent there.
* **REL-5** time above WCTEMP under 1 % of power-on time (lifetime counters).

The counters are also held against the series: a throttle the series shows but no throttling
counter counted, or a count with no throttle in the series, is said.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ssdlab.analysis.throttling import ThermalPoint, ThermalSeries
from ssdlab.analysis.verdict_state import State
from ssdlab.model.thermal import ThermalCounters, ThermalLimits

ONSET_C = 77.0
EXIT_C = 75.0
WCTEMP_K = 0x15E
CCTEMP_K = 0x166
REL5_SHARE_PCT = 1.0


@dataclass(frozen=True, slots=True)
class RequirementCheck:
    """One requirement: `state` None when it cannot be checked on this drive (`evidence` says
    why)."""

    requirement: str
    question: str
    state: State | None
    evidence: str

    @property
    def checked(self) -> bool:
        return self.state is not None


@dataclass(frozen=True, slots=True)
class CounterCheck:
    """Whether a counter of the drive agrees with what the series shows."""

    counter: str
    consistent: bool | None  # None: the drive does not report the counter
    evidence: str


def _bracket(low: float | None, high: float | None) -> str:
    if low == high:
        return f"{low:g} °C"
    return f"{low:g}–{high:g} °C"


def onset_check(series: ThermalSeries) -> RequirementCheck:
    question = f"does throttling start at composite {ONSET_C:g} °C or above?"
    episodes = series.thermal_episodes
    brackets = [e.onset.threshold for e in episodes if e.onset.threshold is not None]
    if not brackets:
        top = series.max_temperature_c
        seen = f"highest reading {top:g} °C" if top is not None else "no temperature readings"
        return RequirementCheck(
            "TTHROTTLE-5", question, State.INCONCLUSIVE, f"no throttling in the series ({seen})"
        )
    text = ", ".join(dict.fromkeys(_bracket(b.low, b.high) for b in brackets))
    if any(b.high is not None and b.high < ONSET_C for b in brackets):
        state = State.NO
    elif all(b.low is not None and b.low >= ONSET_C for b in brackets):
        state = State.YES
    else:
        state = State.INCONCLUSIVE
    return RequirementCheck("TTHROTTLE-5", question, state, f"onset threshold at {text} (95 %)")


def exit_check(series: ThermalSeries) -> RequirementCheck:
    question = f"does throttling end only below {EXIT_C:g} °C?"
    brackets = [
        e.exit.threshold
        for e in series.thermal_episodes
        if e.exit is not None and e.exit.threshold is not None
    ]
    if not brackets:
        return RequirementCheck(
            "TTHROTTLE-7", question, State.INCONCLUSIVE, "no throttling ended within the series"
        )
    text = ", ".join(dict.fromkeys(_bracket(b.low, b.high) for b in brackets))
    if any(b.low is not None and b.low > EXIT_C for b in brackets):
        state = State.NO
    elif all(b.high is not None and b.high <= EXIT_C for b in brackets):
        state = State.YES
    else:
        state = State.INCONCLUSIVE
    return RequirementCheck(
        "TTHROTTLE-7",
        question,
        state,
        f"exit threshold at {text} (95 %): throttling ends once the reading is below it",
    )


def identify_checks(limits: ThermalLimits | None) -> tuple[RequirementCheck, ...]:
    found = []
    for requirement, name, wanted, value in (
        ("TTHROTTLE-9", "WCTEMP", WCTEMP_K, limits.wctemp_k if limits else None),
        ("TTHROTTLE-10", "CCTEMP", CCTEMP_K, limits.cctemp_k if limits else None),
    ):
        question = f"is {name} {wanted:04X}h ({wanted} K)?"
        if limits is None or value is None:
            where = f" by {limits.source}" if limits and limits.source else ""
            found.append(
                RequirementCheck(
                    requirement,
                    question,
                    None,
                    f"cannot be checked on this drive: {name} is not reported{where}",
                )
            )
            continue
        state = State.YES if value == wanted else State.NO
        found.append(
            RequirementCheck(
                requirement, question, state, f"{name} = {value:04X}h ({value} K, {limits.source})"
            )
        )
    return tuple(found)


def _stretches_above(points: Sequence[ThermalPoint], limit_c: float, step_s: float) -> list[float]:
    """Seconds of each unbroken stretch of readings at or above `limit_c`."""
    stretches: list[float] = []
    current = 0.0
    for p in points:
        if p.temperature_c is not None and p.temperature_c >= limit_c:
            current += step_s
        elif current:
            stretches.append(current)
            current = 0.0
    if current:
        stretches.append(current)
    return stretches


def _delta(before: int | None, after: int | None) -> int | None:
    return None if before is None or after is None else after - before


def warning_time_check(
    points: Sequence[ThermalPoint],
    series: ThermalSeries,
    limits: ThermalLimits | None,
    before: ThermalCounters | None,
    after: ThermalCounters | None,
) -> RequirementCheck:
    question = "does the warning composite temperature time advance each minute at or above WCTEMP?"
    wctemp = limits.wctemp_c if limits else None
    delta = _delta(
        before.warning_temp_time_min if before else None,
        after.warning_temp_time_min if after else None,
    )
    if wctemp is None or delta is None:
        missing = "WCTEMP" if wctemp is None else "the warning temperature time before and after"
        return RequirementCheck(
            "TTHROTTLE-11", question, None, f"cannot be checked on this drive: {missing} unknown"
        )
    step = series.duration_s / series.points if series.points else 1.0
    stretches = _stretches_above(points, wctemp, step)
    if not stretches:
        return RequirementCheck(
            "TTHROTTLE-11",
            question,
            State.INCONCLUSIVE,
            f"the series never reached WCTEMP ({wctemp:g} °C); the counter moved by {delta} min",
        )
    low = sum(math.floor(s / 60) for s in stretches)
    high = sum(math.ceil(s / 60) for s in stretches) + 1  # + the minute after the series
    state = State.YES if low <= delta <= high else State.NO
    return RequirementCheck(
        "TTHROTTLE-11",
        question,
        state,
        f"{sum(stretches):g} s at or above {wctemp:g} °C in {len(stretches)} stretch(es): "
        f"{low}–{high} minute(s) expected, the counter moved by {delta}",
    )


def lifetime_share_check(counters: ThermalCounters | None) -> RequirementCheck:
    question = f"is the time above WCTEMP under {REL5_SHARE_PCT:g} % of power-on time?"
    minutes = counters.warning_temp_time_min if counters else None
    hours = counters.power_on_hours if counters else None
    if minutes is None or not hours:
        missing = "the warning temperature time" if minutes is None else "the power-on hours"
        return RequirementCheck(
            "REL-5", question, None, f"cannot be checked on this drive: {missing} unknown or 0"
        )
    # the hours count whole hours and the minutes whole minutes: the share lies between these
    low = 100.0 * minutes / ((hours + 1) * 60)
    high = 100.0 * (minutes + 1) / (hours * 60)
    if high < REL5_SHARE_PCT:
        state = State.YES
    elif low >= REL5_SHARE_PCT:
        state = State.NO
    else:
        state = State.INCONCLUSIVE
    return RequirementCheck(
        "REL-5",
        question,
        state,
        f"{minutes} min above WCTEMP in {hours} power-on hours: {low:.3g}–{high:.3g} %",
    )


def _count_check(name: str, delta: int | None, episodes: int, note: str) -> CounterCheck:
    if delta is None:
        return CounterCheck(name, None, f"{name}: not reported by this drive")
    if episodes and delta <= 0:
        return CounterCheck(
            name,
            False,
            f"the series shows {episodes} throttling episode(s) but {name} did not increase" + note,
        )
    if not episodes and delta > 0:
        return CounterCheck(
            name, False, f"{name} increased by {delta} but the series shows no throttling" + note
        )
    return CounterCheck(
        name, True, f"{name} increased by {delta}; the series shows {episodes} episode(s)"
    )


def counter_checks(
    series: ThermalSeries, before: ThermalCounters | None, after: ThermalCounters | None
) -> tuple[CounterCheck, ...]:
    """The drive's throttling counters against the series' episodes."""
    episodes = len(series.thermal_episodes)

    def delta(field: str) -> int | None:
        if before is None or after is None:
            return None
        return _delta(getattr(before, field), getattr(after, field))

    thm = [delta("thm_temp1_trans_count"), delta("thm_temp2_trans_count")]
    thm_delta = None if all(d is None for d in thm) else sum(d for d in thm if d is not None)
    return (
        _count_check("the OCP thermal throttling count (SMART-12)", delta("ocp_throttling_events"),
                     episodes, ""),
        _count_check(
            "the thermal management transition counts",
            thm_delta,
            episodes,
            " (these count host-controlled thermal management, which the drive's own throttle "
            "may not use)",
        ),
    )  # fmt: skip


def thermal_checks(
    points: Sequence[ThermalPoint],
    series: ThermalSeries,
    limits: ThermalLimits | None,
    before: ThermalCounters | None,
    after: ThermalCounters | None,
) -> tuple[RequirementCheck, ...]:
    """Every requirement this module knows, in the specification's order."""
    return (
        onset_check(series),
        exit_check(series),
        *identify_checks(limits),
        warning_time_check(points, series, limits, before, after),
        lifetime_share_check(after),
    )
