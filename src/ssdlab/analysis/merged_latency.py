"""Latency percentiles of many hosts together, from their histograms added bucket by bucket —
never an average of the hosts' percentiles, which is no percentile of anything (pbench #745,
diskspd #108, spdk #3543).

Each host's fio logs, per interval and direction, a histogram of its I/Os' completion
latencies in fio's buckets (parse/fio_hist_log.py: ssdlab's log-linear buckets at 6 sub-bits,
0.78 % from a bucket's midpoint). Histograms over the same buckets add: the sum is the
histogram of every host's I/Os together, so its nearest-rank percentile is the percentile of
all the I/Os, within its bucket. Here, per direction:

- the whole run's histogram at fio's resolution, its p50, p99 and p99.9, and for p99 and up
  the number of I/Os, those above, and the 95 % interval or the I/Os it needs
  (analysis/tail_intervals.py), with the block bootstrap over seconds when there are enough;
- per second (the second in which each host's interval closed, counted from each host's job
  start: fio's client starts every server's job together) the histogram at the per-second
  resolution of analysis/latency_stream.py (2^4 sub-buckets: each fio bucket lies in exactly
  one), its I/O count, its p50, and its p99 and p99.9 only where the second's I/Os support
  them (tail_intervals.needs_ios): never a tail percentile its sample count cannot support.

The histograms come from fio's logs (`fleet load`) or from the store (a quick run's
`step_histograms`, model/step_histogram.py: the same buckets, kept per second; `stored_records`
reads them as records), so one merger serves both.

fio's last bucket holds every latency from 17.0 s up: a percentile that falls in it has no
value (None), as its bucket has no upper end.
"""

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ssdlab.analysis.latency_stream import (
    DIRECTIONS,
    SERIES_BUCKETS,
    SERIES_SUB_BITS,
    bucket_bounds,
    bucket_of,
    bucket_value,
)
from ssdlab.analysis.tail_intervals import (
    TAIL_FROM,
    TailEstimate,
    block_bootstrap,
    histogram_tail,
    nearest_rank,
    needs_ios,
    tail_data,
)
from ssdlab.model.fio_buckets import FIO_PLAT_BITS, FIO_PLAT_BUCKETS
from ssdlab.model.step_histogram import SecondHistogram

PERCENTILES = (50.0, 99.0, 99.9)
OPEN_BUCKET = FIO_PLAT_BUCKETS - 1  # fio's last bucket: every latency from its low bound up
OPEN_FROM_NS = bucket_bounds(OPEN_BUCKET, FIO_PLAT_BITS)[0]
Ints = npt.NDArray[np.int64]


class HistRecord(Protocol):
    """One direction's I/Os of one interval per fio bucket (parse/fio_hist_log.HistRecord)."""

    @property
    def time_ms(self) -> int: ...
    @property
    def direction(self) -> int: ...
    @property
    def counts(self) -> Ints: ...


# the per-second bucket of each fio bucket (a fio bucket lies within one)
SERIES_OF_FIO = np.array(
    [
        bucket_of(bucket_bounds(b, FIO_PLAT_BITS)[0], SERIES_SUB_BITS)
        for b in range(FIO_PLAT_BUCKETS)
    ],
    dtype=np.int64,
)
OPEN_SERIES_BUCKET = int(SERIES_OF_FIO[OPEN_BUCKET])


@dataclass
class MergedHistograms:
    """One direction's histograms, added over hosts and intervals as they come."""

    total: Ints = field(default_factory=lambda: np.zeros(FIO_PLAT_BUCKETS, dtype=np.int64))
    seconds: dict[int, Ints] = field(default_factory=dict)

    def add(self, record: HistRecord) -> None:
        self.total += record.counts
        coarse = np.bincount(SERIES_OF_FIO, weights=record.counts, minlength=SERIES_BUCKETS)
        second = record.time_ms // 1000
        held = self.seconds.setdefault(second, np.zeros(SERIES_BUCKETS, dtype=np.int64))
        held += np.rint(coarse).astype(np.int64)

    def second_rows(self) -> tuple[list[int], Ints]:
        """(the seconds, in order, and their histograms as rows)."""
        order = sorted(self.seconds)
        rows = np.array([self.seconds[s] for s in order], dtype=np.int64)
        return order, rows.reshape(len(order), SERIES_BUCKETS)


def merge_records(hosts: Iterable[Iterable[HistRecord]]) -> dict[int, MergedHistograms]:
    """Every host's records added per direction (fio's ddir) and second."""
    merged: dict[int, MergedHistograms] = {}
    for records in hosts:
        for record in records:
            merged.setdefault(record.direction, MergedHistograms()).add(record)
    return dict(sorted(merged.items()))


def percentile_of(histogram: Ints, pct: float, sub_bits: int, open_bucket: int) -> float | None:
    """The nearest-rank percentile: the midpoint of the bucket holding the ⌈q·n⌉-th I/O;
    None with no I/O or in the bucket without an upper end."""
    n = int(histogram.sum())
    if n == 0:
        return None
    bucket = int(np.searchsorted(np.cumsum(histogram), nearest_rank(n, pct), side="left"))
    return None if bucket >= open_bucket else bucket_value(bucket, sub_bits)


