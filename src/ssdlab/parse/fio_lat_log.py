"""fio's latency logs (`write_lat_log`, `write_clat_log`), read as a stream of line blocks.

fio's HOWTO ("Log File Formats", fio 3.x) gives a line as `time (ms), value, data direction,
block size (bytes), offset (bytes), command priority, issue time (ns)`, where a latency log's
value is in nanoseconds (fio 2.x logged microseconds; ssdlab reads fio 3.x only), the data
direction is 0 read, 1 write, 2 trim, the offset column is there only with `log_offset=1`
(so fio 3.33 writes 5 columns, or 6 with the offset) and the priority is a decimal 0/1, or
hexadecimal (`0x2004`) with `log_prio=1`. Older fio wrote fewer columns; a line of 2 (time,
value) is a read. Only the first three columns are used.

With `log_avg_msec=N` fio writes one line per direction per N ms holding the mean of that
window, with block size (and offset) 0: `looks_averaged` says so, and such a log's
percentiles are percentiles of window means, not of I/O latencies.

`write_bw_log` / `write_iops_log` files are not latency logs (`LogName.kind`). With
`log_compression` and `log_store_compressed=1` fio writes a file ending `.fz` (HOWTO,
log_store_compressed) holding zlib streams of its in-memory samples, not text: fio 3.33's
`struct io_sample` (iolog.h: time u64, value u64, ddir u32 whose bit 31 says an offset u64
follows and bit 30 that the priority is logged, priority u16, block size u64; 32 bytes, 40
with the offset, little-endian on x86). `fio_sample_text` prints them as fio's flush_samples
(iolog.c) does, so `fio --inflate-log=F` and ssdlab read the same lines. `.gz` files (gzip'd
text) are read too.
"""

import contextlib
import itertools
import re
import warnings
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from ssdlab.errors import ParseError

BLOCK_BYTES = 16 << 20
LATENCY_KINDS = ("lat", "clat", "slat")
Entries = npt.NDArray[np.int64]  # rows of (time_ms, value_ns, ddir)
_NAME_RE = re.compile(
    r"^(?P<prefix>.*?)_?(?P<kind>bw|iops|lat|clat|slat)(?:\.(?P<job>\d+))?\.log(?P<z>\.fz|\.gz)?$"
)
_SAMPLE_LINES = 200
_BAD_DIRECTION = "the direction is not 0 (read), 1 (write) or 2 (trim)"


@dataclass(frozen=True, slots=True)
class LogName:
    """What a log's file name says: fio names them `PREFIX_KIND.JOB.log[.fz]`."""

    prefix: str
    kind: str | None  # lat | clat | slat | bw | iops; None: not a name fio writes
    job: int | None  # fio's job number; None for per_job_logs=0
    compression: str | None  # zlib (.fz) | gzip (.gz)


def describe_log_name(name: str) -> LogName:
    base = name.rsplit("/", 1)[-1]
    match = _NAME_RE.match(base)
    compression = "zlib" if base.endswith(".fz") else ("gzip" if base.endswith(".gz") else None)
    if match is None:
        return LogName(base, None, None, compression)
    job = match.group("job")
    number = int(job) if job else None
    return LogName(match.group("prefix"), match.group("kind"), number, compression)


def decompressed_blocks(
    stream: BinaryIO, compression: str | None, block_bytes: int = BLOCK_BYTES
) -> Iterator[bytes]:
    """The file's bytes, `block_bytes` at a time, inflated when compressed (fio's .fz files
    hold one zlib stream per flushed chunk, one after the other)."""
    if compression is None:
        while data := stream.read(block_bytes):
            yield data
        return
    inflater = zlib.decompressobj(47)  # 32 + 15: a zlib or a gzip header, found by itself
    while data := stream.read(block_bytes):
        while data:
            try:
                out = inflater.decompress(data)
            except zlib.error as error:
                raise ParseError(f"not a {compression} stream ({error})") from None
            if out:
                yield out
            if not inflater.eof:
                break
            data = inflater.unused_data
            inflater = zlib.decompressobj(47)
    tail = inflater.flush()
    if tail:
        yield tail


