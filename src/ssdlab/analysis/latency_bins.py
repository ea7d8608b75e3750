"""Exact percentiles of a mixed workload from fio's latency histograms.

fio's json+ output has, per direction, `clat_ns.bins`: {latency in ns: I/O count} over its
log-linear buckets. The percentiles of reads and writes together are not any average of the two
directions' percentiles; they come from the two histograms added bucket by bucket. The
percentile p is the smallest bucket value at which the running count reaches p % of all I/Os,
the same rule fio applies to one direction.
"""

from collections.abc import Iterable, Mapping


def merge_bins(histograms: Iterable[Mapping[int, int]]) -> dict[int, int]:
    """Add histograms bucket by bucket."""
    merged: dict[int, int] = {}
    for histogram in histograms:
        for value, count in histogram.items():
            if count < 0:
                raise ValueError(f"a histogram count cannot be negative ({value}: {count})")
            merged[value] = merged.get(value, 0) + count
    return merged


def percentile_ns(histogram: Mapping[int, int], pct: float) -> int | None:
    """The latency at or below which pct % of the I/Os completed; None for no I/O."""
    if not 0 < pct <= 100:
        raise ValueError(f"a percentile is in (0, 100], not {pct}")
    total = sum(histogram.values())
    if total == 0:
        return None
    needed = total * pct / 100
    running = 0
    for value in sorted(histogram):
        running += histogram[value]
        if running >= needed:
            return value
    return max(histogram)
