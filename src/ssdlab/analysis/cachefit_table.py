"""The `cachefit` verdict: the quick tests direct and buffered, inside and beyond the drive's
write cache, as cells, rows with their ratios, and the table (analysis/profiles/cachefit.py
makes it; the report reads it back from the stored finding)."""

from collections.abc import Sequence
from dataclasses import dataclass

from ssdlab.analysis.intervals import Interval


@dataclass(frozen=True, slots=True)
class CachefitCell:
    """One measured test: a quick test, direction, I/O mode and region; its figures are the
    means of its `passes`, MB/s and IOPS with their 95 % intervals (None: measured once, or
    stored before ssdlab repeated them)."""

    io_mode: str  # direct | buffered
    region: str  # inside | beyond
    region_bytes: int
    step_key: str
    bw_bytes_per_s: float
    mb_per_s: float
    iops: float
    lat_mean_ns: float | None
    bytes_moved: int | None
    covered_region: bool | None  # moved at least the whole region once
    passes: int = 1
    mb_per_s_interval: Interval | None = None
    iops_interval: Interval | None = None


@dataclass(frozen=True, slots=True)
class JudgedRatio:
    """One of a row's ratios (`name`: the row's field, e.g. 'inside_over_beyond_direct') with
    its 95 % interval and whether it is a cache effect (yes, no, inconclusive)."""

    name: str
    interval: Interval | None
    state: str


@dataclass(frozen=True, slots=True)
class CachefitRow:
    """One quick test in one direction, its (up to) four cells and their ratios. `figure`
    names what the ratios compare: MB/s for sequential tests, IOPS for random ones."""

    test: str  # SEQ1M Q8T1
    pattern: str  # seq | rnd
    direction: str  # read | write
    figure: str  # mb_per_s | iops
    cells: tuple[CachefitCell, ...]
    buffered_over_direct_inside: float | None
    buffered_over_direct_beyond: float | None
    inside_over_beyond_direct: float | None
    inside_over_beyond_buffered: float | None
    judged: tuple[JudgedRatio, ...] = ()  # the ratios measured, judged (none: stored before)

    def judged_ratio(self, name: str) -> JudgedRatio | None:
        return next((j for j in self.judged if j.name == name), None)

    @property
    def name(self) -> str:
        return f"{self.test} {self.direction}"

    def cell(self, io_mode: str, region: str) -> CachefitCell | None:
        return next((c for c in self.cells if (c.io_mode, c.region) == (io_mode, region)), None)

    def value(self, io_mode: str, region: str) -> float | None:
        return figure_of(self.cells, self.figure, io_mode, region)


@dataclass(frozen=True, slots=True)
class CachefitTable:
    """The verdict: every row, the cache size it was planned from, and the criterion."""

    cache_bytes: int | None
    inside_bytes: int | None
    beyond_bytes: int | None  # None: the beyond region did not fit on the target
    effect_ratio: float
    rows: tuple[CachefitRow, ...]
    page_cache_effect: tuple[str, ...]  # rows with buffered/direct >= effect_ratio
    drive_cache_effect: tuple[str, ...]  # write rows with direct inside/beyond >= effect_ratio
    not_covered: tuple[str, ...]  # write steps that wrote fewer bytes than their region
    sentences: tuple[str, ...]
    # rows whose ratio's interval straddles effect_ratio: the data cannot tell
    page_cache_inconclusive: tuple[str, ...] = ()
    drive_cache_inconclusive: tuple[str, ...] = ()


def figure_of(
    cells: Sequence[CachefitCell], figure: str, io_mode: str, region: str
) -> float | None:
    """MB/s or IOPS of the cell with this mode and region, None when it was not measured."""
    for cell in cells:
        if (cell.io_mode, cell.region) == (io_mode, region):
            return cell.mb_per_s if figure == "mb_per_s" else cell.iops
    return None