_OFFSET_BIT = 0x80000000
_PRIO_BIT = 0x40000000
_SAMPLE = [("time", "<u8"), ("value", "<u8"), ("ddir", "<u4"), ("prio", "<u2"), ("pad", "<u2")]
_SAMPLE_DTYPE = np.dtype([*_SAMPLE, ("bs", "<u8")])
_OFFSET_SAMPLE_DTYPE = np.dtype([*_SAMPLE, ("bs", "<u8"), ("offset", "<u8")])


def fio_sample_text(raw: Iterable[bytes]) -> Iterator[bytes]:
    """fio's binary log samples (an inflated .fz file) as the text lines fio prints."""
    rest = b""
    dtype: np.dtype[np.void] | None = None
    for data in raw:
        data = rest + data
        if dtype is None:
            if len(data) < _SAMPLE_DTYPE.itemsize:
                rest = data
                continue
            flags = int.from_bytes(data[16:20], "little")
            if flags & ~(_OFFSET_BIT | _PRIO_BIT) > 2:
                raise ParseError("not fio's binary log samples (a .fz file of fio 3.x)")
            dtype = _OFFSET_SAMPLE_DTYPE if flags & _OFFSET_BIT else _SAMPLE_DTYPE
            hex_prio = bool(flags & _PRIO_BIT)
        whole = len(data) - len(data) % dtype.itemsize
        samples, rest = np.frombuffer(data[:whole], dtype=dtype), data[whole:]
        ddirs = (samples["ddir"] & ~np.uint32(_OFFSET_BIT | _PRIO_BIT)).tolist()
        # without log_prio fio prints 1 for the real-time class (priority >> 13 == 1), else 0
        prios = [
            f"0x{p:04x}" if hex_prio else str(int(p >> 13 == 1)) for p in samples["prio"].tolist()
        ]
        columns = [samples["time"].tolist(), samples["value"].tolist(), ddirs]
        columns.append(samples["bs"].tolist())
        if "offset" in (samples.dtype.names or ()):
            columns.append(samples["offset"].tolist())
        columns.append(prios)
        lines = (", ".join(map(str, row)) + "\n" for row in zip(*columns, strict=True))
        yield "".join(lines).encode()
    if rest:
        raise ParseError(f"the compressed log ends inside a sample ({len(rest)} bytes left over)")


def log_text_blocks(
    stream: BinaryIO, compression: str | None, block_bytes: int = BLOCK_BYTES
) -> Iterator[bytes]:
    """The log's text, a block at a time: plain, gzip'd, or fio's .fz samples printed."""
    raw = decompressed_blocks(stream, compression, block_bytes)
    return fio_sample_text(raw) if compression == "zlib" else raw


class LineBlocks:
    """Blocks of whole lines (each ending in a newline) from raw blocks. A last line without
    its newline that has fewer fields than the first line (fio stopped while writing it) is
    dropped and counted in `truncated_lines`; a complete one is kept."""

    def __init__(self, raw: Iterable[bytes]) -> None:
        self._raw = raw
        self.truncated_lines = 0
        self.first_line: bytes | None = None

    def __iter__(self) -> Iterator[bytes]:
        rest = b""
        for data in self._raw:
            if rest:
                data = rest + data
            cut = data.rfind(b"\n") + 1
            block, rest = data[:cut], data[cut:]
            if block:
                if self.first_line is None:
                    self.first_line = first_line_of(block)
                yield block
        if rest.strip():
            fields = rest.count(b",") + 1
            if self.first_line is not None and fields < self.first_line.count(b",") + 1:
                self.truncated_lines += 1
            else:
                if self.first_line is None:
                    self.first_line = first_line_of(rest)
                yield rest + b"\n"


def first_line_of(block: bytes) -> bytes | None:
    for line in block.split(b"\n", 64)[:64]:
        if line.strip():
            return line.strip()
    return None


@dataclass(frozen=True, slots=True)
class LogLayout:
    columns: int
    averaged: bool
    why: str  # how `averaged` was decided


