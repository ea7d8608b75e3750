"""Results made elsewhere become stored runs: CrystalDiskMark / KDiskMark / AS SSD Benchmark
text exports, Iometer results files, and fio JSON from jobs run by hand (fio's own or a
client's of fio servers).

An imported run is a run of kind 'import': the file's text is kept verbatim as its capture
(raw first), each test becomes a step result of one pass, and the run's settings say which
tool measured it and what its numbers mean. Tests are keyed like ssdlab's own quick tests
('rnd4k-q32t1-read', with the queue depth fio actually ran at), so `compare` can set a
CrystalDiskMark export or a hand-written fio job beside an ssdlab run of the same test; a
tool's own tests (AS SSD's 4K-64Thrd) keep their own keys. The drive the file names is kept
where a device run keeps its drive, the run's `target["device"]` (model, serial, firmware,
transport, capacity), so `show`, `compare`, the card and the spec-sheet match find it.

A fio job's logs (`import job.json --logs 'job_*.log'`, read by runner/imported_logs.py) are
kept verbatim beside the JSON, as files of its capture (raw first; fio's compressed .fz logs as
the text `fio --inflate-log` prints), then reduced: each latency kind (lat/clat/slat) to
percentiles, a histogram and a per-second series kept in the run's settings (`latency_logs`),
and the per-second I/Os and mean latency (from windowed bw/iops/lat logs when there are, else
from the latency log) as the step's series when the JSON holds one test.
"""

import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ssdlab import __version__
from ssdlab.analysis.passes import pass_metrics
from ssdlab.errors import ParseError
from ssdlab.model.imported import ImportedBenchmark, ImportedIdentity, ImportedTest
from ssdlab.model.plan import Direction, Pattern, QuickTest
from ssdlab.model.result import FioJobResult, FioResult, PassMetrics
from ssdlab.model.run import Capture, RunKind, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.model.target import TargetKind
from ssdlab.model.units import format_time
from ssdlab.parse.asssd_text import is_asssd_text, parse_asssd_text
from ssdlab.parse.benchmark_text import parse_benchmark_text
from ssdlab.parse.fio_client_json import (
    ALL_CLIENTS,
    ClientOutput,
    is_client_output,
    parse_fio_client_json,
)
from ssdlab.parse.fio_job_shape import FioJobShape, parse_fio_job_shapes
from ssdlab.parse.fio_json import parse_fio_json
from ssdlab.parse.iometer_csv import is_iometer_results, parse_iometer_csv
from ssdlab.runner.run_row import RunHeader, create_run
from ssdlab.store.captures import add_capture
from ssdlab.store.lifecycle import finish_run, to_json
from ssdlab.store.steps import add_step_result

IMPORT_PROFILE_VERSION = 1
FIO_SEMANTICS = (
    "Hand-written fio jobs, imported from fio's JSON output.",
    "Each job's numbers are fio's own (bw_bytes, iops, mean total latency), both directions "
    "summed and clones of one job added up; one run of each job, so one pass.",
)
CLIENT_SEMANTICS = (
    "fio run as a client of fio servers (--client): each server's jobs are kept under its "
    "address, and fio's 'All clients' entry as the total: I/O added up over the longest "
    "server's runtime, latency means weighted by I/Os.",
)
_TOOL_NAMES = {
    "crystaldiskmark": "CrystalDiskMark",
    "kdiskmark": "KDiskMark",
    "ssdlab": "ssdlab (CrystalDiskMark text layout)",
    "asssd": "AS SSD Benchmark",
    "iometer": "Iometer",
}


@dataclass(frozen=True, slots=True)
class ImportedRun:
    """What to store: the run's descriptive fields and its steps."""

    profile: str  # quick (CrystalDiskMark / KDiskMark / AS SSD / Iometer) | fio
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


