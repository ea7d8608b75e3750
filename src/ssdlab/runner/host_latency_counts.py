"""fio per-I/O latency log files -> exact counts of I/Os per operation in the Latency Monitor's
ranges (analysis/latency_reconcile.py), read a block at a time: memory does not grow with the
log. The reducer's histogram (latency_logs.py) is within 0.39 % of each value, not exact at a
threshold, so the files are read again here and every value compared with the thresholds.
"""

from collections.abc import Sequence
from pathlib import Path

from ssdlab.analysis.latency_reconcile import HostCounter, HostLatencyCounts
from ssdlab.errors import ParseError, UsageError
from ssdlab.parse.fio_lat_log import (
    BLOCK_BYTES,
    LineBlocks,
    describe_log_name,
    log_text_blocks,
    parse_rows,
)


def count_host_latencies(
    paths: Sequence[Path], bounds_ns: tuple[int, int, int, int], block_bytes: int = BLOCK_BYTES
) -> HostLatencyCounts:
    """Every I/O of the logs (fio's one file per job, merged) counted per operation into
    [A, B), [B, C), [C, D) and [D, inf)."""
    counter = HostCounter(bounds_ns)
    for path in paths:
        compression = describe_log_name(path.name).compression
        line = 1
        try:
            with path.open("rb") as handle:
                for block in LineBlocks(log_text_blocks(handle, compression, block_bytes)):
                    counter.add(parse_rows(block, line))
                    line += block.count(b"\n")
        except OSError as error:
            raise UsageError(f"{path}: cannot read it ({error.strerror})") from None
        except ParseError as error:
            raise ParseError(f"{path}: {error}; is it a fio latency log?") from None
    return counter.result()
