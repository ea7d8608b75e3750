"""A step's completion latencies of one direction in one second, per fio bucket: what a quick
run stores of fio's histogram log (`write_hist_log`, `log_hist_msec=1000`) so that the
histograms of many drives add bucket by bucket (`fleet compare`).

The buckets are fixed: fio's own (model/fio_buckets.py — 64 log-linear buckets per power of
two, ssdlab's layout at 6 sub-bits, 1,856 of them, the last open above 17.0 s). Only buckets
that hold I/Os are kept, in ascending order."""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SecondHistogram:
    direction: str  # read | write | trim
    second: int  # the second of the step's fio job in which its intervals closed (time_ms // 1000)
    counts: tuple[tuple[int, int], ...]  # (fio bucket, I/Os), buckets ascending, I/Os > 0

    @property
    def ios(self) -> int:
        return sum(count for _, count in self.counts)
