"""`ssdlab latency LOG…`: fio latency logs reduced (runner/latency_logs.py) to percentiles, a
histogram and a per-second series, as a document; nothing is stored. The log names a command
takes (`latency`, `import --logs`) are expanded here: quoted globs included."""

import glob
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import UsageError
from ssdlab.report.document import Document
from ssdlab.report.latency import latency_log_data, latency_log_document
from ssdlab.runner.latency_logs import reduce_latency_logs

_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class LatencyRequest:
    """The logs (paths or globs), the reducer (`core`: auto, compiled, python) and whether
    the logs hold window means (`averaged`; None: as they look)."""

    logs: tuple[str, ...]
    core: str = "auto"
    averaged: bool | None = None


def expand_log_paths(patterns: Sequence[str]) -> list[Path]:
    """Each pattern as given, or the files a quoted glob matches (sorted); a UsageError for a
    glob that matches nothing."""
    paths: list[Path] = []
    for pattern in patterns:
        if Path(pattern).exists() or not _GLOB_CHARS & set(pattern):
            paths.append(Path(pattern))
            continue
        matched = sorted(glob.glob(pattern))
        if not matched:
            raise UsageError(f"{pattern} matches no file; check the folder and the job's name")
        paths.extend(Path(m) for m in matched)
    return list(dict.fromkeys(paths))


def latency_of_logs(request: LatencyRequest) -> Document:
    """The logs merged and reduced, laid out as a document."""
    result = reduce_latency_logs(expand_log_paths(request.logs), request.core, request.averaged)
    return latency_log_document(latency_log_data(result))
