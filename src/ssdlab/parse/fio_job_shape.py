"""The shape of each job in a fio JSON document — pattern, block size, threads and the queue
depth fio actually used — as ssdlab's quick tests are shaped ('rnd4k-q32t1-read').

The depth is `iodepth` unless fio says it used less. A synchronous engine never has more than
one I/O in flight: fio caps the depth at 1 for every engine flagged FIO_SYNCIO (axboe/fio
`backend.c`; since 349d5f6c, fio 3.33, it prints "note: both iodepth >= 1 and synchronous I/O
engine are selected, queue depth will be capped at 1" before the document), unless
`io_submit_mode=offload`. A job that names no engine ran fio's default, which is synchronous
(psync, `os/os.h`; sync before df96a39e) except on Windows (windowsaio): there fio's own
`iodepth_level` decides — every I/O submitted at depth 1 means the depth was 1.
"""

import re
from dataclasses import dataclass
from typing import Any

from ssdlab.model.units import parse_size_bytes
from ssdlab.parse.fio_document import find_fio_document
from ssdlab.parse.fio_history import OPTIONS_PRINTED, fio_release
from ssdlab.parse.fio_json import global_options, job_options

# fio's I/O engines whose ioengine_ops carry FIO_SYNCIO (engines/*.c, axboe/fio f5344384)
SYNC_ENGINES = frozenset(
    {
        "sync",
        "psync",
        "vsync",
        "pvsync",
        "pvsync2",
        "mmap",
        "splice",
        "sg",
        "falloc",
        "ftruncate",
        "e4defrag",
        "libpmem",
        "dev-dax",
        "filecreate",
        "filestat",
        "filedelete",
        "dircreate",
        "dirstat",
        "dirdelete",
        "net",
        "netsplice",
        "cpuio",
        "exec",
        "http",
        "gfapi",
        "libhdfs",
        "mtd",
        "ime_psync",
        "ime_psyncv",
        "libzbc",
        "page_fault",
        "libiscsi",
        "libcufile",
        "libhipfile",
    }
)
CAPPED_NOTE = "queue depth will be capped at 1"
_RW = {
    "read": ("seq", "read"),
    "write": ("seq", "write"),
    "rw": ("seq", "mix"),
    "readwrite": ("seq", "mix"),
    "randread": ("rnd", "read"),
    "randwrite": ("rnd", "write"),
    "randrw": ("rnd", "mix"),
}


@dataclass(frozen=True, slots=True)
class FioJobShape:
    """One job of the document, as its options and fio's own figures describe it."""

    name: str
    options: dict[str, str]
    pattern: str | None  # seq | rnd; None: not a plain pattern (trim, trimwrite, …)
    direction: str | None  # read | write | mix
    block_bytes: int | None  # None: a range or split of sizes
    iodepth: int | None  # as set (fio's default 1); None: not a whole number above 0
    numjobs: int | None
    depth_used: int | None  # the depth fio ran at
    depth_note: str | None  # why depth_used is not iodepth


def _positive(text: str | None, default: int) -> int | None:
    if text is None:
        return default
    return int(text) if re.fullmatch(r"\d{1,9}", text.strip()) and int(text) > 0 else None


def _block(options: dict[str, str]) -> int | None:
    text = options.get("bs", options.get("blocksize", "4k")).split(",")[0].strip()
    try:
        block = parse_size_bytes(text)
    except ValueError:
        return None  # '4k-16k', a bssplit, or a typo: not one block size
    return block if block > 0 else None


def _only_depth_one(job: dict[str, Any]) -> bool:
    """fio's iodepth_level: every I/O was submitted with one in flight."""
    levels = job.get("iodepth_level")
    if not isinstance(levels, dict) or not levels:
        return False
    one = levels.get("1")
    rest = [v for k, v in levels.items() if k != "1"]
    numbers = [v for v in (one, *rest) if isinstance(v, int | float) and not isinstance(v, bool)]
    if len(numbers) != len(levels):
        return False
    return isinstance(one, int | float) and one >= 99.99 and all(v == 0 for v in rest)


def _depth(
    job: dict[str, Any], options: dict[str, str], iodepth: int, noted: bool
) -> tuple[int, str | None]:
    if iodepth <= 1 or options.get("io_submit_mode") == "offload":
        return iodepth, None
    engine = options.get("ioengine")
    if engine is not None and engine.split(":")[0] in SYNC_ENGINES:
        return 1, f"iodepth={iodepth} on the synchronous engine {engine}: fio ran it at depth 1"
    if engine is None and noted:
        return 1, f"iodepth={iodepth}: fio noted that it capped the queue depth at 1"
    if engine is None and _only_depth_one(job):
        return 1, (
            f"iodepth={iodepth} on fio's default engine: fio's iodepth_level shows every I/O "
            "submitted at depth 1"
        )
    return iodepth, None


def job_shape(
    job: dict[str, Any], base: dict[str, str], noted: bool, where: str, known: bool = True
) -> FioJobShape:
    """The shape of one entry of `jobs` (or `client_stats`); with `known` False (fio before
    2.3 printed no options) every part of it is unknown."""
    options = job_options(job, base)
    if not known:
        return FioJobShape(
            str(job.get("jobname", where)), options, None, None, None, None, None, None, None
        )
    rw = _RW.get(options.get("rw", options.get("readwrite", "read")).split(":")[0].strip())
    iodepth = _positive(options.get("iodepth"), 1)
    numjobs = _positive(options.get("numjobs"), 1)
    depth_used, note = (None, None) if iodepth is None else _depth(job, options, iodepth, noted)
    return FioJobShape(
        name=str(job.get("jobname", where)),
        options=options,
        pattern=None if rw is None else rw[0],
        direction=None if rw is None else rw[1],
        block_bytes=_block(options),
        iodepth=iodepth,
        numjobs=numjobs,
        depth_used=depth_used,
        depth_note=note,
    )


def parse_fio_job_shapes(text: str) -> tuple[FioJobShape, ...]:
    """Every job of the fio JSON document in `text` (fio's `jobs`, or a client's
    `client_stats`), in document order."""
    document = find_fio_document(text, ("jobs", "client_stats"))
    key = "jobs" if "jobs" in document else "client_stats"
    entries = document.get(key)
    noted = CAPPED_NOTE in text
    base = global_options(document)
    entries = entries if isinstance(entries, list) else []
    known = _options_printed(document, entries)
    return tuple(
        job_shape(entry, base, noted, f"{key}[{index}]", known)
        for index, entry in enumerate(entries)
        if isinstance(entry, dict)
    )


def _options_printed(document: dict[str, Any], entries: list[Any]) -> bool:
    """fio prints the options it was given from 2.3 on (66e19a38), and leaves out an empty
    list: a document of fio 2.3 or later without options ran fio's defaults; one of an older
    or unknown release without any cannot say what its jobs were."""
    if "global options" in document or any(
        isinstance(e, dict) and "job options" in e for e in entries
    ):
        return True
    version = document.get("fio version")
    release = fio_release(version if isinstance(version, str) else None)
    return release is not None and release[:2] >= OPTIONS_PRINTED
