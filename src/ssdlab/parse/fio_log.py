"""fio's windowed per-interval logs (write_bw_log / write_iops_log / write_lat_log with
log_avg_msec) -> one SeriesPoint per interval and direction, summed over jobs.

File names, as fio 3.33 writes them for ``write_bw_log=P`` (likewise iops, lat, clat, slat):
``P_bw.1.log``, ``P_bw.2.log``, ... one per job (the number is fio's job number), or one
``P_bw.log`` for all jobs with ``per_job_logs=0``. ``write_lat_log`` writes lat, clat and slat.

A record is ``time_ms, value, ddir, bs[, offset][, prio]``: offset only with log_offset=1, so the
fifth column is usually the priority. bw is KiB/s (converted here to B/s), iops is 1/s, latency
is ns. Windowed records have bs 0; a record with a block size comes from a per-I/O log
(log_avg_msec unset), which this parser refuses.

How records become points:

- ``bucket = floor(time_ms / interval_ms + 1/2)`` (at least 1), rounding half up; the point's
  ``elapsed_s`` is the bucket's end, ``bucket * interval_ms / 1000``. Without ``interval_ms``
  the interval is the median of each job's first record time and its positive time steps.
- within one job a bucket keeps its first record: fio flushes the last partial window when the
  job ends (the in-flight I/O draining), which lands in the same bucket as the last full window.
- bw and iops are summed over jobs; when some job that logs this quantity and direction has no
  record in a bucket (fio often drops the last second of a bw log), the sum is None, not a
  partial total.
- lat is the mean over jobs, weighted by each job's iops in the bucket when every job's iops is
  known (per-job files), else the plain mean. A per_job_logs=0 file holds one block of records
  per job; a new block starts where the time goes backwards. Those jobs are not matched to
  their iops, so their latency is the plain mean.
- ddir 0 is read, 1 write; 2 (trim) is ignored. clat and slat logs are checked, not used.
  A point where bw, iops and lat are all unknown is left out.
"""

import re
import statistics
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from ssdlab.errors import ParseError
from ssdlab.model.result import SeriesPoint
from ssdlab.model.units import KiB

_NAME_RE = re.compile(r"^(?P<prefix>.*)_(?P<kind>bw|iops|lat|clat|slat)(?:\.(?P<job>\d+))?\.log$")
# fio prints 64-bit numbers (at most 20 digits); longer runs are not converted at all
_INT_RE = re.compile(r"^\d{1,20}$")
_VALUE_RE = re.compile(r"^\d{1,20}(?:\.\d{1,20})?$")
_EXTRA_RE = re.compile(r"^(?:\d{1,20}|0x[0-9a-fA-F]{1,16})$")
_DIRECTIONS = {0: "read", 1: "write"}
_TRIM = 2
_MS_PER_S = 1000

# a job is ("1",) for P_bw.1.log, or (prefix, block number) in a shared P_bw.log
_JobKey = tuple[str, ...]
_Cell = tuple[int, int]  # (bucket, ddir)


@dataclass(frozen=True, slots=True)
class _Record:
    time_ms: int
    value: float
    ddir: int


@dataclass(slots=True)
class _Log:
    kind: str
    job: _JobKey
    per_job: bool
    records: list[_Record]


def parse_interval_logs(
    logs: Mapping[str, str], interval_ms: int | None = None
) -> tuple[SeriesPoint, ...]:
    """Aggregate fio's windowed logs, keyed by the file names fio wrote (a directory part is
    ignored), into points sorted by (elapsed_s, direction).

    ``interval_ms`` is the job's log_avg_msec; None infers it from the record times.
    """
    if interval_ms is not None and interval_ms <= 0:
        raise ValueError(f"interval_ms must be positive, not {interval_ms}")
    parsed = _split_jobs(logs)
    if not any(log.records for log in parsed):
        return ()
    interval = interval_ms if interval_ms is not None else _infer_interval_ms(parsed)

    # kind -> job -> (bucket, ddir) -> value, first record of a bucket wins
    cells: dict[str, dict[_JobKey, dict[_Cell, float]]] = defaultdict(dict)
    per_job_jobs: set[_JobKey] = set()
    for log in parsed:
        if log.kind not in ("bw", "iops", "lat"):
            continue
        if log.per_job:
            per_job_jobs.add(log.job)
        table = cells[log.kind].setdefault(log.job, {})
        for record in log.records:
            if record.ddir == _TRIM:
                continue
            table.setdefault((_bucket(record.time_ms, interval), record.ddir), record.value)

    keys = sorted({cell for jobs in cells.values() for table in jobs.values() for cell in table})
    points: list[SeriesPoint] = []
    for bucket, ddir in keys:
        bw = _sum_over_jobs(cells["bw"], (bucket, ddir))
        iops = _sum_over_jobs(cells["iops"], (bucket, ddir))
        lat = _mean_lat(cells["lat"], cells["iops"], per_job_jobs, (bucket, ddir))
        if bw is None and iops is None and lat is None:
            continue
        points.append(
            SeriesPoint(
                elapsed_s=bucket * interval / _MS_PER_S,
                direction=_DIRECTIONS[ddir],
                bw_bytes_per_s=None if bw is None else bw * KiB,
                iops=iops,
                lat_mean_ns=lat,
            )
        )
    return tuple(points)


