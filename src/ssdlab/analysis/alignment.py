"""Alignment and sub-4 KiB writes: does this drive work in 4 KiB units, and is it used that way?

Flash is programmed in pages and most drives map it in 4 KiB units, whatever sector size they
report. A write smaller than the unit, or one that straddles two units, becomes a
read-modify-write inside the drive. A field report found a drive doing 16,299 IOPS with 4 KiB
writes at 4 KiB-aligned offsets and 1,802 at 512 B-aligned ones (Iometer, "Align I/Os on").

**Measured penalty.** Results are random-write IOPS per block size and offset alignment. An
offset alignment that is a multiple of 4 KiB is *aligned*, any other (512 B) *misaligned*; per
block size the table compares the smallest aligned against the smallest misaligned alignment.
Repeats of one combination are combined by their mean, with its 95 % interval from the repeats
(or, measured once, from the pass's per-second log: analysis/intervals.py). Two ratios decide,
each with its 95 % interval:

- misalignment: aligned / misaligned IOPS of 4 KiB writes (else the smallest block size
  ≥ 4 KiB with both);
- sub-4 KiB: IOPS of 4 KiB-aligned 4 KiB writes / the best IOPS of each block size < 4 KiB
  (the worst of these is reported).

A ratio of at least `min_penalty_ratio` (1.5×) is a penalty: *yes* when the whole interval is
at or above it, *no* when the whole interval is below it, *inconclusive* when it straddles it
(analysis/verdict_state.py). QD1 random-write IOPS repeat within about ±10 % run to run, and a
read-modify-write costs at least a read on top of the write (typically 2× or more), so 1.5×
sits above the noise and below any real penalty.

**Static facts.** The partition start is checked against 4 KiB and 1 MiB (the partitioning
tools' default, which also fits erase blocks and RAID stripes) and the physical sector when it
is larger; a drive whose physical sector is larger than its logical one (512e) wants I/O in
physical sectors. NVMe namespaces list LBA formats with a relative performance the drive
assigns (0 best, 1 better, 2 good, 3 degraded); a format without metadata that the drive ranks
strictly better than the one in use is recommended (reformatting destroys data).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ssdlab.analysis.alignment_penalty import (
    UNIT_BYTES,
    AlignmentRow,
    AlignResult,
    alignment_row,
    either,
    misalignment,
    side_samples,
    sub_4k_penalty,
)
from ssdlab.analysis.intervals import Interval
from ssdlab.analysis.verdict_state import State
from ssdlab.model.units import KiB, MiB

__all__ = ["UNIT_BYTES", "AlignResult", "AlignmentRow", "AlignmentVerdict", "LbaFormat"]
PARTITION_ALIGN_BYTES = 1 * MiB
MIN_PENALTY_RATIO = 1.5
"""Smallest IOPS ratio that counts as a penalty (see the module text)."""
RELATIVE_PERFORMANCE = {0: "best", 1: "better", 2: "good", 3: "degraded"}
"""NVMe Identify Namespace LBA format RP field."""


@dataclass(frozen=True, slots=True)
class LbaFormat:
    """An NVMe LBA format (`nvme id-ns`: lbaf N: ms, lbads as bytes, rp)."""

    index: int
    data_bytes: int
    metadata_bytes: int
    relative_performance: int | None

    @property
    def performance_label(self) -> str | None:
        """'best', 'better', 'good' or 'degraded'; None when not reported."""
        if self.relative_performance is None:
            return None
        return RELATIVE_PERFORMANCE.get(self.relative_performance)


@dataclass(frozen=True, slots=True)
class AlignmentVerdict:
    """Everything the alignment test found, and what it means in `sentences`.

    `misaligned_ratio` is the aligned / misaligned IOPS of `misaligned_block_size_bytes`
    writes (4 KiB when measured); `sub_4k_ratio` is 4 KiB-aligned 4 KiB IOPS over the best
    IOPS of `sub_4k_block_size_bytes`, the slowest block size below 4 KiB. `works_in_4k_units`
    is True when either ratio reaches `min_penalty_ratio`, False when the measured ones do not,
    None when neither was measured. `use_physical_sector` is True when the physical sector is
    larger than the logical one. `recommended_lba_format` is a format the drive ranks strictly
    better than the one in use, without metadata; None when there is none or it cannot be told.
    Unknown inputs give None, never False.

    Each ratio has its 95 % interval and its answer to "is it a penalty?" (`*_state`: yes, no
    or inconclusive, analysis/verdict_state.py); `works_in_4k_units_state` is yes when either is
    yes, no when every measured one is no, inconclusive otherwise, and `works_in_4k_units` is
    True, False or (inconclusive, unknown) None with it. A verdict stored before ssdlab gave
    intervals has none of these (None).
    """

    results: tuple[AlignResult, ...]
    rows: tuple[AlignmentRow, ...]
    min_penalty_ratio: float
    misaligned_ratio: float | None
    misaligned_block_size_bytes: int | None
    sub_4k_ratio: float | None
    sub_4k_block_size_bytes: int | None
    works_in_4k_units: bool | None
    partition_start_bytes: int | None
    partition_aligned_4k: bool | None
    partition_aligned_1m: bool | None
    partition_aligned_physical: bool | None
    logical_block_bytes: int | None
    physical_block_bytes: int | None
    use_physical_sector: bool | None
    lba_formats: tuple[LbaFormat, ...]
    lba_format_in_use: int | None
    in_use_format: LbaFormat | None
    recommended_lba_format: LbaFormat | None
    sentences: tuple[str, ...]
    misaligned_ratio_interval: Interval | None = None
    misaligned_state: str | None = None
    sub_4k_ratio_interval: Interval | None = None
    sub_4k_state: str | None = None
    works_in_4k_units_state: str | None = None


def alignment_verdict(
    results: Sequence[AlignResult],
    *,
    partition_start_bytes: int | None,
    logical_block_bytes: int | None,
    physical_block_bytes: int | None,
    lba_formats: Sequence[LbaFormat] = (),
    lba_format_in_use: int | None = None,
    min_penalty_ratio: float = MIN_PENALTY_RATIO,
) -> AlignmentVerdict:
    """The alignment table and a plain-language verdict.

    Raises ValueError for a negative partition start, a non-positive sector size or a
    `min_penalty_ratio` not above 1.
    """
    _check_inputs(
        partition_start_bytes, logical_block_bytes, physical_block_bytes, min_penalty_ratio
    )
    samples = side_samples(results)
    sizes = sorted({r.block_size_bytes for r in results})
    rows = tuple(alignment_row(samples, size) for size in sizes)
    sentences: list[str] = []
    misaligned = misalignment(rows, min_penalty_ratio, sentences)
    sub = sub_4k_penalty(rows, samples, min_penalty_ratio, sentences)
    works_state = either(p.state for p in (misaligned, sub) if p is not None)
    works_4k = {State.YES: True, State.NO: False}.get(works_state) if works_state else None

    # partition start
    aligned_4k = aligned_1m = aligned_phys = None
    if partition_start_bytes is not None:
        start = partition_start_bytes
        aligned_4k = start % UNIT_BYTES == 0
        aligned_1m = start % PARTITION_ALIGN_BYTES == 0
        if physical_block_bytes is not None:
            aligned_phys = start % physical_block_bytes == 0
        sentences.append(_partition_sentence(start, aligned_4k, aligned_1m, physical_block_bytes))

    # sector sizes
    use_physical = None
    if logical_block_bytes is not None and physical_block_bytes is not None:
        use_physical = physical_block_bytes > logical_block_bytes
        sentences.append(_sector_sentence(logical_block_bytes, physical_block_bytes, works_4k))

    formats = tuple(lba_formats)
    in_use, recommended = _lba_formats(formats, lba_format_in_use, sentences)
    return AlignmentVerdict(
        tuple(results),
        rows,
        min_penalty_ratio,
        None if misaligned is None else misaligned.ratio,
        None if misaligned is None else misaligned.block_size_bytes,
        None if sub is None else sub.ratio,
        None if sub is None else sub.block_size_bytes,
        works_4k,
        partition_start_bytes,
        aligned_4k,
        aligned_1m,
        aligned_phys,
        logical_block_bytes,
        physical_block_bytes,
        use_physical,
        formats,
        lba_format_in_use,
        in_use,
        recommended,
        tuple(sentences),
        misaligned_ratio_interval=None if misaligned is None else misaligned.interval,
        misaligned_state=None if misaligned is None else misaligned.state.value,
        sub_4k_ratio_interval=None if sub is None else sub.interval,
        sub_4k_state=None if sub is None else sub.state.value,
        works_in_4k_units_state=None if works_state is None else works_state.value,
    )


def _check_inputs(
    partition_start_bytes: int | None,
    logical_block_bytes: int | None,
    physical_block_bytes: int | None,
    min_penalty_ratio: float,
) -> None:
    if partition_start_bytes is not None and partition_start_bytes < 0:
        raise ValueError(f"partition start must be ≥ 0, not {partition_start_bytes}")
    for name, size in (("logical", logical_block_bytes), ("physical", physical_block_bytes)):
        if size is not None and size <= 0:
            raise ValueError(f"{name} block size must be positive, not {size}")
    if not min_penalty_ratio > 1:
        raise ValueError(f"min_penalty_ratio must be above 1, not {min_penalty_ratio}")


def _lba_formats(
    formats: tuple[LbaFormat, ...], lba_format_in_use: int | None, sentences: list[str]
) -> tuple[LbaFormat | None, LbaFormat | None]:
    """The NVMe LBA format in use and a better one offered, if any; their sentences are added
    to `sentences`."""
    in_use = next((f for f in formats if f.index == lba_format_in_use), None)
    recommended = _better_format(formats, in_use)
    if lba_format_in_use is not None and formats and in_use is None:
        sentences.append(
            f"The namespace's LBA format in use (#{lba_format_in_use}) is not among those it "
            "lists; cannot tell whether a better one is offered"
        )
    elif in_use is not None:
        sentences.extend(_format_sentences(formats, in_use, recommended))
    return in_use, recommended


def _partition_sentence(
    start: int, aligned_4k: bool, aligned_1m: bool, physical: int | None
) -> str:
    where = f"The partition starts at {_size(start)}"
    if start % 512 == 0 and not aligned_4k:
        where += f" (512-byte sector {start // 512})"
    physical_ok = physical is None or start % physical == 0
    if aligned_1m and physical_ok:
        return f"{where}: aligned"
    if not aligned_4k:
        return (
            f"{where}: not 4 KiB-aligned, so every 4 KiB block the filesystem writes straddles "
            "two of the drive's 4 KiB units; recreate the partition at 1 MiB (destroys data)"
        )
    if physical is not None and not physical_ok:
        return (
            f"{where}: not aligned to the drive's {_size(physical)} physical sector; recreate "
            f"the partition at a multiple of {_size(math.lcm(physical, PARTITION_ALIGN_BYTES))} "
            "(destroys data)"
        )
    return (
        f"{where}: 4 KiB-aligned, which suits 4 KiB units, but not 1 MiB-aligned (the "
        "partitioning tools' default, which also fits erase blocks and RAID stripes)"
    )


def _sector_sentence(logical: int, physical: int, works_4k: bool | None) -> str:
    if physical > logical:
        return (
            f"The drive reports {logical}-byte logical and {physical}-byte physical sectors: it "
            f"works in {_size(physical)} internally; use I/O aligned to and sized in "
            f"{_size(physical)} (a filesystem with 4 KiB blocks on an aligned partition does)"
        )
    text = f"The drive reports {logical}-byte logical and physical sectors"
    if works_4k and logical < UNIT_BYTES:
        text += ", but it measures like a 4 KiB drive: the sector size hides its real unit"
    return text


def _better_format(formats: Sequence[LbaFormat], in_use: LbaFormat | None) -> LbaFormat | None:
    if in_use is None or in_use.relative_performance is None:
        return None
    current = in_use.relative_performance
    better = [
        f
        for f in formats
        if f.index != in_use.index
        and f.metadata_bytes == 0
        and f.relative_performance is not None
        and f.relative_performance < current
    ]
    if not better:
        return None
    return min(
        better,
        key=lambda f: (f.relative_performance, abs(f.data_bytes - UNIT_BYTES), f.index),
    )


def _format_sentences(
    formats: Sequence[LbaFormat], in_use: LbaFormat, recommended: LbaFormat | None
) -> list[str]:
    uses = f"The namespace uses {in_use.data_bytes}-byte LBAs"
    if in_use.metadata_bytes:
        uses += f" with {in_use.metadata_bytes} bytes of metadata"
    if recommended is not None:
        return [
            f"{uses} (relative performance: {in_use.performance_label}) but offers "
            f"{recommended.data_bytes}-byte LBAs (relative performance: "
            f"{recommended.performance_label}); reformatting (destroys data) could help"
        ]
    others = sorted(
        {
            f.data_bytes
            for f in formats
            if f.index != in_use.index
            and f.metadata_bytes == 0
            and f.data_bytes != in_use.data_bytes
        }
    )
    if in_use.relative_performance is None or not others:
        if not others:
            return [f"{uses}, the only data size it offers without metadata"]
        offered = ", ".join(f"{size}-byte" for size in others)
        return [f"{uses} and also offers {offered} LBAs; the drive does not rank their performance"]
    return [
        f"{uses} (relative performance: {in_use.performance_label}); none of the other formats "
        "it offers is ranked better"
    ]


def _size(size_bytes: int) -> str:
    """Exact binary size for sentences: 1048576 -> '1 MiB', 4096 -> '4 KiB', 512 -> '512 B'."""
    for unit, factor in (("GiB", 2**30), ("MiB", MiB), ("KiB", KiB)):
        if size_bytes >= factor and size_bytes % factor == 0:
            return f"{size_bytes // factor} {unit}"
    return f"{size_bytes:,} B" if size_bytes < KiB else f"{size_bytes:,} bytes"