def looks_averaged(sample: bytes) -> LogLayout:
    """Whether the first lines of a log are fio's windowed means (log_avg_msec): block size 0
    on every line (fio writes the I/O's size per I/O); without a block size column, times of
    each direction evenly spaced."""
    rows = [line.split(b",") for line in sample.split(b"\n", _SAMPLE_LINES)[:_SAMPLE_LINES] if line]
    rows = [r for r in rows if len(r) == len(rows[0])] if rows else []
    if len(rows) < 2:
        return LogLayout(len(rows[0]) if rows else 0, False, "too few lines to tell")
    columns = len(rows[0])
    try:
        if columns >= 4:
            sizes = {int(r[3]) for r in rows}
            if sizes == {0}:
                return LogLayout(columns, True, "every line has block size 0 (log_avg_msec)")
            return LogLayout(columns, False, "lines carry the I/O's block size")
        times: dict[bytes, list[int]] = {}
        for r in rows:
            times.setdefault(r[2].strip() if columns > 2 else b"0", []).append(int(r[0]))
    except ValueError:
        return LogLayout(columns, False, "not read")
    steps = {b - a for t in times.values() for a, b in itertools.pairwise(t)}
    if len(steps) == 1 and steps != {0} and max(len(t) for t in times.values()) >= 4:
        step = steps.pop()
        return LogLayout(columns, True, f"every {step} ms exactly, like log_avg_msec={step}")
    return LogLayout(columns, False, "irregular times, one line per I/O")


def iter_latency_entries(lines: Iterable[bytes | str]) -> Iterator[tuple[int, int, int]]:
    """(time_ms, value_ns, ddir) per line; ParseError naming the line for anything else."""
    for number, raw in enumerate(lines, 1):
        line = raw.decode("ascii", "replace") if isinstance(raw, bytes) else raw
        if not line.strip():
            continue
        fields = line.split(",")
        if len(fields) < 2:
            raise ParseError(f"line {number}: expected 'time, latency, direction, ...': {line!r}")
        try:
            time_ms, value_ns = int(fields[0]), int(fields[1])
            ddir = int(fields[2]) if len(fields) > 2 else 0
        except ValueError:
            raise ParseError(f"line {number}: not whole numbers: {line.strip()[:80]!r}") from None
        if ddir not in (0, 1, 2):
            raise ParseError(f"line {number}: {_BAD_DIRECTION}: {line.strip()[:80]!r}")
        if time_ms < 0 or value_ns < 0:
            raise ParseError(f"line {number}: out of range: {line.strip()[:80]!r}")
        yield time_ms, value_ns, ddir


def _rows_line_by_line(block: bytes, first_line: int) -> Entries:
    entries = list(iter_latency_entries(block.split(b"\n")))
    rows = np.array(entries, dtype=np.int64).reshape(-1, 3)
    if not rows.size and block.strip():
        raise ParseError(f"line {first_line}: no latency in this block")
    return rows


def parse_rows(block: bytes, first_line: int) -> Entries:
    """(time_ms, value_ns, ddir) rows of a block of whole lines: in C (numpy) when every line
    has the same number of decimal columns, else line by line (priorities in hex, CRLF, blank
    lines, 2-column logs), naming the first bad line."""
    lines = block.count(b"\n")
    fields = block[: block.find(b"\n")].count(b",") + 1
    flat = np.empty(0, dtype=np.int64)
    if fields >= 3 and b"x" not in block and b"\r" not in block and b"\n\n" not in block:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            with contextlib.suppress(ValueError):
                flat = np.fromstring(block.replace(b"\n", b","), dtype=np.int64, sep=",")
    if flat.size != lines * fields or fields < 3:
        try:
            return _rows_line_by_line(block, first_line)
        except ParseError as error:
            number, _, why = str(error).partition(": ")
            line = int(number.split()[1]) + first_line - 1
            raise ParseError(f"line {line}: {why}") from None
    rows = flat.reshape(lines, fields)[:, :3]
    wrong = (rows[:, :2] < 0).any(axis=1) | (rows[:, 2] > 2) | (rows[:, 2] < 0)
    if wrong.any():
        bad = int(np.flatnonzero(wrong)[0])
        why = _BAD_DIRECTION if not 0 <= rows[bad, 2] <= 2 else "out of range"
        raise ParseError(f"line {first_line + bad}: {why}")
    return np.ascontiguousarray(rows)
