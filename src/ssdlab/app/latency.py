"""`ssdlab latency LOG…`: fio latency logs reduced (runner/latency_logs.py) to percentiles, a
histogram and a per-second series, as a document; nothing is stored. The log names a command
takes (`latency`, `import --logs`) are expanded here: quoted globs included."""

import glob
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ssdlab.analysis.latency_reconcile import (
    ReconcileRefusal,
    reconcile_latency,
    reconciliation_data,
    threshold_bounds_ns,
)
from ssdlab.analysis.latency_stream import LatencyLogResult
from ssdlab.errors import ParseError, UsageError
from ssdlab.model.ocp_logs import LatencyMonitorLog
from ssdlab.parse.drive_outputs import C3, read_drive_output
from ssdlab.report.document import Document
from ssdlab.report.latency import latency_log_data, latency_log_document
from ssdlab.report.latency_reconcile import reconciliation_headline, reconciliation_section
from ssdlab.runner.host_latency_counts import count_host_latencies
from ssdlab.runner.latency_logs import reduce_latency_logs
from ssdlab.system.user_files import LOG_FILE_BYTES, read_user_file

_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class LatencyRequest:
    """The logs (paths or globs), the reducer (`core`: auto, compiled, python) and whether
    the logs hold window means (`averaged`; None: as they look)."""

    logs: tuple[str, ...]
    core: str = "auto"
    averaged: bool | None = None
    c3_before: str | None = None
    c3_after: str | None = None


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
    paths = expand_log_paths(request.logs)
    result = reduce_latency_logs(paths, request.core, request.averaged)
    data = latency_log_data(result)
    if request.c3_before is None and request.c3_after is None:
        return latency_log_document(data)
    if request.c3_before is None or request.c3_after is None:
        raise UsageError(
            "give both C3h reads: ssdlab latency LOG… --c3-before BEFORE.json --c3-after AFTER.json"
        )
    found = _reconciliation(paths, result, request.c3_before, request.c3_after)
    document = latency_log_document({**data, "reconciliation": found})
    return replace(
        document,
        headline=(*document.headline, *reconciliation_headline(found)),
        sections=(*document.sections, reconciliation_section(found)),
    )


def read_latency_monitor_file(path: str) -> LatencyMonitorLog:
    """A saved C3h: nvme-cli's JSON, its hex dump of the page, or the 512-byte page."""
    data = read_user_file(path, LOG_FILE_BYTES, "the C3h file")
    refusal = UsageError(
        f"{path} is not an OCP Latency Monitor log (C3h): save one with "
        "'nvme ocp latency-monitor-log /dev/nvme0 -o json > FILE'"
    )
    try:
        output = read_drive_output(data, path)
    except ParseError:
        raise refusal from None
    page = output.page
    if output.kind != C3 or page is None:
        raise refusal
    if not isinstance(page.log, LatencyMonitorLog):
        raise UsageError(f"{path}: {page.problem}")
    return page.log


def _reconciliation(
    paths: Sequence[Path], result: LatencyLogResult, before_path: str, after_path: str
) -> dict[str, object]:
    if result.averaged:
        raise UsageError(
            "the logs hold window means (log_avg_msec), not one latency per I/O: rerun fio "
            "with --write_lat_log=NAME --log_avg_msec=0 (or pass --per-io if they are per-I/O)"
        )
    if result.kind == "slat":
        raise UsageError(
            "a submission latency (slat) log does not hold the command's latency: give the "
            "job's _lat log (ssdlab latency NAME_lat.*.log --c3-before … --c3-after …)"
        )
    before = read_latency_monitor_file(before_path)
    after = read_latency_monitor_file(after_path)
    host = count_host_latencies(paths, threshold_bounds_ns(before))
    try:
        reconciled = reconcile_latency(before, after, host)
    except ReconcileRefusal as error:
        raise UsageError(f"{before_path}, {after_path}: {error}") from None
    return reconciliation_data(reconciled, (before_path, after_path), result.kind)