def supported(pct: float, n: int) -> bool:
    """Whether n I/Os support the percentile: any below p99 with one I/O, a tail with
    tail_intervals.needs_ios."""
    return n > 0 and (pct < TAIL_FROM or n >= needs_ios(pct))


@dataclass(frozen=True, slots=True)
class SecondLatency:
    second: int  # the intervals that closed in this second of the hosts' jobs
    ios: int
    percentiles_ns: tuple[tuple[float, float | None], ...]  # None: not supported by `ios`


@dataclass(frozen=True, slots=True)
class MergedLatency:
    """One direction of every host together."""

    direction: str
    ios: int
    percentiles_ns: tuple[tuple[float, float | None], ...]
    tails: tuple[TailEstimate, ...]  # p99 and up: n, above, interval or the I/Os it needs
    seconds: tuple[SecondLatency, ...]


def _fine_bounds(bucket: int) -> tuple[int, int]:
    return bucket_bounds(bucket, FIO_PLAT_BITS)


def _series_bounds(bucket: int) -> tuple[int, int]:
    return bucket_bounds(bucket, SERIES_SUB_BITS)


def _tail(merged: MergedHistograms, pct: float, value: float | None) -> TailEstimate:
    n = int(merged.total.sum())
    used = np.flatnonzero(merged.total)
    if value is None and supported(pct, n):
        return TailEstimate(
            pct,
            n,
            needs_ios(pct),
            None,
            n - nearest_rank(n, pct),
            None,
            unknown=f"in fio's last bucket, which holds every latency from {OPEN_FROM_NS} ns up",
        )
    seen = (_fine_bounds(int(used[0]))[0], _fine_bounds(int(used[-1]))[1]) if n else (0, 0)
    tail = histogram_tail(merged.total, pct, _fine_bounds, value or 0.0, seen)
    if not tail.estimable:
        return tail
    _, rows = merged.second_rows()
    boot, seed = block_bootstrap(rows, pct, _series_bounds)
    return TailEstimate(
        tail.pct, tail.n, tail.needs, value, tail.above, tail.interval, boot, seed, tail.unknown
    )


def _second(second: int, histogram: Ints) -> SecondLatency:
    n = int(histogram.sum())
    values = tuple(
        (
            pct,
            percentile_of(histogram, pct, SERIES_SUB_BITS, OPEN_SERIES_BUCKET)
            if supported(pct, n)
            else None,
        )
        for pct in PERCENTILES
    )
    return SecondLatency(second, n, values)


def summarise_merged(direction: int, merged: MergedHistograms) -> MergedLatency:
    n = int(merged.total.sum())
    values = tuple(
        (pct, percentile_of(merged.total, pct, FIO_PLAT_BITS, OPEN_BUCKET)) for pct in PERCENTILES
    )
    seconds, rows = merged.second_rows()
    return MergedLatency(
        direction=DIRECTIONS[direction],
        ios=n,
        percentiles_ns=tuple((p, v if supported(p, n) else None) for p, v in values),
        tails=tuple(_tail(merged, p, v) for p, v in values if p >= TAIL_FROM),
        seconds=tuple(_second(s, row) for s, row in zip(seconds, rows, strict=True)),
    )


def merged_latency(hosts: Mapping[str, Iterable[HistRecord]]) -> dict[str, MergedLatency]:
    """Per direction name (read, write, trim), every host's histograms merged and summarised."""
    merged = merge_records(hosts.values())
    return {DIRECTIONS[d]: summarise_merged(d, m) for d, m in merged.items()}


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """A stored second (model/step_histogram.SecondHistogram) as a HistRecord."""

    time_ms: int
    direction: int
    counts: Ints


_DDIR = {name: ddir for ddir, name in DIRECTIONS.items()}


def stored_records(histograms: Iterable[SecondHistogram]) -> Iterator[StoredRecord]:
    """Stored per-second histograms as records of their second (fio's buckets, dense)."""
    for histogram in histograms:
        counts = np.zeros(FIO_PLAT_BUCKETS, dtype=np.int64)
        for bucket, count in histogram.counts:
            counts[bucket] += count
        yield StoredRecord(histogram.second * 1000, _DDIR[histogram.direction], counts)


def _key(pct: float) -> str:
    return f"{pct:g}"


def merged_latency_data(merged: MergedLatency) -> dict[str, Any]:
    """One direction as JSON: the I/Os, the percentiles (None where the I/Os cannot support
    them), the tails from p99 up (tail_intervals.tail_data) and every second's."""
    return {
        "ios": merged.ios,
        "percentiles_ns": {_key(p): v for p, v in merged.percentiles_ns},
        "tails": {_key(t.pct): tail_data(t) for t in merged.tails},
        "seconds": [
            {
                "second": s.second,
                "ios": s.ios,
                "percentiles_ns": {_key(p): v for p, v in s.percentiles_ns},
            }
            for s in merged.seconds
        ],
    }
