"""A user's own fio job file, read into ssdlab's job model so that ssdlab can set the target and
the iteration bound itself.

The file says *what* I/O to do (rw, bs, bssplit, iodepth, random_distribution, …). Options that
say *where* or *for how long*, that run programs, or that read other files are refused with the
line they are on: they would let a job file write somewhere the user did not name with
--destroy-data, or run something other than fio.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

from ssdlab.errors import ParseError
from ssdlab.model.plan import FioJob

# files fio would read or write besides the job's filename (also refused by fleet load)
OTHER_FILE_OPTIONS = frozenset({
    "filename_format", "directory", "opendir", "unique_filename", "nrfiles", "nr_files",
    "write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log",
    "write_iolog", "read_iolog", "replay_redirect", "merge_blktrace_file", "verify_state_save",
    "verify_state_load", "verify_dump", "aux_path", "ioscheduler", "cgroup",
})  # fmt: skip
# where the I/O goes, and files fio would read or write besides the target
_WHERE = OTHER_FILE_OPTIONS | frozenset({
    "filename", "file_service_type", "offset", "offset_increment", "size", "filesize",
    "fill_device", "log_avg_msec", "exitall", "stonewall", "wait_for", "new_group",
})  # fmt: skip
# how long an iteration lasts: ssdlab's --iteration-time / --iteration-bytes
_HOW_LONG = frozenset({
    "runtime", "time_based", "io_size", "io_limit", "number_ios", "loops", "ramp_time",
    "startdelay",
})  # fmt: skip
# options that run programs or pull in other files
UNSAFE_OPTIONS = frozenset({
    "exec_prerun", "exec_postrun", "include", "trigger", "trigger_cmd", "program", "arguments",
    "std_redirect",
})  # fmt: skip
# ioengines that read and write the target; the others run a program (exec), load a library
# (external:PATH), create, truncate or delete files, or do network or cluster I/O
IO_ENGINES = frozenset({
    "libaio", "io_uring", "psync", "sync", "pvsync", "pvsync2", "vsync", "posixaio", "mmap", "sg",
})  # fmt: skip

_SECTION = re.compile(r"^\[([^\]]+)\]$")
_BLANK = " \t\n\v\f\r"  # C's isspace(): what fio strips from the front of a line
_BLANK_OR_CONTROL = _BLANK + "".join(map(chr, range(32))) + "\x7f"  # ...and from its end
_COMMENT = re.compile(r"[;#]")
# within a line: fio breaks lines at newlines only, Python's str.splitlines at these too
_INNER_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f\x85\u2028\u2029]")
_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
_JOB_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def _refusal(name: str) -> str | None:
    if name in UNSAFE_OPTIONS:
        return "runs a program or reads another file"
    if name in _WHERE:
        return "says where the I/O goes; ssdlab writes only to the target you name"
    if name in _HOW_LONG:
        return "bounds the job; ssdlab bounds each iteration (--iteration-time/--iteration-bytes)"
    return None


def _user_job_refusal(name: str, value: str) -> str | None:
    why = _refusal(name)
    if name == "ioengine" and value not in IO_ENGINES:
        engines = ", ".join(sorted(IO_ENGINES))
        why = f"names an engine that does more than I/O to the target (use one of {engines})"
    return why


OptionRefusal = Callable[[str, str], str | None]


def read_option(line: str, number: int, refusal: OptionRefusal, here: str) -> tuple[str, str]:
    """(name, value) of an option line, refused (ParseError naming the line) when fio would
    read it otherwise or when `refusal(name, value)` gives a reason; `here` says where it is
    not accepted ("here", "in a load job")."""
    if line.lower().startswith("include"):  # fio includes for any line starting so
        raise ParseError(f"line {number}: include is not accepted: it reads another job file")
    name, sep, value = line.partition("=")
    name, value = name.strip().lower(), value.strip()
    if not _NAME.match(name):
        raise ParseError(f"line {number}: {name!r} is not a fio option name")
    if sep and not value:
        raise ParseError(f"line {number}: {name}= has no value")
    why = refusal(name, value)
    if why is not None:
        raise ParseError(f"line {number}: the option {name} is not accepted {here}: it {why}")
    return name, value


@dataclass(frozen=True, slots=True)
class JobSection:
    """One [section] of a job file: its name ("global" for defaults), its line, its options."""

    name: str
    line: int
    options: tuple[tuple[str, str], ...]


def _fio_line(raw: str) -> str:
    """A job file line as fio 3.33 reads it: cut at its first ';' or '#' (the rest is a
    comment, even within a line) and stripped as fio strips it (parse.c, strip_blank_end)."""
    comment = _COMMENT.search(raw)
    kept = raw[: comment.start()] if comment else raw
    return kept.lstrip(_BLANK).rstrip(_BLANK_OR_CONTROL)


def _section_name(line: str, number: int) -> str | None:
    """The name of a [section] line, or None for another line. fio keeps the name's spaces and
    makes every section whose name starts with "global" a [global]: such a name is refused."""
    section = _SECTION.match(line)
    if not section:
        return None
    name = section.group(1)
    if name.startswith("global") and name != "global":
        raise ParseError(
            f"line {number}: [{name}] is read by fio as [global] (so is any section whose name "
            "starts with 'global'); name it [global], or give the job another name"
        )
    if name != "global" and not _JOB_NAME.match(name):
        raise ParseError(f"line {number}: {name!r} is not a usable job name")
    return name


def read_sections(text: str, refusal: OptionRefusal, *, here: str, dollar: str) -> list[JobSection]:
    """The [global] and job sections of a job file in file order, every option line read by
    `read_option`. Lines are read as fio reads them (split at newlines only, a comment cut
    off, `_fio_line`). fio's `$` expansion is refused (`dollar` says why), and so are a
    control character within a line, a section name fio would read otherwise and an option
    before any section."""
    sections: list[tuple[str, int, list[tuple[str, str]]]] = []
    for number, raw in enumerate(text.split("\n"), 1):
        line = _fio_line(raw)
        if not line:
            continue
        if "$" in line:
            raise ParseError(f"line {number}: '$' is not accepted: {dollar}")
        if "\x00" in raw or _INNER_CONTROL.search(line):  # fio stops reading at a NUL
            raise ParseError(
                f"line {number}: a control character or line separator within a line is not "
                "accepted: fio reads it as part of the line, other tools as a line break"
            )
        name = _section_name(line, number)
        if name is not None:
            sections.append((name, number, []))
            continue
        if not sections:
            raise ParseError(f"line {number}: an option before any [section]")
        sections[-1][2].append(read_option(line, number, refusal, here))
    return [JobSection(name, line, tuple(options)) for name, line, options in sections]


def parse_fio_jobfile(text: str) -> FioJob:
    """The job file's [global] options and job sections. Raises ParseError naming the line
    for syntax fio would read differently, a refused option, or a file without jobs."""
    read = read_sections(text, _user_job_refusal, here="here", dollar="fio's variable expansion")
    jobs = [section for section in read if section.name != "global"]
    if not jobs:
        raise ParseError("the job file has no job section (e.g. [writes])")
    return FioJob(
        global_options=tuple(
            o for section in read if section.name == "global" for o in section.options
        ),
        sections=tuple((section.name, section.options) for section in jobs),
    )


def job_writes(job: FioJob) -> bool:
    """Whether any section of the job writes (rw/readwrite of a write, trim or mixed kind)."""
    rw_values = [v for n, v in job.global_options if n in ("rw", "readwrite")]
    for _name, options in job.sections:
        rw_values += [v for n, v in options if n in ("rw", "readwrite")]
    return any(v.split(":")[0] not in ("read", "randread") for v in rw_values)