def device_identity(identity: ImportedIdentity, path: str | None = None) -> dict[str, object]:
    """The drive as a device run keeps it in its target (`target["device"]`), where `show`,
    `compare`, the card and the spec-sheet match read it."""
    return {
        "model": identity.model,
        "serial": identity.serial,
        "firmware": identity.firmware,
        "transport": identity.transport,
        "capacity_bytes": identity.capacity_bytes,
        "path": path,
    }


def _unique(key: str, label: str, seen: set[str]) -> tuple[str, str]:
    """The key, or the key with the how-many-th it is when a test of that key came before."""
    if key not in seen:
        seen.add(key)
        return key, label
    n = 2
    while f"{key}-{n}" in seen:
        n += 1
    seen.add(f"{key}-{n}")
    return f"{key}-{n}", f"{label} ({n})"


def _benchmark_step(test: ImportedTest, seen: set[str]) -> StepResult:
    if test.key is not None:
        key, label = test.key, test.label
    else:
        depth, threads = test.queue_depth or 1, test.threads or 1
        key, label = _key(
            "rnd" if test.random else "seq", test.block_bytes, depth, threads, test.direction
        )
    key, label = _unique(key, label, seen)
    iops = test.iops
    if iops is None:  # the export printed no IOPS: derived from MB/s, as CrystalDiskMark does
        iops = test.bw_bytes_per_s / test.block_bytes if test.block_bytes else 0.0
    return StepResult(
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


def benchmark_run(bench: ImportedBenchmark, origin: str) -> ImportedRun:
    """A CrystalDiskMark, KDiskMark, AS SSD Benchmark or Iometer export as a run of ssdlab's
    quick profile."""
    seen: set[str] = set()
    steps = [_benchmark_step(test, seen) for test in bench.tests]
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
        **({"tool_details": bench.details} if bench.details else {}),
    }
    target: dict[str, object] = {"kind": "import", "path": origin}
    if any(v is not None for v in device_identity(bench.identity).values()):
        target["device"] = device_identity(bench.identity)
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


def with_identity(
    imported: ImportedRun, model: str | None, serial: str | None, firmware: str | None
) -> ImportedRun:
    """The run with the drive's model, serial or firmware set (or corrected) by the user;
    what the user did not give stays as the file said."""
    given = {"model": model, "serial": serial, "firmware": firmware}
    if all(v is None for v in given.values()):
        return imported
    device = imported.target.get("device")
    device = dict(device) if isinstance(device, dict) else device_identity(ImportedIdentity())
    device.update({k: v for k, v in given.items() if v is not None})
    settings = {**imported.settings, "identity_given": sorted(k for k, v in given.items() if v)}
    return replace(imported, target={**imported.target, "device": device}, settings=settings)


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "job"


def _mixed_metrics(jobs: Sequence[FioJobResult]) -> PassMetrics:
    """fio's unified_rw_reporting=1: both directions reported as one "mixed" direction."""
    parts = [j.mixed for j in jobs if j.mixed is not None]
    weighted = [(d.lat_mean_ns, d.total_ios) for d in parts if d.lat_mean_ns is not None]
    counts = [n for _, n in weighted if n is not None]
    lat = None
    if weighted and len(counts) == len(weighted) and sum(counts) > 0:
        lat = sum(m * (n or 0) for m, n in weighted) / sum(counts)
    elif len(weighted) == 1:
        lat = weighted[0][0]
    return PassMetrics(
        bw_bytes_per_s=sum(d.bw_bytes_per_s for d in parts),
        iops=sum(d.iops for d in parts),
        lat_mean_ns=lat,
        read=None,
        write=None,
    )


def _job_metrics(result: FioResult) -> PassMetrics | None:
    """Both directions of the jobs together (a mix is a total); None when they did no I/O,
    or did it in no measured time (fio leaves bw and iops at 0 when runtime is 0 ms)."""
    sides = [d for j in result.jobs for d in (j.read, j.write, j.mixed) if d is not None]
    if sides and all(d.runtime_s == 0 for d in sides):
        return None
    if any(j.mixed is not None for j in result.jobs):
        return _mixed_metrics(result.jobs)
    try:
        return pass_metrics(result)
    except ValueError:
        return None  # a job that did no I/O (e.g. a fill the user ran first) is not a result


