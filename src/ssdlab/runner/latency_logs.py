"""fio latency log files -> per-direction percentiles, histogram and per-second series, on the
compiled core (ssdlab_logcore, from logcore/) when installed, else on the numpy reference.

Several files (fio writes one per job: `job_lat.1.log`, `job_lat.2.log`, ...) are merged into
one result. Files are read in large blocks, inflated first when fio stored them compressed,
and never held whole: memory does not grow with the log's length.
"""

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from ssdlab.analysis.latency_stream import (
    CompiledReducer,
    LatencyLogResult,
    NumpyReducer,
    compiled_core_available,
    summarise_totals,
)
from ssdlab.errors import ParseError, UsageError
from ssdlab.parse.fio_lat_log import (
    BLOCK_BYTES,
    LineBlocks,
    LogLayout,
    describe_log_name,
    log_text_blocks,
    looks_averaged,
    parse_rows,
)

CORES = ("auto", "compiled", "python")
_NOT_LATENCY = {"bw": "a bandwidth log (KiB/s)", "iops": "an IOPS log"}


def resolve_log_core(core: str) -> str:
    if core not in CORES:
        raise UsageError(f"unknown core {core!r}; known: {', '.join(CORES)}")
    if core == "auto":
        return "compiled" if compiled_core_available() else "python"
    if core == "compiled" and not compiled_core_available():
        raise UsageError(
            "the compiled log core (ssdlab_logcore) is not installed: run 'make install' with "
            "cargo on PATH, or use --core python"
        )
    return core


def log_kind(paths: Sequence[Path]) -> str:
    """The one latency kind the files hold; a UsageError for bw/iops logs or mixed kinds."""
    kinds = set()
    for path in paths:
        name = describe_log_name(path.name)
        if name.kind in _NOT_LATENCY:
            raise UsageError(
                f"{path} is {_NOT_LATENCY[name.kind]}, not a latency log: give the job's "
                "_lat/_clat/_slat log (write_lat_log)"
            )
        kinds.add(name.kind or "lat")
    if len(kinds) > 1:
        raise UsageError(
            f"the logs mix {' and '.join(sorted(kinds))} latency: give one kind at a time "
            "(e.g. only the *_clat.*.log files)"
        )
    return kinds.pop() if kinds else "lat"


def _open_log(path: Path) -> int:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except OSError as error:
        raise UsageError(f"{path}: cannot read it ({error.strerror})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UsageError(f"{path} is not a regular file; give fio's log files")
    return fd


def _reduce_file(
    path: Path, reducer: CompiledReducer | NumpyReducer, block_bytes: int
) -> tuple[LogLayout | None, int, int]:
    """(layout of its first lines, lines read, truncated last lines) of one file."""
    compression = describe_log_name(path.name).compression
    layout = None
    line = 1
    with os.fdopen(_open_log(path), "rb") as handle:
        blocks = LineBlocks(log_text_blocks(handle, compression, block_bytes))
        try:
            for block in blocks:
                if layout is None:
                    layout = looks_averaged(block[:65536])
                if isinstance(reducer, CompiledReducer):
                    try:
                        line += reducer.feed(block)
                    except ValueError as error:
                        number, why = error.args
                        raise ParseError(f"line {line + number - 1}: {why}") from None
                else:
                    reducer.add_rows(parse_rows(block, line))
                    line += block.count(b"\n")
        except ParseError as error:
            raise ParseError(f"{path}: {error}; is it a fio latency log?") from None
    return layout, line - 1, blocks.truncated_lines


def reduce_latency_logs(
    paths: Sequence[Path],
    core: str = "auto",
    averaged: bool | None = None,
    block_bytes: int = BLOCK_BYTES,
) -> LatencyLogResult:
    """Merge and reduce fio latency logs; `averaged` True/False overrides the detection."""
    if not paths:
        raise UsageError("no log files given")
    kind = log_kind(paths)
    chosen = resolve_log_core(core)
    reducer: CompiledReducer | NumpyReducer = (
        CompiledReducer() if chosen == "compiled" else NumpyReducer()
    )
    lines = truncated = 0
    layouts = []
    for path in paths:
        layout, read, dropped = _reduce_file(path, reducer, block_bytes)
        lines, truncated = lines + read, truncated + dropped
        if layout is not None:
            layouts.append(layout)
    detected = any(layout.averaged for layout in layouts)
    why = next((lay.why for lay in layouts if lay.averaged == detected), "no lines")
    if averaged is not None:
        why = "as --averaged says" if averaged else "as --per-io says"
    return LatencyLogResult(
        files=tuple(str(p) for p in paths),
        kind=kind,
        averaged=detected if averaged is None else averaged,
        averaged_why=why,
        core=chosen,
        lines=lines,
        truncated_lines=truncated,
        directions=summarise_totals(reducer.totals()),
    )
