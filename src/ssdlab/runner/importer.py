"""Results made elsewhere become stored runs: CrystalDiskMark / KDiskMark text exports and fio
JSON from jobs run by hand.

An imported run is a run of kind 'import': the file's text is kept verbatim as its capture
(raw first), each test becomes a step result of one pass, and the run's settings say which
tool measured it and what its numbers mean. Tests are keyed like ssdlab's own quick tests
('rnd4k-q32t1-read'), so `compare` can set a CrystalDiskMark export or a hand-written fio job
beside an ssdlab run of the same test.

A fio job's logs (`import job.json --logs 'job_*.log'`) are kept verbatim beside the JSON, as
files of its capture (raw first; fio's compressed .fz logs as the text `fio --inflate-log`
prints), then reduced: each latency kind (lat/clat/slat) to percentiles, a histogram and a
per-second series kept in the run's settings (`latency_logs`), and the per-second I/Os and
mean latency (from windowed bw/iops/lat logs when there are, else from the latency log) as the
step's series when the JSON holds one test.
"""

import io
import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ssdlab import __version__
from ssdlab.analysis.latency_stream import LatencyLogResult
from ssdlab.analysis.passes import pass_metrics
from ssdlab.errors import ParseError
from ssdlab.model.imported import ImportedBenchmark
from ssdlab.model.plan import Direction, Pattern, QuickTest
from ssdlab.model.result import FioJobResult, FioResult, SeriesPoint
from ssdlab.model.run import Capture, RunKind, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import TargetKind
from ssdlab.model.units import parse_size_bytes
from ssdlab.parse.fio_json import parse_fio_job_options
from ssdlab.parse.fio_lat_log import LATENCY_KINDS, describe_log_name, log_text_blocks
from ssdlab.parse.fio_log import parse_interval_logs
from ssdlab.runner.latency_logs import log_kind, reduce_latency_logs
from ssdlab.runner.run_row import RunHeader, create_run
from ssdlab.store.captures import add_capture
from ssdlab.store.lifecycle import finish_run, to_json
from ssdlab.store.steps import add_step_result
from ssdlab.system.user_files import LOG_FILE_BYTES, read_user_file

IMPORT_PROFILE_VERSION = 1
FIO_SEMANTICS = (
    "Hand-written fio jobs, imported from fio's JSON output.",
    "Each job's numbers are fio's own (bw_bytes, iops, mean total latency), both directions "
    "summed and clones of one job added up; one run of each job, so one pass.",
)
_TOOL_NAMES = {
    "crystaldiskmark": "CrystalDiskMark",
    "kdiskmark": "KDiskMark",
    "ssdlab": "ssdlab (CrystalDiskMark text layout)",
}
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
class ImportedRun:
    """What to store: the run's descriptive fields and its steps."""

    profile: str  # quick (CrystalDiskMark / KDiskMark) | fio
    preset: str | None
    source_tool: str
    settings: dict[str, object]
    target: dict[str, object]
    environment: dict[str, object]
    steps: tuple[StepResult, ...]


def _key(pattern: str, block: int, depth: int, jobs: int, direction: str) -> tuple[str, str]:
    """(key, label) exactly as ssdlab's own quick test of that shape names them."""
    test = QuickTest(Pattern(pattern), block, depth, jobs, Direction(direction))
    return test.key, test.label


def benchmark_run(bench: ImportedBenchmark, origin: str) -> ImportedRun:
    """A CrystalDiskMark or KDiskMark export as a run of ssdlab's quick profile."""
    steps = []
    for test in bench.tests:
        pattern = "rnd" if test.random else "seq"
        key, label = _key(pattern, test.block_bytes, test.queue_depth, test.threads, test.direction)
        iops = test.iops if test.iops is not None else test.bw_bytes_per_s / test.block_bytes
        steps.append(
            StepResult(
                step_key=key,
                step_label=label,
                direction=test.direction,
                round_index=1,
                discarded=False,
                bw_bytes_per_s=test.bw_bytes_per_s,
                iops=iops,
                lat_mean_ns=test.lat_mean_ns,
                read=None,
                write=None,
            )
        )
    name = _TOOL_NAMES.get(bench.tool, bench.tool)
    source = f"{name} {bench.tool_version}" if bench.tool_version else name
    settings: dict[str, object] = {
        "source_tool": source,
        "semantics": list(bench.semantics),
        "preset": bench.profile,
        "size_bytes": bench.test_size_bytes,
        "count": bench.count,
        "measure_s": bench.measure_s,
        "interval_s": bench.interval_s,
        "mix_read_pct": bench.mix_read_pct,
        "data": None if bench.zero_fill is None else ("zeros" if bench.zero_fill else "random"),
        "date": bench.date,
        "os": bench.os,
        "comment": bench.comment,
        "target_text": bench.target,
    }
    target: dict[str, object] = {"kind": "import", "path": origin}
    if bench.target:
        target["device"] = {"model": bench.target, "path": None}
    elif bench.comment:  # CrystalDiskMark's Comment line is where people name the drive
        target["device"] = {"model": bench.comment, "path": None}
    fio_version = None
    for line in bench.semantics:
        match = re.search(r"fio-\d+\.\d+", line)
        if match:
            fio_version = match.group(0)
    environment: dict[str, object] = {
        "ssdlab_version": __version__,
        "fio_version": fio_version,
        "os_release": bench.os,
    }
    return ImportedRun("quick", bench.profile, source, settings, target, environment, tuple(steps))


