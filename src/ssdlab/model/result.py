"""Parsed measurements. Every unit is in the field name; unknown is None."""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DirectionMetrics:
    """One direction (read or write) of one fio job, in SI base units."""

    io_bytes: int
    total_ios: int | None  # None: fio before 2.1.14 did not print it
    runtime_s: float
    bw_bytes_per_s: float
    iops: float
    lat_mean_ns: float | None  # total latency (submission + completion)
    lat_min_ns: float | None
    lat_max_ns: float | None
    lat_stddev_ns: float | None
    clat_mean_ns: float | None
    clat_percentiles_ns: tuple[tuple[float, int], ...] = ()  # (percentile, ns)
    # total (submission + completion) latency percentiles, fio's lat_percentiles=1 table
    lat_percentiles_ns: tuple[tuple[float, int], ...] = ()


@dataclass(frozen=True, slots=True)
class FioJobResult:
    name: str
    error: int
    read: DirectionMetrics | None
    write: DirectionMetrics | None
    # fio's unified_rw_reporting=1: both directions reported together as "mixed"
    mixed: DirectionMetrics | None = None


@dataclass(frozen=True, slots=True)
class FioResult:
    fio_version: str | None
    timestamp_s: int | None
    jobs: tuple[FioJobResult, ...]


@dataclass(frozen=True, slots=True)
class SeriesPoint:
    """One interval of a fio per-interval log, summed over jobs."""

    elapsed_s: float  # end of the interval, from the job's start
    direction: str  # read | write
    bw_bytes_per_s: float | None
    iops: float | None
    lat_mean_ns: float | None


@dataclass(frozen=True, slots=True)
class PassMetrics:
    """The numbers a quick pass is judged by: both directions together (a mix is a total)."""

    bw_bytes_per_s: float
    iops: float
    lat_mean_ns: float | None
    read: DirectionMetrics | None
    write: DirectionMetrics | None
