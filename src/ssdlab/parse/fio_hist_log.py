"""fio's completion latency histogram logs (`write_hist_log=PREFIX`, `log_hist_msec=N`) -> one
histogram per direction and interval.

fio 3.33 writes `PREFIX_clat_hist.JOB.log` (fio's client: `PREFIX_clat_hist.JOB.log.SERVER`,
SERVER the address given to --client), one line per direction each time an interval of
`log_hist_msec` closes: `time_ms, ddir, bs, c0, c1, …, c1855` (iolog.c flush_hist_samples,
client.c client_flush_hist_samples). `time_ms` is when the I/O that closed the interval
completed, from the job's start; ddir is 0 read, 1 write, 2 trim; c_i counts the I/Os whose
completion latency fell in fio's bucket i: fio's own clat histogram (stat.c plat_val_to_idx;
FIO_IO_U_PLAT_BITS 6, FIO_IO_U_PLAT_NR 1856), in nanoseconds. Its buckets are ssdlab's
log-linear buckets at 6 sub-bits (analysis/latency_stream.bucket_of(value, 6) is fio's index
for every value up to the last bucket, which holds every latency from 17.0 s up:
model/fio_buckets.py). With `log_hist_coarseness=C` each number sums 2^C buckets; ssdlab
reads only C = 0.

fio writes no histogram for the I/Os after the last interval closed (the job's last part of
an interval is not logged), so a log holds a little less than the job's total_ios.

**A log relayed by fio's client is not per interval.** fio's server takes a copy of the
job's cumulative histogram C_k at each interval and, before sending, subtracts from each copy
the one before it (server.c __fio_append_iolog_gz_hist) — in place, in order, so the copy it
subtracts has already had its own predecessor subtracted. The client thus writes
D_k = C_k − D_{k−1} (D_1 = C_1): right for the first two intervals and wrong from the third
(fio 3.33 and fio's master to date). Since C_k = D_k + D_{k−1}, the interval's own I/Os are
D_k − D_{k−2}, which `relayed=True` gives (per log and direction, in the log's order); a
negative count there means the log is not what fio's client writes and is refused.
tests/unit/parse/test_fio_hist_log.py checks it against the per-I/O clat log of the same run.
"""

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ssdlab.errors import ParseError
from ssdlab.model.fio_buckets import FIO_PLAT_BUCKETS
from ssdlab.model.step_histogram import SecondHistogram

_FIELDS = 3 + FIO_PLAT_BUCKETS
_DIRECTIONS = (0, 1, 2)
Counts = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class HistRecord:
    """The I/Os of one direction completed in one interval, per fio bucket."""

    time_ms: int  # when the interval closed, from the job's start
    direction: int  # fio's ddir: 0 read, 1 write, 2 trim
    counts: Counts  # FIO_PLAT_BUCKETS counts
    bs: int = 0  # the block size fio logged with the I/O that closed the interval

    @property
    def ios(self) -> int:
        return int(self.counts.sum())


def _record(line: str, number: int) -> HistRecord:
    fields = line.split(",")
    if len(fields) != _FIELDS:
        coarse = " (log_hist_coarseness set?)" if len(fields) > 3 else ""
        raise ParseError(
            f"line {number}: {len(fields)} fields, not fio's time, ddir, bs and "
            f"{FIO_PLAT_BUCKETS} bucket counts{coarse}"
        )
    try:
        values = [int(field) for field in fields]
    except ValueError:
        raise ParseError(f"line {number}: a field is not a whole number") from None
    if values[1] not in _DIRECTIONS:
        raise ParseError(f"line {number}: the direction is not 0 (read), 1 (write) or 2 (trim)")
    counts = np.array(values[3:], dtype=np.int64)
    if values[0] < 0 or int(counts.min()) < 0:
        raise ParseError(f"line {number}: a negative time or count")
    return HistRecord(values[0], values[1], counts, values[2])


def _per_interval(records: Iterable[HistRecord]) -> Iterator[HistRecord]:
    """The relayed log's D_k turned into each interval's own I/Os, D_k − D_{k−2}."""
    before: dict[int, tuple[Counts | None, Counts | None]] = {}
    for index, record in enumerate(records, 1):
        older, last = before.get(record.direction, (None, None))
        own = record.counts if older is None else record.counts - older
        if int(own.min()) < 0:
            raise ParseError(
                f"record {index}: fewer I/Os in a bucket than two records before, which the "
                "log of fio's client never holds"
            )
        before[record.direction] = (last, record.counts)
        yield HistRecord(record.time_ms, record.direction, own, record.bs)


def iter_hist_log(text: str, relayed: bool) -> Iterator[HistRecord]:
    """The records of a histogram log one by one, per interval (memory: two records per
    direction); `relayed`: written by fio's client from a server's samples (see the module).
    Blank lines are skipped; a bad line is a ParseError naming it, when it is reached."""
    records = (
        _record(line, number) for number, line in enumerate(text.splitlines(), 1) if line.strip()
    )
    return _per_interval(records) if relayed else records


def parse_hist_log(text: str, relayed: bool) -> tuple[HistRecord, ...]:
    """Every record of a histogram log (iter_hist_log), all at once."""
    return tuple(iter_hist_log(text, relayed))


# a job's histogram log as fio 3.33 names it when run locally: PREFIX_clat_hist.JOB.log
_LOCAL_LOG = re.compile(r"_clat_hist\.\d+\.log$")
_DIRECTION_NAMES = {0: "read", 1: "write", 2: "trim"}


def is_hist_log(name: str) -> bool:
    """Whether a file fio wrote is a histogram log (not a bw/iops/lat log)."""
    return _LOCAL_LOG.search(name) is not None


def second_histograms(logs: Mapping[str, str]) -> tuple[SecondHistogram, ...]:
    """The histogram logs among a local fio run's files (every job's, added) as one histogram
    per direction and second (time_ms // 1000), by direction then second; a ParseError names
    a log that does not parse."""
    added: dict[tuple[int, int], Counts] = {}
    for name, text in sorted(logs.items()):
        if not is_hist_log(name):
            continue
        try:
            for record in iter_hist_log(text, relayed=False):
                key = (record.direction, record.time_ms // 1000)
                held = added.setdefault(key, np.zeros(FIO_PLAT_BUCKETS, dtype=np.int64))
                held += record.counts
        except ParseError as error:
            raise ParseError(f"{name}: {error}") from None
    return tuple(
        SecondHistogram(
            _DIRECTION_NAMES[direction],
            second,
            tuple((int(b), int(counts[b])) for b in np.flatnonzero(counts)),
        )
        for (direction, second), counts in sorted(added.items())
        if counts.any()
    )
