"""Benchmark results made by another tool (CrystalDiskMark, KDiskMark, AS SSD Benchmark,
Iometer), in SI base units.

`semantics` says in plain sentences what the other tool's numbers mean (best of N or mean,
its MB/s, which latency), so a report never presents them as ssdlab's own measurement.
`identity` is the drive as the export names it (and as `ssdlab import --model/--serial/
--firmware` sets it); every part the export does not state is None.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ImportedIdentity:
    """The measured drive as an export names it."""

    model: str | None = None  # the model string the drive reports ('Samsung SSD 970 EVO 500GB')
    serial: str | None = None
    firmware: str | None = None
    transport: str | None = None  # nvme | sata, only where the export states it
    capacity_bytes: int | None = None


@dataclass(frozen=True, slots=True)
class ImportedTest:
    label: str  # normalised: SEQ1M Q8T1; a tool's own test: 'AS SSD 4K-64Thrd'
    direction: str  # read | write | mix
    bw_bytes_per_s: float
    iops: float | None  # None when the export did not print it
    lat_mean_ns: float | None
    block_bytes: int
    random: bool
    queue_depth: int | None  # None: the export does not state it
    threads: int | None
    key: str | None = None  # a tool's own test key, where it is not one of ssdlab's quick tests


@dataclass(frozen=True, slots=True)
class ImportedBenchmark:
    tool: str  # crystaldiskmark | kdiskmark | ssdlab | asssd | iometer
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
    identity: ImportedIdentity = ImportedIdentity()
    details: dict[str, object] = field(default_factory=dict)  # the tool's other figures
