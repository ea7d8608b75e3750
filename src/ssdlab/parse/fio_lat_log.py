"""fio's per-I/O latency logs (`write_lat_log` / `write_clat_log` with `log_avg_msec=0`), read
as a stream: `time_ms, value_ns, ddir, bs, offset[, prio]` per line, values in nanoseconds (fio
3.x), directions 0 read, 1 write, 2 trim.

`iter_latency_chunks` parses a block of lines at a time in C (numpy), so a log of 10^8 lines
passes through in constant memory; a block that does not parse is read again line by line to
name the bad line.
"""

import warnings
from collections.abc import Iterable, Iterator
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from ssdlab.errors import ParseError

CHUNK_BYTES = 8 << 20
Entries = npt.NDArray[np.int64]  # rows of (time_ms, value_ns, ddir)


def iter_latency_entries(lines: Iterable[bytes | str]) -> Iterator[tuple[int, int, int]]:
    """(time_ms, value_ns, ddir) per line; ParseError naming the line for anything else."""
    for number, raw in enumerate(lines, 1):
        line = raw.decode("ascii", "replace") if isinstance(raw, bytes) else raw
        if not line.strip():
            continue
        fields = line.split(",")
        if len(fields) < 3:
            raise ParseError(f"line {number}: expected 'time, latency, direction, ...': {line!r}")
        try:
            time_ms, value_ns, ddir = int(fields[0]), int(fields[1]), int(fields[2])
        except ValueError:
            raise ParseError(f"line {number}: not whole numbers: {line.strip()[:80]!r}") from None
        if time_ms < 0 or value_ns < 0 or ddir not in (0, 1, 2):
            raise ParseError(f"line {number}: out of range: {line.strip()[:80]!r}")
        yield time_ms, value_ns, ddir


def _parse_block(block: bytes, first_line: int) -> Entries:
    lines = block.count(b"\n")
    fields = block.split(b"\n", 1)[0].count(b",") + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            joined = block.replace(b"\n", b",")
            flat = np.fromstring(joined, dtype=np.int64, sep=",")
        except ValueError:
            flat = np.empty(0, dtype=np.int64)
    if fields < 3 or flat.size != lines * fields:
        for number, entry in enumerate(block.decode("ascii", "replace").splitlines(), first_line):
            list(iter_latency_entries([entry]))  # raises with the line's own text
            if entry.count(",") + 1 != fields:
                raise ParseError(f"line {number}: {entry.count(',') + 1} fields, not {fields}")
        raise ParseError(f"lines {first_line}-{first_line + lines - 1} could not be read")
    rows = flat.reshape(lines, fields)[:, :3]
    if (rows[:, :2] < 0).any() or ((rows[:, 2] < 0) | (rows[:, 2] > 2)).any():
        wrong = (rows[:, :2] < 0).any(axis=1) | (rows[:, 2] > 2) | (rows[:, 2] < 0)
        bad = int(np.flatnonzero(wrong)[0])
        raise ParseError(f"line {first_line + bad}: out of range")
    return np.ascontiguousarray(rows)


def iter_latency_chunks(stream: BinaryIO, chunk_bytes: int = CHUNK_BYTES) -> Iterator[Entries]:
    """Blocks of (time_ms, value_ns, ddir) rows, read `chunk_bytes` at a time."""
    rest = b""
    line = 1
    while True:
        data = stream.read(chunk_bytes)
        if not data:
            break
        data = rest + data
        cut = data.rfind(b"\n") + 1
        block, rest = data[:cut], data[cut:]
        if b"\n\n" in block or block.startswith(b"\n"):  # blank lines: fio writes none
            block = b"".join(x + b"\n" for x in block.split(b"\n") if x.strip())
        if block.strip():
            yield _parse_block(block, line)
            line += block.count(b"\n")
    if rest.strip():
        yield _parse_block(rest.rstrip(b"\n") + b"\n", line)
