"""One stored fio measurement: a quick test pass (later a PTS round or an endurance iteration)."""

from dataclasses import dataclass

from ssdlab.model.result import DirectionMetrics, SeriesPoint


@dataclass(frozen=True, slots=True)
class StepResult:
    step_key: str  # e.g. seq1m-q8t1-read
    step_label: str  # e.g. SEQ1M Q8T1
    direction: str  # read | write | mix
    round_index: int  # quick: pass number, 0 = warm-up
    discarded: bool  # warm-up passes are kept but not counted
    bw_bytes_per_s: float  # both directions together
    iops: float
    lat_mean_ns: float | None
    read: DirectionMetrics | None
    write: DirectionMetrics | None
    capture_id: int | None = None
    series: tuple[SeriesPoint, ...] = ()