def _shape(options: dict[str, str]) -> tuple[str, int, int, int, str] | None:
    """(pattern, block bytes, iodepth, numjobs, direction) of a job, None when not a plain one."""
    rw = _RW.get(options.get("rw", options.get("readwrite", "read")).split(":")[0])
    if rw is None:
        return None
    try:
        block = parse_size_bytes(options.get("bs", options.get("blocksize", "4k")).split(",")[0])
        depth = int(options.get("iodepth", "1"))
        jobs = int(options.get("numjobs", "1"))
    except ValueError:
        return None
    if block <= 0 or depth <= 0 or jobs <= 0:
        return None
    return rw[0], block, depth, jobs, rw[1]


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "job"


def fio_run(result: FioResult, text: str, origin: str) -> ImportedRun:
    """fio JSON output as a run: one step per job name (its clones summed)."""
    options = dict(parse_fio_job_options(text))
    grouped: dict[str, list[FioJobResult]] = {}
    for job in result.jobs:
        grouped.setdefault(job.name, []).append(job)
    steps = []
    seen: set[str] = set()
    for name, jobs in grouped.items():
        try:
            metrics = pass_metrics(FioResult(result.fio_version, result.timestamp_s, tuple(jobs)))
        except ValueError:
            continue  # a job that did no I/O (e.g. a fill the user ran first) is not a result
        shape = _shape(options.get(name, {}))
        if shape is None:
            direction = (
                "mix" if metrics.read and metrics.write else ("write" if metrics.write else "read")
            )
            key, label = f"{_slug(name)}-{direction}", name
        else:
            key, label = _key(*shape)
            direction = shape[4]
        if key in seen:
            key, label = f"{_slug(name)}-{key}", f"{name}: {label}"
        seen.add(key)
        steps.append(
            StepResult(
                step_key=key,
                step_label=label,
                direction=direction,
                round_index=1,
                discarded=False,
                bw_bytes_per_s=metrics.bw_bytes_per_s,
                iops=metrics.iops,
                lat_mean_ns=metrics.lat_mean_ns,
                read=metrics.read,
                write=metrics.write,
            )
        )
    if not steps:
        # the caller names the file: naming it here too printed it twice
        errors = sorted({job.error for job in result.jobs if job.error})
        why = f" (fio reported error {', '.join(map(str, errors))})" if errors else ""
        raise ParseError(f"the fio JSON has no job that did any I/O{why}")
    version = result.fio_version or "fio (version not recorded)"
    settings: dict[str, object] = {
        "source_tool": version,
        "semantics": list(FIO_SEMANTICS),
        "jobs": {name: options.get(name, {}) for name in grouped},
    }
    environment: dict[str, object] = {"ssdlab_version": __version__, "fio_version": version}
    target: dict[str, object] = {"kind": "import", "path": origin}
    return ImportedRun("fio", None, version, settings, target, environment, tuple(steps))


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


def store_imported_run(
    conn: sqlite3.Connection,
    imported: ImportedRun,
    text: str,
    origin: str,
    now_s: float,
    files: Mapping[str, str] | None = None,
) -> int:
    """Store the run: the file verbatim as its capture first (with `files`, e.g. the job's
    logs, beside it), then its steps; complete."""
    run_id = create_run(
        conn,
        RunHeader(
            kind=RunKind.IMPORT,
            profile=imported.profile,
            profile_version=IMPORT_PROFILE_VERSION,
            preset=imported.preset,
            target_kind=TargetKind.IMPORT,
            target_path=origin,
            target_json=to_json(imported.target),
            device_id=None,
            settings_json=to_json(imported.settings),
            plan_json=to_json({"imported_from": origin}),
            environment_json=to_json(imported.environment),
        ),
        now_s,
    )
    capture_id = add_capture(
        conn,
        run_id,
        Capture(
            tool=f"import:{imported.profile}",
            argv=("ssdlab", "import", origin),
            exit_code=0,
            stdout=text,
            stderr="",
            started_at_s=now_s,
            ended_at_s=now_s,
            tool_version=imported.source_tool,
        ),
        dict(files) if files else None,
    )
    for step in imported.steps:
        add_step_result(conn, run_id, replace(step, capture_id=capture_id))
    finish_run(conn, run_id, RunStatus.COMPLETE, f"imported from {origin}", now_s)
    return run_id
