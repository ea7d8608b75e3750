"""The logs of a fio job run by hand (`import job.json --logs 'job_*.log'`): each checked to be
a log the imported jobs write, read as text (fio's compressed .fz logs as `fio --inflate-log`
prints them), and reduced (runner/importer.py says what the run keeps of them). Apart from
the importer, so an import without logs loads no log reducer (nor numpy through it)."""

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ssdlab.analysis.latency_stream import LatencyLogResult
from ssdlab.errors import ParseError
from ssdlab.model.result import SeriesPoint
from ssdlab.parse.fio_lat_log import LATENCY_KINDS, describe_log_name, log_text_blocks
from ssdlab.parse.fio_log import parse_interval_logs
from ssdlab.runner.importer import ImportedRun
from ssdlab.runner.latency_logs import log_kind, reduce_latency_logs
from ssdlab.system.user_files import LOG_FILE_BYTES, read_user_file

_LOG_OPTIONS = {
    "lat": "write_lat_log",
    "clat": "write_lat_log",
    "slat": "write_lat_log",
    "bw": "write_bw_log",
    "iops": "write_iops_log",
}


@dataclass(frozen=True, slots=True)
class FioLogs:
    """A hand-run job's logs: their text to store, and what they reduce to."""

    files: dict[str, str]  # stored name -> text
    latency: dict[str, LatencyLogResult]  # lat | clat | slat -> reduction
    series: tuple[SeriesPoint, ...]
    notes: tuple[str, ...]


def _log_jobs(imported: ImportedRun, option: str) -> dict[str, int]:
    """Log prefix -> how many jobs (clones included) log under it with `option`."""
    jobs = imported.settings.get("jobs")
    counts: dict[str, int] = {}
    for name, options in (jobs if isinstance(jobs, dict) else {}).items():
        if option in options:
            prefix = options[option] or name  # fio names the log after the job when bare
            clones = (
                int(options.get("numjobs", "1")) if options.get("numjobs", "1").isdigit() else 1
            )
            counts[prefix] = counts.get(prefix, 0) + clones
    return counts


def check_log_belongs(path: Path, imported: ImportedRun) -> None:
    """A ParseError when the log's name is not one the imported jobs write."""
    name = describe_log_name(path.name)
    if name.kind is None:
        raise ParseError(
            f"{path}: not a fio log name (PREFIX_lat.N.log, _clat, _slat, _bw, _iops); "
            "import takes the logs the job in the JSON wrote"
        )
    jobs = _log_jobs(imported, _LOG_OPTIONS[name.kind])
    if name.prefix not in jobs:
        known = ", ".join(sorted(jobs)) or "none"
        raise ParseError(
            f"{path} is a log of '{name.prefix}', not of a job in this fio JSON (its jobs "
            f"write {_LOG_OPTIONS[name.kind]} logs as: {known})"
        )
    if name.job is not None and name.job > jobs[name.prefix]:
        raise ParseError(
            f"{path} is the log of job {name.job}, but this fio JSON has {jobs[name.prefix]} "
            f"job(s) logging as '{name.prefix}': is it from another run?"
        )


def _log_text(path: Path) -> str:
    compression = describe_log_name(path.name).compression
    data = read_user_file(path, LOG_FILE_BYTES, "the fio log")
    blocks = log_text_blocks(io.BytesIO(data), compression)
    try:
        return b"".join(blocks).decode("ascii")
    except UnicodeDecodeError:
        raise ParseError(f"{path}: not a fio log (not text)") from None


def _stored_name(path: Path) -> str:
    return "logs/" + path.name.removesuffix(".fz").removesuffix(".gz")


def _per_second_points(result: LatencyLogResult) -> tuple[SeriesPoint, ...]:
    return tuple(
        SeriesPoint(p.elapsed_s, direction, None, float(p.ios), p.mean_ns)
        for direction, summary in result.directions.items()
        if direction in ("read", "write")
        for p in summary.series
    )


def read_fio_logs(
    paths: Sequence[Path], imported: ImportedRun, core: str, averaged: bool | None
) -> FioLogs:
    """The logs of the imported fio jobs, read and reduced; a ParseError (naming the file) for
    a log of another job or one that does not parse."""
    for path in paths:
        check_log_belongs(path, imported)
    files = {_stored_name(p): _log_text(p) for p in paths}
    by_kind: dict[str, list[Path]] = {}
    for path in paths:
        by_kind.setdefault(describe_log_name(path.name).kind or "lat", []).append(path)
    latency = {}
    for kind in LATENCY_KINDS:
        found = [p for p in by_kind.get(kind, []) if files[_stored_name(p)].strip()]
        if found:
            log_kind(found)
            latency[kind] = reduce_latency_logs(found, core, averaged)
    notes = []
    windowed = {
        _stored_name(p).removeprefix("logs/"): files[_stored_name(p)]
        for p in paths
        if describe_log_name(p.name).kind in ("bw", "iops")
        or (
            describe_log_name(p.name).kind == "lat" and "lat" in latency and latency["lat"].averaged
        )
    }
    series: tuple[SeriesPoint, ...] = ()
    if windowed:
        try:
            series = parse_interval_logs(windowed)
        except ParseError as error:
            notes.append(f"bw/iops logs kept, not charted: {error}")
    if not series:
        per_io = next((r for r in latency.values() if not r.averaged), None)
        series = () if per_io is None else _per_second_points(per_io)
    return FioLogs(files, latency, series, tuple(notes))


def with_logs(imported: ImportedRun, logs: FioLogs, latency_data: Mapping[str, Any]) -> ImportedRun:
    """The run with its logs' reductions in its settings, and their series on its step when
    it has one."""
    settings = {
        **imported.settings,
        "latency_logs": dict(latency_data),
        "log_files": sorted(logs.files),
        "log_notes": list(logs.notes),
    }
    steps = imported.steps
    if len(steps) == 1 and logs.series:
        steps = (replace(steps[0], series=logs.series),)
    return replace(imported, settings=settings, steps=steps)
