"""The measured half of the alignment verdict: IOPS per block size and offset alignment, the
misalignment and sub-4 KiB ratios with their 95 % intervals, and whether each is a penalty
(yes, no or inconclusive). analysis/alignment.py sets them beside the target's static facts."""

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ssdlab.analysis.intervals import Interval, Sample, mean_interval, ratio_interval, sample_of
from ssdlab.analysis.verdict_state import State, at_least, interval_words, times_slower
from ssdlab.model.units import KiB, MiB

UNIT_BYTES = 4 * KiB
"""The mapping unit of almost every SSD: writes are aligned when they are aligned to this."""


@dataclass(frozen=True, slots=True)
class AlignResult:
    """Random-write IOPS of `block_size_bytes` writes at offsets aligned to `offset_align_bytes`
    (one pass); `per_second` its per-second IOPS when the pass logged them."""

    block_size_bytes: int
    offset_align_bytes: int
    iops: float
    per_second: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.block_size_bytes <= 0 or self.offset_align_bytes <= 0:
            raise ValueError(
                "block size and offset alignment must be positive, not "
                f"{self.block_size_bytes} and {self.offset_align_bytes}"
            )
        if not (math.isfinite(self.iops) and self.iops >= 0):
            raise ValueError(f"iops must be a finite number ≥ 0, not {self.iops}")

    @property
    def aligned(self) -> bool:
        """Whether the offsets are 4 KiB-aligned."""
        return self.offset_align_bytes % UNIT_BYTES == 0


@dataclass(frozen=True, slots=True)
class AlignmentRow:
    """One block size: IOPS at aligned and at misaligned offsets and their ratio.

    `ratio` = aligned / misaligned IOPS (above 1: misalignment costs); None with `reason` when
    either side was not measured or the misaligned side completed no I/O. The IOPS are the mean
    of a side's `passes`; each figure's 95 % interval is beside it (None: measured once with no
    log, or stored before ssdlab gave intervals; `passes` None then too).
    """

    block_size_bytes: int
    aligned_offset_bytes: int | None
    aligned_iops: float | None
    misaligned_offset_bytes: int | None
    misaligned_iops: float | None
    ratio: float | None
    reason: str | None
    passes: int | None = None
    aligned_interval: Interval | None = None
    misaligned_interval: Interval | None = None
    ratio_interval: Interval | None = None


@dataclass(frozen=True, slots=True)
class Penalty:
    """One ratio the verdict reads: its value, 95 % interval, the block size it is of, and
    whether it is a penalty (at least the penalty ratio)."""

    ratio: float
    interval: Interval | None
    block_size_bytes: int
    state: State


Samples = Mapping[tuple[int, bool], tuple[int, Sample]]  # (size, aligned) → (offset, sample)


def side_samples(results: Sequence[AlignResult]) -> dict[tuple[int, bool], tuple[int, Sample]]:
    """Per block size and side (aligned or not): the smallest offset alignment measured and the
    sample of its passes (their mean; their spread, or one pass's per-second log)."""
    found: dict[tuple[int, bool], tuple[int, Sample]] = {}
    for size in sorted({r.block_size_bytes for r in results}):
        for aligned in (True, False):
            side = [r for r in results if r.block_size_bytes == size and r.aligned == aligned]
            if not side:
                continue
            offset = min(r.offset_align_bytes for r in side)
            chosen = [r for r in side if r.offset_align_bytes == offset]
            per_second = chosen[0].per_second if len(chosen) == 1 else ()
            found[(size, aligned)] = (offset, sample_of([r.iops for r in chosen], per_second))
    return found


def alignment_row(samples: Samples, size: int) -> AlignmentRow:
    """The row of one block size, from its sides' samples."""
    a_off, a = samples.get((size, True), (None, None))
    m_off, m = samples.get((size, False), (None, None))
    reason = None
    ratio = interval = None
    if a is None:
        reason = "not measured at 4 KiB-aligned offsets"
    elif m is None:
        reason = "not measured at misaligned offsets"
    elif m.mean == 0:
        reason = "no write completed at misaligned offsets"
    else:
        ratio = a.mean / m.mean
        interval = ratio_interval(a, m)
    counts = [s.count for s in (a, m) if s is not None and s.basis == "repeats"]
    return AlignmentRow(
        size,
        a_off,
        None if a is None else a.mean,
        m_off,
        None if m is None else m.mean,
        ratio,
        reason,
        passes=min(counts) if counts else 1,
        aligned_interval=None if a is None else mean_interval(a),
        misaligned_interval=None if m is None else mean_interval(m),
        ratio_interval=interval,
    )


