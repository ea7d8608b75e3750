"""Metrics for node_exporter's textfile collector: one file, replaced atomically.

node_exporter reads every `*.prom` file of its `--collector.textfile.directory` on each
scrape; a file it reads half-written gives a scrape error. So the text goes to a temporary
file in the same folder (its name does not end in `.prom`, so it is never read), is flushed to
disk, and is renamed over the old file: a scrape sees the old file or the new one, whole."""

import os
import secrets
from pathlib import Path

from ssdlab.errors import TargetError, UsageError
from ssdlab.system.write_gate import check_output_folder, check_output_path

PROM_SUFFIX = ".prom"


def _checked_name(name: str) -> str:
    if not name.endswith(PROM_SUFFIX) or "/" in name or name.startswith("."):
        raise UsageError(f"a textfile collector file is a plain name ending in .prom, not {name!r}")
    return name


def write_textfile(folder: Path, text: str, name: str = "ssdlab.prom") -> Path:
    """Write `text` as `folder/name`, atomically (temp file in `folder`, fsync, rename), and
    return its path. The folder must exist; it and the file are checked by the write gate."""
    checked = check_output_folder(str(folder), "--textfile")
    if not checked.is_dir():
        raise UsageError(f"--textfile {folder}: no such folder (node_exporter's textfile folder)")
    target = check_output_path(str(checked / _checked_name(name)), "--textfile")
    temporary = checked / f".{name}.{secrets.token_hex(6)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(temporary, flags, 0o644)
    except OSError as error:
        raise TargetError(f"cannot write in {checked}: {error.strerror}") from error
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise TargetError(f"cannot write {target}: {error.strerror}") from error
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return target
