"""Block I/O traces → TraceOp (bytes and seconds; ftl.md §6 has the layouts and units).

blkparse text (sectors of 512 B, D events replayed, RWBS 'D' = discard), MSR Cambridge CSV
(byte offsets and sizes, FILETIME 100 ns ticks) and fio iolog v2/v3 (bytes; v3 timestamps in
µs). Units are converted here and nowhere else in the simulator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ssdlab.errors import ParseError, UsageError

SECTOR_BYTES = 512
TraceFormat = Literal["blkparse", "msr", "iolog", "auto"]
OPS = ("read", "write", "trim")


@dataclass(frozen=True, slots=True)
class TraceOp:
    op: str  # "read" | "write" | "trim"
    offset_bytes: int
    length_bytes: int
    time_s: float | None = None


def _int(text: str, what: str, lineno: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ParseError(f"line {lineno}: {what} {text!r} is not a whole number") from None
    if value < 0:
        raise ParseError(f"line {lineno}: {what} {value} is negative")
    return value


def _float(text: str, what: str, lineno: int) -> float:
    try:
        return float(text)
    except ValueError:
        raise ParseError(f"line {lineno}: {what} {text!r} is not a number") from None


def _blkparse_op(rwbs: str) -> str | None:
    if "D" in rwbs:
        return "trim"
    if "W" in rwbs:
        return "write"
    if "R" in rwbs:
        return "read"
    return None  # flush, none


def parse_blkparse(text: str) -> tuple[TraceOp, ...]:
    """blkparse default text; D (issued) events, or Q (queued) events when there are no D."""
    events: dict[str, list[TraceOp]] = {"D": [], "Q": []}
    for lineno, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if fields[0].startswith(("CPU", "Total")):
            break  # the per-CPU summary that closes blkparse output
        if len(fields) < 7 or "," not in fields[0]:
            raise ParseError(f"line {lineno}: not a blkparse event line: {line.strip()!r}")
        action, rwbs = fields[5], fields[6]
        if action not in events:
            continue
        op = _blkparse_op(rwbs)
        if op is None:
            continue
        if len(fields) < 10 or fields[8] != "+":
            raise ParseError(f"line {lineno}: expected 'SECTOR + COUNT' in {line.strip()!r}")
        sector = _int(fields[7], "sector", lineno)
        count = _int(fields[9], "sector count", lineno)
        time_s = _float(fields[3], "time", lineno)
        if count:
            events[action].append(TraceOp(op, sector * SECTOR_BYTES, count * SECTOR_BYTES, time_s))
    return tuple(events["D"] or events["Q"])


FILETIME_TICK_S = 1e-7


def parse_msr_csv(text: str) -> tuple[TraceOp, ...]:
    """Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime (header line optional)."""
    ops: list[TraceOp] = []
    first_tick: int | None = None
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        if lineno == 1 and fields[0].lower() == "timestamp":
            continue
        if len(fields) != 7:
            raise ParseError(f"line {lineno}: MSR trace lines have 7 fields, not {len(fields)}")
        tick = _int(fields[0], "timestamp", lineno)
        kind = fields[3].lower()
        if kind not in ("read", "write"):
            raise ParseError(f"line {lineno}: type must be Read or Write, not {fields[3]!r}")
        offset = _int(fields[4], "offset", lineno)
        size = _int(fields[5], "size", lineno)
        first_tick = tick if first_tick is None else first_tick
        if size:
            ops.append(TraceOp(kind, offset, size, (tick - first_tick) * FILETIME_TICK_S))
    return tuple(ops)


IOLOG_IGNORED = {"add", "open", "close", "sync", "datasync", "wait"}


def parse_fio_iolog(text: str) -> tuple[TraceOp, ...]:
    """fio iolog v2 ('filename action [offset length]') or v3 (timestamp first, µs)."""
    lines = text.splitlines()
    header = lines[0].strip() if lines else ""
    if header == "fio version 2 iolog":
        version = 2
    elif header == "fio version 3 iolog":
        version = 3
    else:
        raise ParseError(f"line 1: expected 'fio version 2 iolog' or '… 3 iolog', not {header!r}")
    ops: list[TraceOp] = []
    for lineno, line in enumerate(lines[1:], 2):
        fields = line.split()
        if not fields:
            continue
        time_s: float | None = None
        if version == 3:
            time_s = _int(fields[0], "timestamp", lineno) / 1e6
            fields = fields[1:]
        if len(fields) < 2:
            raise ParseError(f"line {lineno}: expected 'filename action …' in {line.strip()!r}")
        action = fields[1]
        if action in IOLOG_IGNORED:
            if action == "wait" and version == 3:
                raise ParseError(f"line {lineno}: 'wait' is not allowed in a v3 iolog")
            continue
        if action not in OPS:
            raise ParseError(f"line {lineno}: unknown iolog action {action!r}")
        if len(fields) != 4:
            raise ParseError(f"line {lineno}: {action} needs an offset and a length")
        offset = _int(fields[2], "offset", lineno)
        length = _int(fields[3], "length", lineno)
        if length:
            ops.append(TraceOp(action, offset, length, time_s))
    return tuple(ops)


def detect_format(text: str) -> str:
    first = next((line for line in text.splitlines() if line.strip()), "")
    if first.startswith("fio version"):
        return "iolog"
    if first.count(",") == 6:
        return "msr"
    return "blkparse"


def read_trace(
    text: str, fmt: TraceFormat = "auto", capacity_bytes: int | None = None
) -> tuple[TraceOp, ...]:
    """Parse a trace in the named format ('auto' guesses from the first line)."""
    chosen = detect_format(text) if fmt == "auto" else fmt
    parsers = {"blkparse": parse_blkparse, "msr": parse_msr_csv, "iolog": parse_fio_iolog}
    if chosen not in parsers:
        raise UsageError(f"unknown trace format {fmt!r}; known: blkparse, msr, iolog, auto")
    ops = parsers[chosen](text)
    if not ops:
        raise ParseError(f"the {chosen} trace holds no read, write or trim requests")
    if capacity_bytes is not None:
        check_trace_capacity(ops, capacity_bytes)
    return ops


def check_trace_capacity(ops: tuple[TraceOp, ...], capacity_bytes: int) -> None:
    """Reject a trace that addresses bytes beyond the simulated drive's logical capacity."""
    for index, op in enumerate(ops, 1):
        end = op.offset_bytes + op.length_bytes
        if end > capacity_bytes:
            raise UsageError(
                f"trace request {index} ({op.op} at byte {op.offset_bytes}, {op.length_bytes} B) "
                f"ends beyond the drive's logical capacity of {capacity_bytes} B"
            )
