"""The simulated drive: geometry, spare area, GC policy, pseudo-SLC cache and timing.

Spare is stored unambiguously as two byte counts (`logical_bytes`, `physical_bytes`); the two
conventions in use (spare ÷ logical, "7 % OP"; spare ÷ physical, MQSim's ratio) are both
derived from them and named explicitly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from ssdlab.errors import UsageError

SpareConvention = Literal["logical", "physical"]
INITIAL_STATES = ("empty", "full", "steady")
# NAND pages of real drives are 2–16 KiB; the mapping unit is at least a 512 B sector
MIN_PAGE_BYTES = 512
MAX_PAGE_BYTES = 64 * 1024
MIN_PAGES_PER_BLOCK = 4  # fewer leaves GC no room to choose a victim
MAX_PAGES_PER_BLOCK = 16_384
# both cores keep page numbers in 32 bits, the all-ones value meaning "unmapped"
MAX_PAGES = 2**32 - 2


class GcPolicy(StrEnum):
    GREEDY = "greedy"
    COST_BENEFIT = "cost-benefit"
    FIFO = "fifo"
    RANDOM = "random"
    D_CHOICES = "d-choices"


@dataclass(frozen=True, slots=True)
class Timing:
    """Per-operation NAND times; operations spread evenly over channels × dies."""

    page_read_us: float = 50.0
    page_program_us: float = 300.0
    block_erase_us: float = 3000.0
    slc_program_us: float = 60.0
    channels: int = 8
    dies_per_channel: int = 4

    @property
    def parallel_units(self) -> int:
        return self.channels * self.dies_per_channel


@dataclass(frozen=True, slots=True)
class SimConfig:
    logical_bytes: int
    physical_bytes: int
    page_bytes: int = 4096
    pages_per_block: int = 256
    gc_policy: GcPolicy = GcPolicy.GREEDY
    gc_d: int = 8
    gc_free_blocks_low: int = 1
    gc_free_blocks_high: int = 2
    slc_static_bytes: int = 0
    slc_dynamic: bool = False
    bits_per_cell: int = 3
    timing: Timing = field(default_factory=Timing)
    seed: int = 1
    initial_state: str = "empty"

    @classmethod
    def from_spare(
        cls, logical_bytes: int, spare: float, convention: SpareConvention, **kw: Any
    ) -> SimConfig:
        """Physical size from a spare value read in the named convention.

        logical: physical = logical × (1 + spare); physical: physical = logical ÷ (1 − spare).
        """
        if convention == "logical":
            physical = logical_bytes * (1.0 + spare)
        elif convention == "physical":
            if spare >= 1:
                raise UsageError(f"spare {spare} of physical capacity must be below 1")
            physical = logical_bytes / (1.0 - spare)
        else:
            raise UsageError(
                f"spare convention must be 'logical' or 'physical', not {convention!r}"
            )
        return cls(logical_bytes=logical_bytes, physical_bytes=round(physical), **kw)

    @property
    def block_bytes(self) -> int:
        return self.page_bytes * self.pages_per_block

    @property
    def logical_pages(self) -> int:
        return self.logical_bytes // self.page_bytes

    @property
    def total_blocks(self) -> int:
        return self.physical_bytes // self.block_bytes if self.block_bytes else 0

    @property
    def slc_pages_per_block(self) -> int:
        """Pages a block holds when programmed one bit per cell."""
        return self.pages_per_block // max(self.bits_per_cell, 1)

    @property
    def slc_static_blocks(self) -> int:
        if self.slc_static_bytes <= 0:
            return 0
        per_block = self.slc_pages_per_block * self.page_bytes
        return math.ceil(self.slc_static_bytes / per_block) if per_block else 0

    @property
    def native_blocks(self) -> int:
        """Blocks left for native (multi-bit) data once the static SLC pool is taken out."""
        return self.total_blocks - self.slc_static_blocks

    @property
    def alpha(self) -> float:
        """Physical ÷ logical pages as the FTL sees them (whole blocks, static SLC excluded)."""
        return self.native_blocks * self.pages_per_block / self.logical_pages

    @property
    def spare_of_logical(self) -> float:
        """(physical − logical) ÷ logical: the "7 % / 28 % OP" convention."""
        return self.alpha - 1.0

    @property
    def spare_of_physical(self) -> float:
        """(physical − logical) ÷ physical: MQSim's and SimpleSSD's convention."""
        return 1.0 - 1.0 / self.alpha


def validate_config(c: SimConfig) -> None:
    """Raise UsageError with the reason when the configuration cannot be simulated."""
    _check_geometry(c)
    _check_capacity(c)
    _check_gc(c)
    _check_slc_cache(c)
    _check_spare_and_start(c)
    _check_timing(c.timing)


def _check_geometry(c: SimConfig) -> None:
    if c.page_bytes <= 0:
        raise UsageError(f"page size must be positive, not {c.page_bytes}")
    if c.page_bytes & (c.page_bytes - 1) or not MIN_PAGE_BYTES <= c.page_bytes <= MAX_PAGE_BYTES:
        raise UsageError(
            f"page size must be a power of two from 512 B to 64 KiB (4KiB, 16KiB …), "
            f"not {c.page_bytes} B"
        )
    if c.pages_per_block <= 0:
        raise UsageError(f"pages per block must be positive, not {c.pages_per_block}")
    if not MIN_PAGES_PER_BLOCK <= c.pages_per_block <= MAX_PAGES_PER_BLOCK:
        raise UsageError(
            f"pages per block must be {MIN_PAGES_PER_BLOCK} to {MAX_PAGES_PER_BLOCK:,} "
            f"(real NAND: 64 to a few thousand), not {c.pages_per_block}"
        )


def _check_capacity(c: SimConfig) -> None:
    if c.logical_bytes % c.page_bytes:
        raise UsageError(
            f"logical capacity {c.logical_bytes} B is not a whole number of {c.page_bytes} B "
            f"pages; use {c.logical_bytes - c.logical_bytes % c.page_bytes} B"
        )
    if not 1 <= c.bits_per_cell <= 4:
        raise UsageError(f"bits per cell must be 1 (SLC) to 4 (QLC), not {c.bits_per_cell}")
    if c.logical_bytes < c.block_bytes:
        raise UsageError(
            f"logical capacity {c.logical_bytes} B is smaller than one block ({c.block_bytes} B)"
        )
    if c.physical_bytes <= c.logical_bytes:
        raise UsageError(
            f"spare must be positive: physical {c.physical_bytes} B ≤ logical {c.logical_bytes} B"
        )
    if c.total_blocks * c.pages_per_block > MAX_PAGES:
        raise UsageError(
            f"{c.total_blocks * c.pages_per_block:,} physical pages of {c.page_bytes} B are more "
            f"than the simulator can number ({MAX_PAGES:,}); use a larger --page-size"
        )


def _check_gc(c: SimConfig) -> None:
    if not isinstance(c.gc_policy, GcPolicy):
        raise UsageError(f"unknown GC policy {c.gc_policy!r}")
    if c.gc_d < 1:
        raise UsageError(f"d-choices needs d ≥ 1, not {c.gc_d}")
    if c.gc_free_blocks_low < 1 or c.gc_free_blocks_high <= c.gc_free_blocks_low:
        raise UsageError(
            "free-block thresholds need 1 ≤ low < high, not "
            f"low={c.gc_free_blocks_low} high={c.gc_free_blocks_high}"
        )


def _check_slc_cache(c: SimConfig) -> None:
    if c.slc_static_bytes < 0:
        raise UsageError(f"static SLC size must not be negative, not {c.slc_static_bytes}")
    if (c.slc_static_bytes > 0 or c.slc_dynamic) and c.bits_per_cell == 1:
        raise UsageError("a pseudo-SLC cache needs multi-bit cells (bits per cell ≥ 2)")
    if c.slc_static_bytes > 0 and c.slc_pages_per_block < 1:
        raise UsageError("a block must hold at least one page in SLC mode")
    if c.slc_static_bytes * c.bits_per_cell >= c.physical_bytes:
        raise UsageError(
            f"static SLC cache of {c.slc_static_bytes} B is larger than the drive "
            f"({c.physical_bytes} B physical at {c.bits_per_cell} bits per cell)"
        )


def _check_spare_and_start(c: SimConfig) -> None:
    logical_blocks = math.ceil(c.logical_pages / c.pages_per_block)
    needed = logical_blocks + c.gc_free_blocks_high + 2
    if c.native_blocks < needed:
        what = " after the static SLC cache" if c.slc_static_blocks else ""
        raise UsageError(
            f"spare too small: {c.native_blocks} native blocks{what} for {logical_blocks} blocks "
            f"of logical data; GC needs at least {needed}"
        )
    if c.initial_state not in INITIAL_STATES:
        raise UsageError(
            f"initial state must be one of {', '.join(INITIAL_STATES)}, not {c.initial_state!r}"
        )
    if not 0 <= c.seed < 2**64:
        raise UsageError(f"seed must be in 0 … 2^64−1, not {c.seed}")


def _check_timing(t: Timing) -> None:
    times = (t.page_read_us, t.page_program_us, t.block_erase_us, t.slc_program_us)
    if any(not math.isfinite(x) or x < 0 for x in times):
        raise UsageError("NAND operation times must be finite and not negative")
    if t.page_program_us <= 0 or t.slc_program_us <= 0:
        raise UsageError("page program times must be positive (a write takes time)")
    if t.channels < 1 or t.dies_per_channel < 1:
        raise UsageError("timing needs at least one channel and one die per channel")
