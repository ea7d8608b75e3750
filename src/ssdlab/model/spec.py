"""A vendor's spec sheet: what a drive was promised to do, in SI base units.

Unknown (not published, or not found in a source) is None, never 0.
"""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ClaimedIops:
    iops: float
    queue_depth: int | None  # as the vendor states it; None when not stated
    threads: int | None
    block_bytes: int


@dataclass(frozen=True, slots=True)
class SpecSheet:
    key: str  # stable slug: samsung-970-evo-500gb
    vendor: str
    model: str  # marketing name
    part_numbers: tuple[str, ...]  # order codes and the model strings the drive reports
    capacity_bytes: int
    interface: str | None
    seq_read_bytes_per_s: float | None
    seq_write_bytes_per_s: float | None
    random_read: ClaimedIops | None
    random_write: ClaimedIops | None
    tbw_bytes: float | None
    dwpd: float | None
    warranty_years: float | None
    cache_bytes: int | None  # SLC / write cache size, when published
    sources: tuple[str, ...]  # where each figure came from
    notes: tuple[str, ...] = ()
