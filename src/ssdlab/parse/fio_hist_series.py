"""A fixed-block-size write's bandwidth over time, exact, from fio's histogram log
(`write_hist_log`, `log_hist_msec`): the series the `cache` profile finds its cliff on.

fio's averaged bandwidth log (`log_avg_msec`) is not bytes ÷ window. fio 3.33 (stat.c
`__add_samples`, `add_log_sample`, `__add_stat_to_log`) takes a rate sample every
`bw_avg_time` (at most the log interval) as the bytes since the last sample ÷ the time since
it, skips a sample with no bytes (a stalled drive leaves none), and logs the unweighted mean of
a window's samples, or nothing for a window without any. After a stall the next entry is thus
the rate of its own window only, while the gap since the entry before spans the stall: the
bandwidth × time between entries counts bytes that were never written (a 16 MiB write with two
1.5 s pauses adds up to 25.2 MB: tests/data/fio/logs-write-stall).

The histogram log counts I/Os instead. Each line (stat.c `add_clat_sample`, iolog.c
`flush_hist_samples`) is written when an I/O completes at least `log_hist_msec` after the
interval began, stamped with that completion's time, and holds the completions since the line
before (fio's cumulative histogram minus its copy at the last line). With one block size the
bytes written by each line's time are exact: I/Os so far × block size. The I/Os completed after
the last line are in no line: fio's own count of the write's bytes and its runtime (its JSON)
add them as a last window.

After a stall fio closes an interval at each of the next few completions (it moves the
interval's start on by one `log_hist_msec` at a time), a millisecond or less apart. Lines less
than half an interval after the last point kept are added to the next point (the last ones to
the last point), so every point's bandwidth is its bytes over at least half an interval and
every point's bytes so far stay exact.
"""

from collections.abc import Mapping

from ssdlab.model.result import SeriesPoint
from ssdlab.parse.fio_hist_log import is_hist_log, iter_hist_log

_WRITE = 1
_MS_PER_S = 1000.0


def hist_write_series(
    logs: Mapping[str, str], interval_ms: int, total: tuple[int, float] | None = None
) -> tuple[SeriesPoint, ...]:
    """The write direction of one job's histogram log as (end of window, B/s, IO/s) points
    whose bandwidth × window length is the window's bytes exactly. `total`: fio's own bytes
    and seconds of the write (its JSON), which add the I/Os after the last line as a window
    ending at the write's end (a write shorter than one interval, with no line, is that one
    window). Empty when the logs hold no histogram log or more than one (several jobs'
    windows do not line up), no writes, or writes of more than one block size; a line that
    does not parse is a ParseError."""
    texts = [text for name, text in sorted(logs.items()) if is_hist_log(name)]
    if len(texts) != 1:
        return ()
    records = [r for r in iter_hist_log(texts[0], relayed=False) if r.direction == _WRITE]
    sizes = {r.bs for r in records}
    if len(sizes) > 1 or 0 in sizes:
        return ()
    bs = sizes.pop() if sizes else None  # None: a write shorter than one interval
    lines = [(float(r.time_ms), r.ios * (bs or 0)) for r in records]
    if total is not None:
        tail = total[0] - sum(size for _, size in lines)
        if tail > 0:  # fio's runtime starts a few µs after the log's clock: never before it
            lines.append((max(total[1] * _MS_PER_S, lines[-1][0] if lines else 0.0), tail))
    ends: list[tuple[float, int]] = []  # (time_ms, bytes written in the window ending then)
    start_ms = 0.0
    pending = 0
    for index, (time_ms, size) in enumerate(lines):
        pending += size
        if time_ms - start_ms >= interval_ms / 2:
            ends.append((time_ms, pending))
            start_ms = time_ms
            pending = 0
        elif ends and index == len(lines) - 1:
            ends[-1] = (time_ms, ends[-1][1] + pending)
    points: list[SeriesPoint] = []
    before_ms = 0.0
    for time_ms, size in ends:
        window_s = (time_ms - before_ms) / _MS_PER_S
        points.append(
            SeriesPoint(
                elapsed_s=time_ms / _MS_PER_S,
                direction="write",
                bw_bytes_per_s=size / window_s,
                iops=None if bs is None else size / bs / window_s,
                lat_mean_ns=None,
            )
        )
        before_ms = time_ms
    return tuple(points)
