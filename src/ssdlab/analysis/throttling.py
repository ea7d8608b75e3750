"""What thermal throttling a pass showed, as analysis/thermal.py finds it: the seconds it read
(`ThermalPoint`), where throughput changed level (`Boundary`), each stretch of throttled
seconds (`Episode`) and the whole series (`ThermalSeries`). Kept apart from the method (numpy)
so that reading a stored finding back (report/thermal.py, the OCP thermal checks) imports no
numpy."""

from dataclasses import dataclass

from ssdlab.analysis.intervals import Interval


@dataclass(frozen=True, slots=True)
class ThermalPoint:
    """One second of a pass: elapsed seconds, composite temperature (None: not read), throughput."""

    elapsed_s: float
    temperature_c: float | None
    bw_bytes_per_s: float


@dataclass(frozen=True, slots=True)
class Boundary:
    """Where throughput changed level: `index` the first second of the new level, within
    [`index_low`, `index_high`] at 95 %; the threshold temperature it brackets (None when the
    readings there are missing, or they moved the wrong way for a threshold)."""

    index: int
    index_low: int
    index_high: int
    elapsed_s: float
    temperature_c: float | None  # the reading at `index`
    threshold: Interval | None


@dataclass(frozen=True, slots=True)
class Episode:
    """One stretch of throttled seconds; `exit` None when it lasted to the end of the series."""

    onset: Boundary
    exit: Boundary | None
    seconds: float
    explained_by_temperature: bool
    reason: str


@dataclass(frozen=True, slots=True)
class ThermalSeries:
    """What the series shows. `episodes` empty with `reason` when there is no throttling (or the
    series is too short to tell: `short`)."""

    points: int
    duration_s: float
    noise_sigma_bytes_per_s: float | None
    unthrottled_bw_bytes_per_s: float | None
    throttled_bw_bytes_per_s: float | None
    throttled_ratio: float | None
    throttled_ratio_interval: Interval | None
    episodes: tuple[Episode, ...]
    throttled_s: float
    throttled_interval_s: tuple[float, float] | None
    throttled_share_pct: float
    max_temperature_c: float | None
    short: bool
    reason: str

    @property
    def thermal_episodes(self) -> tuple[Episode, ...]:
        return tuple(e for e in self.episodes if e.explained_by_temperature)