def _job_step(
    name: str, result: FioResult, shape: FioJobShape | None, seen: set[str], host: str | None
) -> StepResult | None:
    metrics = _job_metrics(result)
    if metrics is None:
        return None
    if (
        shape is None
        or shape.pattern is None
        or shape.direction is None
        or shape.block_bytes is None
        or shape.depth_used is None
        or shape.numjobs is None
    ):
        direction = (
            "mix"
            if (metrics.read and metrics.write) or any(j.mixed for j in result.jobs)
            else ("write" if metrics.write else "read")
        )
        key, label = f"{_slug(name)}-{direction}", name
    else:
        direction = shape.direction
        key, label = _key(
            shape.pattern, shape.block_bytes, shape.depth_used, shape.numjobs, direction
        )
    if host is not None:
        key, label = f"{_slug(host)}-{key}", f"{host}: {label}"
    if key in seen:
        key, label = f"{_slug(name)}-{key}", f"{name}: {label}"
    key, label = _unique(key, label, seen)
    return StepResult(
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


def _grouped(jobs: Sequence[FioJobResult]) -> dict[str, list[FioJobResult]]:
    grouped: dict[str, list[FioJobResult]] = {}
    for job in jobs:
        grouped.setdefault(job.name, []).append(job)
    return grouped


def _no_io(result_jobs: Sequence[FioJobResult]) -> ParseError:
    # the caller names the file: naming it here too printed it twice
    errors = sorted({job.error for job in result_jobs if job.error})
    why = f" (fio reported error {', '.join(map(str, errors))})" if errors else ""
    return ParseError(f"the fio JSON has no job that did any I/O{why}")


def _fio_date(timestamp_s: int | None) -> str | None:
    """fio's `timestamp` (seconds since the epoch, fio 2.2.5+) as a UTC date."""
    if timestamp_s is None:
        return None
    try:
        return format_time(timestamp_s)
    except (OverflowError, OSError, ValueError):
        return None  # a timestamp no calendar holds


def _device_path(shapes: Sequence[FioJobShape]) -> str | None:
    """The block device every job ran on ('filename=/dev/nvme0n1'), when they share one."""
    names = {s.options.get("filename") for s in shapes}
    if len(names) == 1:
        (name,) = names
        if name is not None and name.startswith("/dev/") and ":" not in name:
            return name
    return None


def _depth_notes(shapes: Sequence[FioJobShape]) -> list[str]:
    notes = []
    for shape in shapes:
        note = f"{shape.name}: {shape.depth_note}" if shape.depth_note else None
        if note and note not in notes:
            notes.append(note)
    return notes


def _fio_settings(
    version: str, shapes: Sequence[FioJobShape], timestamp_s: int | None, extra: Sequence[str]
) -> dict[str, object]:
    by_name: dict[str, dict[str, str]] = {}
    for shape in shapes:
        by_name.setdefault(shape.name, shape.options)
    settings: dict[str, object] = {
        "source_tool": version,
        "semantics": [*FIO_SEMANTICS, *extra],
        "jobs": by_name,
        "date": _fio_date(timestamp_s),
    }
    notes = _depth_notes(shapes)
    if notes:
        settings["depth_notes"] = notes
    return settings


def _fio_imported(
    settings: dict[str, object],
    steps: Sequence[StepResult],
    origin: str,
    shapes: Sequence[FioJobShape],
) -> ImportedRun:
    version = str(settings["source_tool"])
    environment: dict[str, object] = {"ssdlab_version": __version__, "fio_version": version}
    target: dict[str, object] = {"kind": "import", "path": origin}
    path = _device_path(shapes)
    if path is not None:  # fio names the device node, never the drive: the model stays unknown
        target["device"] = device_identity(ImportedIdentity(), path)
    return ImportedRun("fio", None, version, settings, target, environment, tuple(steps))


def fio_run(result: FioResult, text: str, origin: str) -> ImportedRun:
    """fio JSON output as a run: one step per job name (its clones summed), keyed by the
    shape fio ran it in (the depth it actually used)."""
    shapes = parse_fio_job_shapes(text)
    by_name = {s.name: s for s in reversed(shapes)}
    seen: set[str] = set()
    steps = [
        step
        for name, jobs in _grouped(result.jobs).items()
        if (
            step := _job_step(
                name, replace(result, jobs=tuple(jobs)), by_name.get(name), seen, None
            )
        )
    ]
    if not steps:
        raise _no_io(result.jobs)
    version = result.fio_version or "fio (version not recorded)"
    settings = _fio_settings(version, shapes, result.timestamp_s, ())
    return _fio_imported(settings, steps, origin, shapes)


def fio_client_run(output: ClientOutput, text: str, origin: str) -> ImportedRun:
    """fio's client output as a run: fio's 'All clients' total of each job under the job's
    key, and each server's own under '<server>-<key>' (with one server: its jobs under their
    keys)."""
    shapes = parse_fio_job_shapes(text)
    by_name = {s.name: s for s in reversed(shapes)}
    seen: set[str] = set()
    steps: list[StepResult] = []
    totals = FioResult(output.fio_version, output.timestamp_s, output.all_clients)
    names = {j.name for _, r in output.servers for j in r.jobs}
    total_name = names.pop() if len(names) == 1 else ALL_CLIENTS
    ran = sum(1 for _, r in output.servers if any(j.name == total_name for j in r.jobs))
    for entry in output.all_clients:
        total = replace(totals, jobs=(entry,))
        # an 'All clients' entry carries no options: its shape is its servers' job's
        shape = by_name.get(total_name) if total_name != ALL_CLIENTS else None
        if shape is not None and shape.numjobs is not None and ran > 1:
            shape = replace(shape, numjobs=shape.numjobs * ran)  # every server's jobs at once
        step = _job_step(total_name, total, shape, seen, None)
        if step is not None and total_name != ALL_CLIENTS:
            step = replace(step, step_label=f"{ALL_CLIENTS}: {step.step_label}")
        steps += [step] if step else []
    one_server = len(output.servers) == 1 and not output.all_clients
    for host, result in output.servers:
        for name, jobs in _grouped(result.jobs).items():
            own = replace(result, jobs=tuple(jobs))
            step = _job_step(name, own, by_name.get(name), seen, None if one_server else host)
            steps += [step] if step else []
    if not steps:
        raise _no_io([*output.all_clients, *(j for _, r in output.servers for j in r.jobs)])
    version = output.fio_version or "fio (version not recorded)"
    settings = _fio_settings(version, shapes, output.timestamp_s, CLIENT_SEMANTICS)
    settings["servers"] = [host for host, _ in output.servers]
    return _fio_imported(settings, steps, origin, shapes)


def imported_run(text: str, origin: str) -> ImportedRun:
    """The run a file's text makes, by what the text is: fio's JSON (its own, or a client's
    `client_stats`), an Iometer results file, an AS SSD Benchmark text export, else a
    CrystalDiskMark or KDiskMark text export. ParseError (without the file's name) when it
    reads as none of them."""
    if text.lstrip().startswith("{") or '"fio version"' in text:
        if is_client_output(text):
            return fio_client_run(parse_fio_client_json(text), text, origin)
        return fio_run(parse_fio_json(text), text, origin)
    if is_iometer_results(text):
        return benchmark_run(parse_iometer_csv(text), origin)
    if is_asssd_text(text):
        return benchmark_run(parse_asssd_text(text), origin)
    return benchmark_run(parse_benchmark_text(text), origin)


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
