"""Each profile's settings as a typed, frozen dataclass: the struct its option table fills.

As fio's option table binds every option to the field of `struct thread_options` it fills, a
profile's `OptionSpec`s name the fields of its class here (`ProfileSpec.settings_type`); the
quick suite's class is `QuickSettings` (model/plan.py). Planners, analyses and reports read these
fields, never the settings by name.

A plan stores its settings as (name, value) pairs under these fields' names
(`ProfilePlan.settings`); `decode_settings` (model/typed_settings.py) reads them back into the
class. Fields are keyword-only and have no default, except those added after plans were stored
without them: such a field takes its option's default, so an older plan still decodes.
Sizes are in bytes, times in seconds, percentages whole numbers, unless the name says more.
"""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class AlignSettings:
    block_sizes: tuple[int, ...]  # bytes
    misalign: int  # bytes the misaligned runs are shifted by
    runtime: float  # seconds per block size and alignment
    iodepth: int
    repeat: int = 3  # rounds of every point (added after align plans were stored)


@dataclass(frozen=True, slots=True, kw_only=True)
class CacheSettings:
    pattern: str  # seq | rand
    block_size: int | None  # bytes; None: 1 MiB sequential, 4 KiB random
    iodepth: int
    log_interval: float  # seconds per bandwidth point
    rate: int | None = None  # bytes per second at most (added after cache plans were stored)
    recovery_idle: float | None  # seconds idle before the recovery write; None: no probe
    recovery_size: int | None  # bytes the recovery write writes; None: the region
    repeat: int = 1  # sustained writes of the region (added after cache plans were stored)
    # percent of the region discarded, then written sequentially before the measured write:
    # the fill level the cache was measured at (None: the drive as it was, fill unknown)
    prefill: int | None = None
    prefill_idle: float | None = None  # seconds idle after the prefill (None: none)


@dataclass(frozen=True, slots=True, kw_only=True)
class SweepSettings:
    threads: tuple[int, ...]
    iodepths: tuple[int, ...]
    workloads: str  # PATTERN:BLOCK list, parsed by plan/sweep.parse_workloads
    runtime: float  # seconds per cell
    ramp: float  # unmeasured seconds before each cell
    latency_metric: str  # mean | p99 | p999 | max: what the knee is judged by
    max_latency_us: float | None  # the knee's latency bound; None: best IOPS per latency
    repeat: int = 2  # rounds of the whole matrix (added after sweep plans were stored)


@dataclass(frozen=True, slots=True, kw_only=True)
class CachefitSettings:
    cache_size: int | None  # bytes of the drive's write cache
    from_run: int | None  # the `cache` run the cache size was read from
    inside_fraction: float  # inside test region, as a fraction of the cache
    beyond_multiple: float  # beyond test region, as a multiple of the cache
    preset: str  # the quick preset whose tests run
    runtime: float  # seconds per test
    interval: float  # idle seconds before each test
    recover: float  # idle seconds after the fill and before the write tests
    repeat: int = 3  # rounds of the reads and of the writes (added after cachefit plans)


@dataclass(frozen=True, slots=True, kw_only=True)
class TrimSettings:
    fstrim: str | None  # the mount point fstrim is timed on
    runtime: float  # seconds of random writes on each region state
    block_size: int  # bytes per random write
    iodepth: int
    repeat: int = 3  # rounds of fill, dirty writes, discard, writes (added after trim plans)


@dataclass(frozen=True, slots=True, kw_only=True)
class FillSettings:
    levels: tuple[int, ...]  # fill levels, percent of the region
    runtime: float  # seconds of random writes per level
    block_size: int  # bytes per random write
    iodepth: int
    repeat: int = 3  # random-write passes per level (added after fill plans were stored)


@dataclass(frozen=True, slots=True, kw_only=True)
class EnduranceSettings:
    workload: str  # randwrite-4k | jesd219-enterprise | jesd219-client | seq-128k | job
    job_file: str | None  # the user's fio job file (workload job)
    job_text: str | None  # its text, read from job_file and stored with the run
    iteration_time: float | None  # seconds one iteration writes
    iteration_bytes: int | None  # bytes one iteration writes
    for_time: float | None  # stop after this many seconds of writing
    until_written: int | None  # stop once fio has written this many bytes
    until_wear: float | None  # stop once the wear indicator rose by this many points
    health_every: float  # seconds between health samples while fio runs
    max_temperature: float  # °C: a safety stop above it
    iodepth: int
    log_interval: float  # seconds per throughput point within an iteration
    last_hours: float  # the recent window of 'WAF over the last hours'
    health_replay: str | None  # a log of saved smartctl snapshots replayed as the health source


@dataclass(frozen=True, slots=True, kw_only=True)
class PtsSettings:
    """What every PTS test takes; None takes the catalogue's value for the class and version.
    A value other than the catalogue's makes the run a trial (never labelled conformant)."""

    device_class: str  # enterprise | client
    pts_version: str  # 2.0.2 | 1.1
    purge: str  # auto, or a method of model/target.PURGE_METHODS
    write_cache: str  # class: as the class requires | keep: as it is (trial)
    threads: int | None  # TC
    iodepth: int | None  # QD
    seed: int  # the run's; each fio pass's randseed is drawn from it (plan/seeds.py)
    round_seconds: float | None  # seconds each element of a round runs
    active_range: int | None  # percent of the device
    wipc_multiple: float | None  # preconditioning writes, times the ActiveRange (0: none)


@dataclass(frozen=True, slots=True, kw_only=True)
class PtsRoundSettings(PtsSettings):
    """pts-iops, pts-tp and pts-lat: rounds to steady state over a matrix of elements."""

    max_rounds: int
    block_sizes: tuple[int, ...] | None  # bytes; None: every block size of the test
    mixes: tuple[int, ...] | None  # read percentages; None: every R/W mix of the test


@dataclass(frozen=True, slots=True, kw_only=True)
class PtsWsatSettings(PtsSettings):
    capacity_multiple: float | None  # stop after this many times the ActiveRange is written
    max_hours: float | None  # stop after this many hours


@dataclass(frozen=True, slots=True, kw_only=True)
class PtsHirSettings(PtsSettings):
    max_rounds: int  # preconditioning rounds before giving up on steady state
    repeats: int | None  # access + wait repeats per wait state
    wait_scale: float | None  # factor on the access and wait times


@dataclass(frozen=True, slots=True, kw_only=True)
class PtsXsrSettings(PtsSettings):
    duration_scale: float | None  # factor on the access groups' durations


@dataclass(frozen=True, slots=True, kw_only=True)
class QosSettings:
    workload: str | None  # the workload of the targets file judged (None: its first)
    targets: str | None  # the buyer's targets file (None: the OCP defaults ssdlab ships)
    targets_text: str | None  # its text, read from `targets` and stored with the run
    duration: float | None  # seconds of the workload (None: enough I/Os for every target)
    iodepth: int
