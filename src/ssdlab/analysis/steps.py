"""When a slow counter stepped: `smartctl` in cron piped through `uniq -c`, done properly.

Each increment of a counter (e.g. `erase_count_avg` or `wear_used_pct`) happened after the last
sample that still showed the old value and no later than the first sample that shows the new one:
both bounds are reported, with their midpoint. The time since the previous step and the host and
NAND bytes written between the two steps tell how much work one step of the counter takes.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from ssdlab.analysis.waf import counter_change, health_value
from ssdlab.model.health import HEALTH_METRICS, HealthSample
from ssdlab.model.units import format_counter_value


@dataclass(frozen=True, slots=True)
class CounterStep:
    """One increment of `metric` (values in the unit its name ends with).

    The step happened in (`last_before_s`, `first_after_s`]: the last sample still at
    `from_value` and the first at `to_value`. `samples_at_from_value` counts the consecutive
    samples that showed `from_value` (what `uniq -c` prints).
    `since_previous_step_s` is midpoint to midpoint, within [`since_previous_min_s`,
    `since_previous_max_s`]. `host_written_bytes` / `nand_written_bytes` were written from the
    first sample showing the previous step to the first sample showing this one. A value that
    cannot be known (first step, counter reset in between, counter missing) is None, and
    `reason` says why.
    """

    metric: str
    from_value: float
    to_value: float
    last_before_s: float
    first_after_s: float
    samples_at_from_value: int
    since_previous_step_s: float | None
    since_previous_min_s: float | None
    since_previous_max_s: float | None
    host_written_bytes: float | None
    nand_written_bytes: float | None
    reason: str | None

    @property
    def step(self) -> float:
        return self.to_value - self.from_value

    @property
    def midpoint_s(self) -> float:
        return (self.last_before_s + self.first_after_s) / 2

    @property
    def uncertainty_s(self) -> float:
        """Half the gap between the bounding samples: the step time is midpoint ± this."""
        return (self.first_after_s - self.last_before_s) / 2


def counter_step_timing(samples: Sequence[HealthSample], metric: str) -> tuple[CounterStep, ...]:
    """Every increment of `metric` over the samples, in time order.

    Samples without a time or without the metric bound nothing and are skipped. A decrease (wrap
    or reset) is not a step; it breaks the chain, so the next step has no "since previous".
    """
    if metric not in HEALTH_METRICS:
        raise ValueError(f"unknown health metric {metric!r}; known: {', '.join(HEALTH_METRICS)}")
    timed = sorted(
        (
            s
            for s in samples
            if s.taken_at_s is not None and health_value(s, metric).value is not None
        ),
        key=_time,
    )
    steps: list[CounterStep] = []
    previous: CounterStep | None = None
    previous_visible: HealthSample | None = None
    broken = "the first step observed: no previous step"
    run = 1
    for a, b in pairwise(timed):
        va, vb = _value(a, metric), _value(b, metric)
        if vb == va:
            run += 1
            continue
        if vb < va:
            broken = (
                f"{metric} went down from {format_counter_value(metric, va)} to "
                f"{format_counter_value(metric, vb)} between {_time(a):.0f} s and {_time(b):.0f} s "
                "(wrap or reset) since the previous step"
            )
            previous, previous_visible, run = None, None, 1
            continue
        step = _step(metric, a, b, run, previous, previous_visible, broken)
        steps.append(step)
        previous, previous_visible, run = step, b, 1
    return tuple(steps)


def _time(sample: HealthSample) -> float:
    assert sample.taken_at_s is not None
    return sample.taken_at_s


def _value(sample: HealthSample, metric: str) -> float:
    value = health_value(sample, metric).value
    assert value is not None
    return value


def _step(
    metric: str,
    a: HealthSample,
    b: HealthSample,
    run: int,
    previous: CounterStep | None,
    previous_visible: HealthSample | None,
    broken: str,
) -> CounterStep:
    t0, t1 = _time(a), _time(b)
    if previous is None or previous_visible is None:
        return CounterStep(
            metric, _value(a, metric), _value(b, metric), t0, t1, run,
            None, None, None, None, None, broken,
        )  # fmt: skip
    reasons = []
    written: list[float | None] = []
    for counter in ("host_written_bytes", "nand_written_bytes"):
        change = counter_change(previous_visible, b, counter)
        written.append(change.delta)
        if change.reason is not None:
            reasons.append(change.reason)
    midpoint = (t0 + t1) / 2
    return CounterStep(
        metric,
        _value(a, metric),
        _value(b, metric),
        t0,
        t1,
        run,
        midpoint - previous.midpoint_s,
        t0 - previous.first_after_s,
        t1 - previous.last_before_s,
        written[0],
        written[1],
        "; ".join(reasons) or None,
    )
