"""Render fio job files, and refuse values that would change their meaning."""

import re

from ssdlab.errors import TargetError
from ssdlab.model.plan import FioJob, Options

# Characters that fio reads specially in a job file or a filename= value:
#   ':' separates several files, '$' starts ${ENV} expansion, '\' escapes, ';' and '#' begin
#   comments, '"' and '\'' are stripped by fio's option parser, newlines end the option.
_FIO_SPECIAL = set(":$\\;#\"'")
_OPTION_NAME_RE = re.compile(r"^[a-z_][a-z0-9_]*$")


def check_fio_path(path: str) -> None:
    """Raise TargetError when `path` cannot be written safely into a fio job file."""
    bad = sorted({c for c in path if c in _FIO_SPECIAL or ord(c) < 32 or ord(c) == 127})
    if bad:
        shown = " ".join(repr(c) for c in bad)
        raise TargetError(
            f"the path {path!r} contains {shown}, which fio would read as part of its job "
            "syntax (file separator, variable, comment or line break); choose a path without "
            "these characters"
        )
    if path != path.strip():
        raise TargetError(
            f"the path {path!r} starts or ends with white space, which fio strips; "
            "choose a path without leading or trailing spaces"
        )


def _check_option(name: str, value: str) -> None:
    if not _OPTION_NAME_RE.match(name):
        raise ValueError(f"not a fio option name: {name!r}")
    if any(ord(c) < 32 for c in value):
        raise ValueError(f"fio option {name} has a control character in its value")


def _render_options(options: Options) -> list[str]:
    lines = []
    for name, value in options:
        _check_option(name, value)
        lines.append(name if value == "" else f"{name}={value}")
    return lines


def render_job(job: FioJob, comment: str | None = None) -> str:
    """The job file text, byte for byte what fio reads."""
    lines: list[str] = []
    if comment:
        lines.extend(f"; {line}" for line in comment.splitlines())
    lines.append("[global]")
    lines.extend(_render_options(job.global_options))
    for section, options in job.sections:
        if not _OPTION_NAME_RE.match(section.replace("-", "_")):
            raise ValueError(f"not a usable fio job name: {section!r}")
        lines.append("")
        lines.append(f"[{section}]")
        lines.extend(_render_options(options))
    return "\n".join(lines) + "\n"
