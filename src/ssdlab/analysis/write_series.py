"""A write step's bandwidth series as the cliff detection reads it: (bytes written so far, B/s)
points, each interval's bytes being its mean bandwidth times its length, so the x axis is what
the drive had absorbed, not time; and how long the write took.

A `cache` write since the histogram log was added has its series from that log
(parse/fio_hist_series.py): bandwidth × length is each interval's bytes exactly. A run stored
before has fio's averaged bandwidth log, whose product miscounts the bytes across a stall."""

from collections.abc import Sequence

from ssdlab.model.step import StepResult


def bytes_series(step: StepResult) -> tuple[tuple[float, float], ...]:
    """(cumulative bytes, B/s) per log interval of a write step."""
    points: list[tuple[float, float]] = []
    written = 0.0
    previous = 0.0
    for point in step.series:
        if point.direction != "write" or point.bw_bytes_per_s is None:
            continue
        written += point.bw_bytes_per_s * max(point.elapsed_s - previous, 0.0)
        previous = point.elapsed_s
        points.append((written, point.bw_bytes_per_s))
    return tuple(points)


def write_seconds(step: StepResult) -> float | None:
    """How long fio wrote: its runtime, else the end of the last logged interval."""
    if step.write is not None and step.write.runtime_s > 0:
        return step.write.runtime_s
    ends = [p.elapsed_s for p in step.series if p.direction == "write"]
    return max(ends) if ends else None


def seconds_text(value: float) -> str:
    """How long a write took, as the cache verdict and report say it: '0.52 s', '1,234 s'."""
    return f"{value:.2g} s" if value < 10 else f"{value:,.0f} s"


def writes_of(steps: Sequence[StepResult]) -> list[StepResult]:
    """Every measured pass of a cache run's write, in the order they ran."""
    return sorted((s for s in steps if not s.discarded and s.step_key == "write"),
                  key=lambda s: s.round_index)  # fmt: skip
