"""The fio job of `ssdlab fleet load`, checked before any host is contacted, and where each
node's fio server listens.

fio's server runs whatever job a client sends it, as the user it runs as: `exec_prerun`,
`ioengine=exec` and `trigger` run programs, logs, iologs and verify state write files, an
`include` or `read_iolog` reads them. So a load job may only do I/O to the files its
`filename=` options name (which each node then checks against its own targets): every option
that runs a program or touches another file is refused with the line it is on (the option
sets are plan/user_job.py's, the ones `endure --job-file` refuses), and so is fio's `$`
expansion, which the server would do with the node's environment.

The files are judged as fio 3.33 judges them: every filename= line adds its files to the job's
(a second one does not replace the first), a job starts with the files of every [global] read
before it and adds its own, and a value is split at ':' as fio splits it (init.c get_new_job
and dup_files, options.c str_filename_cb and get_next_str).
"""

import posixpath
import re
from dataclasses import dataclass

from ssdlab.errors import ParseError, UsageError
from ssdlab.model.units import parse_size_bytes
from ssdlab.plan.user_job import (
    IO_ENGINES,
    OTHER_FILE_OPTIONS,
    UNSAFE_OPTIONS,
    JobSection,
    read_sections,
)

# beyond user_job's sets: a builtin profile (its own job), files deleted, a buffer in a file
_LOAD_REFUSED = {
    "profile": "runs one of fio's builtin tests instead of this job",
    "unlink": "deletes the job's files",
    "unlink_each_loop": "deletes the job's files",
    "iolog": "reads an I/O log file",
}
# how fio logs the load's latency histograms, which ssdlab sets (HISTOGRAM_LOG)
_HISTOGRAM_SETTINGS = frozenset({
    "log_hist_msec", "log_hist_coarseness", "per_job_logs", "log_compression",
    "log_store_compressed", "log_unix_epoch", "log_alternate_epoch",
})  # fmt: skip
HISTOGRAM_PREFIX = "ssdlab-hist"
HISTOGRAM_LOG = f"""\
; ssdlab: each job's completion latency histogram every second, sent back to fio's client
[global]
write_hist_log={HISTOGRAM_PREFIX}
log_hist_msec=1000
"""
_PATTERNS = ("buffer_pattern", "verify_pattern")  # a 'quoted' part is read from that file
_READ_KINDS = ("read", "randread")
SOCKET_PREFIX = "sock:"
MAX_SOCKET_PATH = 100  # a unix socket path must fit sun_path (108 bytes with its NUL)
NEVER_TCP = (
    "fio's server is never exposed on a network port: it has no authentication and no "
    "encryption, and anyone who reaches it runs programs (exec_prerun, ioengine=exec) and "
    "writes any file or device as the user it runs as; ssdlab reaches it only through a unix "
    "socket forwarded by SSH"
)


@dataclass(frozen=True, slots=True)
class LoadJob:
    """A checked load job: its text as it is sent, its jobs, every file it names (in order,
    each once), whether any job writes, the largest size= of its jobs (None: none given, or
    not a plain size) and whether every job uses direct I/O."""

    text: str
    jobs: tuple[str, ...]
    filenames: tuple[str, ...]
    writes: bool
    size_bytes: int | None = None
    direct: bool = False


def _refusal(name: str, value: str) -> str | None:
    if name in UNSAFE_OPTIONS:
        return "runs a program or reads another file"
    if name in OTHER_FILE_OPTIONS:
        return "reads or writes files other than the job's filename= (logs, iologs, state)"
    if name in _LOAD_REFUSED:
        return _LOAD_REFUSED[name]
    if name in _HISTOGRAM_SETTINGS:
        return "changes the latency histograms ssdlab has fio log every second for the load"
    if name in ("mem", "iomem") and ":" in value:
        return "keeps the I/O buffers in a file"
    if name in _PATTERNS and "'" in value:
        return "reads the file named in quotes into the I/O buffers"
    if name == "filename" and not value:
        return "names no file without a value (filename=/path/on/the/node)"
    if name == "ioengine" and value not in IO_ENGINES:
        return (
            f"names an engine that does more than I/O (use one of {', '.join(sorted(IO_ENGINES))})"
        )
    return None


def _sections(text: str) -> list[JobSection]:
    return read_sections(
        text,
        _refusal,
        here="in a load job",
        dollar="fio's server would expand it with the node's environment",
    )


def split_filenames(value: str) -> tuple[str, ...]:
    """The files of one filename= value, split as fio's get_next_str splits it: ':' ends a
    name, '\\:' is a colon in it, and an empty name (a leading, doubled or trailing ':') is
    no file."""
    files: list[str] = []
    rest: str | None = value
    while rest:
        name, rest = _next_name(rest)
        if not name:
            break  # fio's filename= callback stops at an empty name
        files.append(name)
    return tuple(files)