def _split_jobs(logs: Mapping[str, str]) -> list[_Log]:
    """Parse every file; split a shared (per_job_logs=0) file into one block per job."""
    result: list[_Log] = []
    seen: dict[tuple[str, str], str] = {}
    for path, text in logs.items():
        name = path.rsplit("/", 1)[-1]
        match = _NAME_RE.match(name)
        if match is None:
            raise ParseError(
                f"{name}: not a fio bw/iops/lat/clat/slat log name "
                "(expected PREFIX_KIND.N.log or PREFIX_KIND.log)"
            )
        kind, job, prefix = match.group("kind"), match.group("job"), match.group("prefix")
        records = _parse_records(name, text)
        if job is not None:
            if (kind, job) in seen:
                raise ParseError(f"{name}: job {job} already has a {kind} log, {seen[kind, job]}")
            seen[kind, job] = name
            result.append(_Log(kind, (job,), True, records))
            continue
        block: list[_Record] = []
        blocks = [block]
        for record in records:
            if block and record.time_ms < block[-1].time_ms:
                block = []
                blocks.append(block)
            block.append(record)
        result.extend(_Log(kind, (prefix, str(i)), False, b) for i, b in enumerate(blocks))
    return result


def _parse_records(name: str, text: str) -> list[_Record]:
    records: list[_Record] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = [field.strip() for field in line.split(",")]
        where = f"{name} line {number}"
        if not 4 <= len(fields) <= 7:
            raise ParseError(f"{where}: expected 4 to 7 comma-separated fields, got {len(fields)}")
        time_text, value_text, ddir_text, bs_text, *extra = fields
        if not all(_INT_RE.match(f) for f in (time_text, ddir_text, bs_text)) or not all(
            _EXTRA_RE.match(f) for f in extra
        ):
            raise ParseError(f"{where}: not a fio log record: {line.strip()!r}")
        ddir = int(ddir_text)
        if ddir not in (0, 1, _TRIM):
            raise ParseError(f"{where}: data direction {ddir} is not 0, 1 or 2")
        if int(bs_text) != 0:
            raise ParseError(
                f"{where}: block size {bs_text} means a per-I/O log; "
                "ssdlab reads windowed logs written with log_avg_msec"
            )
        records.append(_Record(int(time_text), _value(value_text, where), ddir))
    return records


def _value(text: str, where: str) -> float:
    if not _VALUE_RE.match(text):
        raise ParseError(f"{where}: value {text!r} is not a non-negative number")
    return float(text)


def _infer_interval_ms(parsed: list[_Log]) -> int:
    """The typical spacing of records: each job's first time and its positive steps."""
    candidates: list[int] = []
    for log in parsed:
        last: dict[int, int] = {}
        for record in log.records:
            step = record.time_ms - last.get(record.ddir, 0)
            if step > 0:
                candidates.append(step)
            last[record.ddir] = record.time_ms
    if not candidates:
        raise ParseError("fio logs: every record is at time 0; cannot infer the log interval")
    return int(statistics.median_low(candidates))


def _bucket(time_ms: int, interval_ms: int) -> int:
    return max(1, (2 * time_ms + interval_ms) // (2 * interval_ms))


def _sum_over_jobs(jobs: dict[_JobKey, dict[_Cell, float]], cell: _Cell) -> float | None:
    """Sum over jobs; None unless every job with records in this direction has this bucket."""
    logging = [table for table in jobs.values() if any(c[1] == cell[1] for c in table)]
    if not logging or any(cell not in table for table in logging):
        return None
    return sum(table[cell] for table in logging)


def _mean_lat(
    lat: dict[_JobKey, dict[_Cell, float]],
    iops: dict[_JobKey, dict[_Cell, float]],
    per_job_jobs: set[_JobKey],
    cell: _Cell,
) -> float | None:
    values = [(job, table[cell]) for job, table in lat.items() if cell in table]
    if not values:
        return None
    weights = [
        iops[job][cell] if job in per_job_jobs and cell in iops.get(job, {}) else None
        for job, _value in values
    ]
    known = [w for w in weights if w is not None]
    if len(known) == len(weights) and sum(known) > 0:
        return sum(w * v for w, (_job, v) in zip(known, values, strict=True)) / sum(known)
    return sum(v for _job, v in values) / len(values)
