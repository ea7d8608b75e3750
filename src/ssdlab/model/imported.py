"""Benchmark results made by another tool (CrystalDiskMark, KDiskMark), in SI base units.

`semantics` says in plain sentences what the other tool's numbers mean (best of N or mean,
its MB/s, which latency), so a report never presents them as ssdlab's own measurement.
"""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ImportedTest:
    label: str  # normalised: SEQ1M Q8T1, RND4K Q32T16
    direction: str  # read | write | mix
    bw_bytes_per_s: float
    iops: float | None  # None when the export did not print it
    lat_mean_ns: float | None
    block_bytes: int
    random: bool
    queue_depth: int
    threads: int


@dataclass(frozen=True, slots=True)
class ImportedBenchmark:
    tool: str  # crystaldiskmark | kdiskmark
    tool_version: str | None
    profile: str | None  # Default / Peak / Real / Demo
    tests: tuple[ImportedTest, ...]
    test_size_bytes: int | None
    count: int | None
    measure_s: float | None
    interval_s: float | None
    date: str | None
    os: str | None
    target: str | None  # the drive / mount text of the export
    comment: str | None
    mix_read_pct: int | None
    zero_fill: bool | None
    semantics: tuple[str, ...]