def misalignment(
    rows: Sequence[AlignmentRow], min_penalty_ratio: float, sentences: list[str]
) -> Penalty | None:
    """Measured: writes of 4 KiB or more at misaligned offsets against aligned ones; its
    sentence is added to `sentences`."""
    full = [r for r in rows if r.block_size_bytes >= UNIT_BYTES and r.ratio is not None]
    row = next((r for r in full if r.block_size_bytes == UNIT_BYTES), None) or (
        full[0] if full else None
    )
    if row is None or row.ratio is None:
        return None
    ratio, interval = row.ratio, row.ratio_interval
    state = at_least(ratio, interval, min_penalty_ratio)
    what = (
        f"{_size(row.block_size_bytes)} writes at "
        f"{_size(row.misaligned_offset_bytes or 0)}-aligned offsets"
    )
    words = interval_words(interval)
    if state is State.YES:
        sentence = (
            f"Misalignment penalty: yes — {what} are {ratio:.1f}× slower than 4 KiB-aligned "
            f"ones ({words}): this drive works in 4 KiB units; keep writes 4 KiB-aligned"
        )
    elif state is State.NO:
        sentence = (
            f"Misalignment penalty: no — {what} are about as fast as 4 KiB-aligned ones "
            f"({ratio:.2f}×, {words}; a penalty is {min_penalty_ratio:g}× or more)"
        )
    else:
        sentence = (
            f"Misalignment penalty: inconclusive — {what} ran {times_slower(ratio, 2)} than "
            f"4 KiB-aligned ones ({ratio:.2f}×), but the {words} straddles the "
            f"{min_penalty_ratio:g}× that counts as a penalty; more --repeat narrows it"
        )
    sentences.append(sentence)
    return Penalty(ratio, interval, row.block_size_bytes, state)


def sub_4k_penalty(
    rows: Sequence[AlignmentRow], samples: Samples, min_penalty_ratio: float, sentences: list[str]
) -> Penalty | None:
    """Measured: writes smaller than 4 KiB against 4 KiB-aligned 4 KiB writes (the largest
    slowdown, its interval and block size, and whether any block size shows a penalty); its
    sentence is added to `sentences`."""
    base = samples.get((UNIT_BYTES, True))
    if base is None or base[1].mean <= 0:
        return None
    found: list[Penalty] = []
    for row in rows:
        sides = [samples[(row.block_size_bytes, a)][1] for a in (True, False)
                 if (row.block_size_bytes, a) in samples]  # fmt: skip
        best = max(sides, key=lambda s: s.mean, default=None)
        if row.block_size_bytes >= UNIT_BYTES or best is None or best.mean <= 0:
            continue
        ratio = base[1].mean / best.mean
        interval = ratio_interval(base[1], best)
        found.append(
            Penalty(
                ratio, interval, row.block_size_bytes, at_least(ratio, interval, min_penalty_ratio)
            )
        )
    if not found:
        return None
    worst = max(found, key=lambda p: (p.ratio, -p.block_size_bytes))
    state = either(p.state for p in found) or State.INCONCLUSIVE
    detail = ", ".join(f"{_size(p.block_size_bytes)}: {p.ratio:.1f}×" for p in found)
    words = interval_words(worst.interval)
    if state is State.YES:
        sentence = (
            f"Sub-4 KiB penalty: yes — sub-4 KiB writes are {worst.ratio:.1f}× slower than "
            f"4 KiB-aligned ones ({detail}; {_size(worst.block_size_bytes)}: {words}): this "
            "drive works in 4 KiB units; keep writes 4 KiB-aligned and in whole multiples of "
            "4 KiB"
        )
    elif state is State.NO:
        sentence = (
            f"Sub-4 KiB penalty: no — sub-4 KiB writes are about as fast as 4 KiB-aligned ones "
            f"({detail}; {_size(worst.block_size_bytes)}: {words}): no sign of a 4 KiB "
            "internal unit"
        )
    else:
        sentence = (
            f"Sub-4 KiB penalty: inconclusive — {_size(worst.block_size_bytes)} writes ran "
            f"{times_slower(worst.ratio, 2)} than 4 KiB-aligned 4 KiB ones ({detail}), but the "
            f"{words} straddles the {min_penalty_ratio:g}× that counts as a penalty; more "
            "--repeat narrows it"
        )
    sentences.append(sentence)
    return Penalty(worst.ratio, worst.interval, worst.block_size_bytes, state)


def either(states: Iterable[State]) -> State | None:
    """yes when any is yes, no when all are no, inconclusive otherwise; None for none."""
    seen = set(states)
    if not seen:
        return None
    if State.YES in seen:
        return State.YES
    return State.NO if seen == {State.NO} else State.INCONCLUSIVE


def _size(size_bytes: int) -> str:
    """Exact binary size for sentences: 1048576 -> '1 MiB', 4096 -> '4 KiB', 512 -> '512 B'."""
    for unit, factor in (("GiB", 2**30), ("MiB", MiB), ("KiB", KiB)):
        if size_bytes >= factor and size_bytes % factor == 0:
            return f"{size_bytes // factor} {unit}"
    return f"{size_bytes:,} B" if size_bytes < KiB else f"{size_bytes:,} bytes"