def _next_name(text: str) -> tuple[str, str | None]:
    """fio's get_next_str: the first name of `text` and what follows it (None: nothing)."""
    start = search = 0
    while True:
        colon = text.find(":", search)
        if colon < 0:
            return text[start:], None
        if colon == start:
            start = search = colon + 1
        elif text[colon - 1] != "\\":
            return text[start:colon], text[colon + 1 :]
        else:
            text = text[: colon - 1] + text[colon:]  # the backslash goes, the colon stays
            search = colon


def _checked_files(value: str, where: str) -> tuple[str, ...]:
    files = split_filenames(value)
    for path in files:
        if not path.startswith("/") or posixpath.normpath(path) != path or path == "/":
            raise ParseError(
                f"{where}: filename {path!r} is not an absolute path without '..' or '//'; "
                "name each file by its full path on the node"
            )
        if any(ord(char) < 32 or char == "\x7f" for char in path):
            raise ParseError(f"{where}: filename {path!r} holds a control character")
    return files


def _writes(options: dict[str, str]) -> bool:
    rw = options.get("rw", options.get("readwrite", "read"))
    return rw.split(":")[0].strip() not in _READ_KINDS


def _direct(options: dict[str, str]) -> bool:
    if "direct" in options:
        return options["direct"] in ("", "1", "true")
    return options.get("buffered", "1") in ("0", "false")


def _size(options: dict[str, str]) -> int | None:
    try:
        return parse_size_bytes(options["size"]) if "size" in options else None
    except ValueError:
        return None  # a percentage or a range: the node checks without it


def _section_files(section: JobSection, where: str) -> list[str]:
    """The files of every filename= line of a section, in order: fio adds each line's."""
    files: list[str] = []
    for name, value in section.options:
        if name == "filename":
            files.extend(_checked_files(value, where))
    return files


def check_load_job(text: str) -> LoadJob:
    """The job file checked for a fleet load. Raises ParseError naming the line of a refused
    option, or the job that names no file (every job needs filename=, its own or a
    [global]'s given before it). A job's files are those of every [global] before it and
    those of its own filename= lines, all of them."""
    defaults: dict[str, str] = {}
    default_files: list[str] = []
    resolved: list[tuple[str, dict[str, str]]] = []
    files: dict[str, None] = {}
    for section in _sections(text):
        if section.name == "global":
            defaults.update(dict(section.options))
            default_files += _section_files(section, f"line {section.line}: [global]")
            continue
        where = f"line {section.line}: job [{section.name}]"
        own = default_files + _section_files(section, where)
        if not own:
            raise ParseError(
                f"{where} names no file: give filename=/path/on/the/node (one of the host's "
                "ssdlab_targets) in the job or in [global]"
            )
        files.update(dict.fromkeys(own))
        resolved.append((section.name, {**defaults, **dict(section.options)}))
    if not resolved:
        raise ParseError("the job file has no job section (e.g. [load])")
    sizes = [size for _, options in resolved if (size := _size(options)) is not None]
    return LoadJob(
        text=text,
        jobs=tuple(name for name, _ in resolved),
        filenames=tuple(files),
        writes=any(_writes(options) for _, options in resolved),
        size_bytes=max(sizes) if sizes else None,
        direct=all(_direct(options) for _, options in resolved),
    )


def logged_job_text(job: LoadJob) -> str:
    """The text sent to the servers: the checked job after a [global] of ssdlab's own that has
    every job log its completion latency histogram each second (fio's client receives them,
    `PREFIX_clat_hist.JOB.log.SERVER`). Options of a [global] hold for every job after it,
    and the job may not change them (_HISTOGRAM_SETTINGS)."""
    return HISTOGRAM_LOG + job.text


def server_socket_path(value: str) -> str:
    """The unix socket path of `--server sock:PATH`; UsageError for anything else (a TCP or IP
    address above all) or a path that cannot be a new socket in a new folder of its own."""
    if not value.startswith(SOCKET_PREFIX):
        raise UsageError(
            f"--server {value!r} is refused: {NEVER_TCP}; give sock:/absolute/path or leave "
            "--server out"
        )
    return socket_path(value[len(SOCKET_PREFIX) :], f"--server {value!r}")


def socket_path(path: str, given: str) -> str:
    """`path` when it can be a unix socket in a folder of its own that the node creates;
    UsageError naming `given` (the option and value) otherwise."""
    if not path.startswith("/") or posixpath.normpath(path) != path:
        raise UsageError(
            f"{given}: give an absolute path without '..' or '//', e.g. /run/ssdlab-load/fio.sock"
        )
    if posixpath.dirname(path) == "/":
        raise UsageError(
            f"{given}: the socket needs a folder of its own, which the node creates "
            "(e.g. /run/ssdlab-load/fio.sock)"
        )
    if re.search(r"[\s,:\x00-\x1f\x7f]", path):
        raise UsageError(
            f"{given}: the path may not hold spaces, commas, colons or control characters"
        )
    if len(path.encode("utf-8")) > MAX_SOCKET_PATH:
        raise UsageError(f"{given}: a unix socket path must be at most {MAX_SOCKET_PATH} bytes")
    return path
