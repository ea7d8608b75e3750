"""SNIA PTS steady state: the first 5-round Measurement Window in which every tracking variable is
steady (reference: ../shared/reference/pts.md §2).

A PTS test runs its workload in **Rounds** (round 1 first; one round is one sweep of the test's
element matrix, pts.md §1.3). After each complete round x ≥ 5 the **Measurement Window** is the
rounds x−4 … x (PTS 2.0.2 §2.1.13; pts.md §2.1, §2.4). For each tracking variable y (pts.md
§2.3; e.g. IOPS of RND 4KiB 0/100) and the n = 5 round numbers x_i of the window:

    Ave            = (1/n) Σ y_i
    DataExcursion  = max(y) − min(y)                        allowed: 20 % of Ave
    m              = (n Σ x_i y_i − Σ x_i Σ y_i) / (n Σ x_i² − (Σ x_i)²)
    b              = (Σ y_i − m Σ x_i) / n                  (least-squares line y = m·R + b,
                                                             R the round number)
    SlopeExcursion = |m| · (x_last − x_first) = 4·|m|       allowed: 10 % of Ave

(PTS 2.0.2 §2.1.24 criteria (a) and (b), pts.md §2.1–§2.2: "Max(y) − Min(y) of the best linear
fit ... within 10 % of Ave(y)": the fitted line's rise or fall across the window, which is |m|
times the distance between the first and last round of the window.) A window passes when every
tracking variable passes both criteria in that same window (pts.md §2.3, "all three must pass"
for IOPS in 2.0.x). The search evaluates the windows ending at rounds 5, 6, … up to the maximum
round (25 by default, pts.md §1.3) and reports the first that passes. When none passes the
device is *not* in steady state ("SS NOT ACHIEVED"); the spec then reports the last 5 rounds as
the Measurement Window (pts.md §1.3), which is `SteadyStateVerdict.measurement_window`.

Decisions made where the reference leaves room (pts.md §2.2 and §10 item 6):

- **Boundaries pass**: a data excursion of exactly 20 % and a slope excursion of exactly 10 % of
  the average pass (≤, as cloudharmony/block-storage does; the spec text says both "less than"
  and "no more than").
- **Exact arithmetic**: the comparisons are made on the exact rational values of the inputs
  (`fractions.Fraction`), so a boundary case decides the same way on every machine; the reported
  numbers are those exact values rounded to float.
- **Zero average**: a window whose average is 0 does not pass (a percentage of 0 says nothing);
  its excursion percentages are None.

The criteria are the same in PTS-E 1.1 and PTS 2.0.x (pts.md §2.1); what differs between the
versions is which variables are tracked (the catalogue in `ssdlab.profiles.pts`).

This is pure arithmetic on per-round values. It does not guard against the false early steady
state of single-workload loops on a fresh drive (pts.md §2.4, §9 pitfall 7): the caller decides
from which round on windows may be evaluated.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

SPEC = "SNIA SSS PTS 2.0.2 §2.1.13, §2.1.24 (same criteria in PTS-E 1.1)"
"""Where the criteria come from (pts.md §2.1)."""

DEFAULT_WINDOW_ROUNDS = 5
DEFAULT_MAX_DATA_EXCURSION_PCT = 20.0
DEFAULT_MAX_SLOPE_EXCURSION_PCT = 10.0
DEFAULT_MAX_ROUNDS = 25


@dataclass(frozen=True, slots=True)
class SteadyStateCriteria:
    """The rule a verdict was reached by; excursions at exactly the limit pass (≤)."""

    window_rounds: int
    max_data_excursion_pct: float
    max_slope_excursion_pct: float
    max_rounds: int
    spec: str = SPEC


@dataclass(frozen=True, slots=True)
class WindowCheck:
    """One tracking variable over one Measurement Window (pts.md §2.2, the "Steady State
    Determination Data" table). Values are in the variable's own unit (IOPS, bytes/s, ns)."""

    variable: str
    rounds: tuple[int, int]  # first and last round of the window, 1-based, inclusive
    values: tuple[float, ...]
    average: float
    allowed_data_excursion: float  # max_data_excursion_pct % of the average
    data_excursion: float  # max − min of the values
    data_excursion_pct: float | None  # of the average; None when the average is 0
    slope: float  # m of the least-squares line y = m·R + b, per round
    intercept: float  # b
    allowed_slope_excursion: float  # max_slope_excursion_pct % of the average
    slope_excursion: float  # |m| · (last round − first round)
    slope_excursion_pct: float | None  # of the average; None when the average is 0
    passes_range: bool
    passes_slope: bool
    passes: bool


@dataclass(frozen=True, slots=True)
class SteadyStateVerdict:
    """The first window in which every tracking variable is steady, or why there is none.

    `window` is the steady window (None when not steady). `measurement_window` is the window the
    report shows: the steady window, or the last window examined when steady state was not
    reached (pts.md §1.3), or None when there were too few rounds for any window. `checks` hold
    one WindowCheck per tracking variable (in the order given) for `measurement_window`.
    """

    steady: bool
    window: tuple[int, int] | None
    measurement_window: tuple[int, int] | None
    rounds_examined: int
    max_rounds: int
    checks: tuple[WindowCheck, ...]
    criteria: SteadyStateCriteria
    reason: str | None  # None when steady


def check_window(
    variable: str,
    values: Sequence[float],
    *,
    first_round: int,
    max_data_excursion_pct: float = DEFAULT_MAX_DATA_EXCURSION_PCT,
    max_slope_excursion_pct: float = DEFAULT_MAX_SLOPE_EXCURSION_PCT,
) -> WindowCheck:
    """Check one variable's values for rounds first_round, first_round+1, … (pts.md §2.2)."""
    _check_pct("max_data_excursion_pct", max_data_excursion_pct)
    _check_pct("max_slope_excursion_pct", max_slope_excursion_pct)
    if first_round < 1:
        raise ValueError(f"rounds are numbered from 1, not {first_round}")
    if len(values) < 2:
        raise ValueError(f"{variable}: a window needs at least 2 rounds, not {len(values)}")
    for offset, value in enumerate(values):
        _check_value(variable, first_round + offset, value)
    return _check_exact(
        variable,
        tuple(float(v) for v in values),
        first_round,
        Fraction(max_data_excursion_pct),
        Fraction(max_slope_excursion_pct),
    )


def detect_steady_state(
    tracking: Mapping[str, Sequence[float]],
    *,
    window: int = DEFAULT_WINDOW_ROUNDS,
    max_data_excursion_pct: float = DEFAULT_MAX_DATA_EXCURSION_PCT,
    max_slope_excursion_pct: float = DEFAULT_MAX_SLOPE_EXCURSION_PCT,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
) -> SteadyStateVerdict:
    """Find the first Measurement Window in which every tracking variable is steady.

    `tracking` maps each tracking variable's name to its per-round values, round 1 first. Rounds
    after `max_rounds` are not examined. Raises ValueError for no variables, series of unequal
    length, or a value that is negative, infinite or NaN.
    """
    if not tracking:
        raise ValueError("no tracking variables")
    if window < 2:
        raise ValueError(f"a measurement window needs at least 2 rounds, not {window}")
    if max_rounds < window:
        raise ValueError(f"max_rounds ({max_rounds}) is shorter than the window ({window})")
    _check_pct("max_data_excursion_pct", max_data_excursion_pct)
    _check_pct("max_slope_excursion_pct", max_slope_excursion_pct)
    lengths = {name: len(values) for name, values in tracking.items()}
    if len(set(lengths.values())) > 1:
        listed = ", ".join(f"{name}: {n}" for name, n in lengths.items())
        raise ValueError(f"tracking variables have different numbers of rounds ({listed})")
    series: dict[str, tuple[float, ...]] = {}
    for name, values in tracking.items():
        for index, value in enumerate(values):
            _check_value(name, index + 1, value)
        series[name] = tuple(float(v) for v in values)

    criteria = SteadyStateCriteria(
        window_rounds=window,
        max_data_excursion_pct=float(max_data_excursion_pct),
        max_slope_excursion_pct=float(max_slope_excursion_pct),
        max_rounds=max_rounds,
    )
    available = next(iter(lengths.values()))
    examined = min(available, max_rounds)
    if examined < window:
        return SteadyStateVerdict(
            steady=False,
            window=None,
            measurement_window=None,
            rounds_examined=examined,
            max_rounds=max_rounds,
            checks=(),
            criteria=criteria,
            reason=f"only {examined} rounds; a window needs {window}",
        )

    data_pct = Fraction(max_data_excursion_pct)
    slope_pct = Fraction(max_slope_excursion_pct)
    checks: tuple[WindowCheck, ...] = ()
    for last in range(window, examined + 1):
        first = last - window + 1
        checks = tuple(
            _check_exact(name, values[first - 1 : last], first, data_pct, slope_pct)
            for name, values in series.items()
        )
        if all(check.passes for check in checks):
            return SteadyStateVerdict(
                steady=True,
                window=(first, last),
                measurement_window=(first, last),
                rounds_examined=last,
                max_rounds=max_rounds,
                checks=checks,
                criteria=criteria,
                reason=None,
            )
    return SteadyStateVerdict(
        steady=False,
        window=None,
        measurement_window=(examined - window + 1, examined),
        rounds_examined=examined,
        max_rounds=max_rounds,
        checks=checks,
        criteria=criteria,
        reason=f"not steady after {examined} rounds",
    )


def _check_exact(
    variable: str,
    values: tuple[float, ...],
    first_round: int,
    data_pct: Fraction,
    slope_pct: Fraction,
) -> WindowCheck:
    """The pts.md §2.2 formulas on the exact rational values of the inputs."""
    n = len(values)
    xs = range(first_round, first_round + n)
    ys = [Fraction(v) for v in values]
    sum_x = sum(xs)
    sum_xx = sum(x * x for x in xs)
    sum_y = sum(ys, Fraction(0))
    sum_xy = sum((x * y for x, y in zip(xs, ys, strict=True)), Fraction(0))
    average = sum_y / n
    data_excursion = max(ys) - min(ys)
    slope = (n * sum_xy - sum_x * sum_y) / (n * sum_xx - sum_x * sum_x)
    intercept = (sum_y - slope * sum_x) / n
    slope_excursion = abs(slope) * (n - 1)
    allowed_data = data_pct * average / 100
    allowed_slope = slope_pct * average / 100
    positive = average > 0
    passes_range = positive and data_excursion <= allowed_data
    passes_slope = positive and slope_excursion <= allowed_slope
    return WindowCheck(
        variable=variable,
        rounds=(first_round, first_round + n - 1),
        values=values,
        average=float(average),
        allowed_data_excursion=float(allowed_data),
        data_excursion=float(data_excursion),
        data_excursion_pct=float(100 * data_excursion / average) if positive else None,
        slope=float(slope),
        intercept=float(intercept),
        allowed_slope_excursion=float(allowed_slope),
        slope_excursion=float(slope_excursion),
        slope_excursion_pct=float(100 * slope_excursion / average) if positive else None,
        passes_range=passes_range,
        passes_slope=passes_slope,
        passes=passes_range and passes_slope,
    )


def _check_value(variable: str, round_number: int, value: float) -> None:
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(
            f"{variable}: round {round_number} value must be a finite number ≥ 0, not {value}"
        )


def _check_pct(name: str, value: float) -> None:
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite percentage ≥ 0, not {value}")
