"""The state `ssdlab metrics` exports, as plain values: per drive its latest health and wear
analysis, its latest quick run's results, and the endurance runs under way.

Every figure is in base units (bytes, seconds, ratios 0–1, °C); None means unknown and the
metric is left out, never written as 0."""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DriveLabels:
    """Who a metric is about. `host`: the machine's name, or a collected run's inventory name;
    the others as the drive reports them, "" when it does not."""

    host: str
    serial: str
    model: str
    firmware: str


@dataclass(frozen=True, slots=True)
class DriveState:
    """One drive: its latest health sample and the wear analysis of its stored samples."""

    labels: DriveLabels
    capacity_bytes: float | None = None
    temperature_celsius: float | None = None
    temperature_warning_celsius: float | None = None
    power_on_seconds: float | None = None
    host_written_bytes: float | None = None
    nand_written_bytes: float | None = None
    wear_used_ratio: float | None = None
    available_spare_ratio: float | None = None
    available_spare_threshold_ratio: float | None = None
    write_amplification_recent: float | None = None
    write_amplification_to_date: float | None = None
    wear_rate_ratio_per_day: float | None = None
    end_of_life_days: float | None = None
    end_of_life_error_ratio: float | None = None
    rated_written_bytes: float | None = None
    media_errors: float | None = None
    uncorrectable_errors: float | None = None
    error_log_entries: float | None = None
    critical_warning: float | None = None
    sample_timestamp_seconds: float | None = None


@dataclass(frozen=True, slots=True)
class BenchmarkTest:
    """One test of a quick run: the mean over its measured passes. `regression`: whether the
    run's baseline judgement found it significantly worse (None: not judged)."""

    test: str  # the step key, e.g. seq1m-q8t1-read
    throughput_bytes_per_second: float | None = None
    iops: float | None = None
    latency_mean_seconds: float | None = None
    latency_p99_seconds: float | None = None
    timestamp_seconds: float | None = None
    regression: bool | None = None


@dataclass(frozen=True, slots=True)
class BenchmarkState:
    """The latest complete quick run of one drive; `baseline`: the name of the baseline it was
    judged against, when it was."""

    labels: DriveLabels
    run_id: int
    tests: tuple[BenchmarkTest, ...]
    baseline: str | None = None


@dataclass(frozen=True, slots=True)
class EnduranceState:
    """An endurance run that is running or recent: where its stop condition stands."""

    labels: DriveLabels
    run: str  # the run's id in this store
    progress_ratio: float | None = None
    written_bytes: float | None = None


@dataclass(frozen=True, slots=True)
class MetricsState:
    drives: tuple[DriveState, ...] = ()
    benchmarks: tuple[BenchmarkState, ...] = ()
    endurance: tuple[EnduranceState, ...] = ()
