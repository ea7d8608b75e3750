"""What `ssdlab metrics` reads of the store on each scrape, by indexed queries (schema 9): the
drives with health samples and each drive's series of plain figures, the latest sample of a
drive, the complete quick runs with the drive each measured, the measured passes and baseline
verdicts of the runs it exports, and the endurance runs under way. No statement scans the
health samples or step results, and no sample's JSON is read but the one the scrape prints.

The latest sample of a drive and the passes of a run are read from their JSON blobs as the
codec would (`store/codec.py`: the version checked, every field taken by name, the dataclass
built with its defaults), without the codec's general decoder: at 1.3 ms a health sample and
0.3 ms a direction it would take most of a scrape of 1,000 drives. What they build is checked
against the codec's decoding (tests/unit/store/test_latest.py)."""

import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ssdlab.errors import StoreError
from ssdlab.model.health import HEALTH_METRICS, DriveIdentity, HealthSample, HealthValue, Provenance
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.run import RunStatus
from ssdlab.model.step import StepResult
from ssdlab.store.codec import FINDING_BODY, HEALTH_SAMPLE, STEP_METRICS, loads_blob

IMPORTED = "import"  # the phase of a sample read from a saved file (`ssdlab health FILE`)
CHUNK = 500  # ids per `IN (...)` list, well below SQLite's limit of bound values


@contextmanager
def read_snapshot(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One read transaction: every statement sees the store as it was when the first ran
    (a sample `watch` writes meanwhile is in the next scrape, not in half of this one)."""
    if conn.in_transaction:  # the caller's own transaction: it sees one store already
        yield conn
        return
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        conn.execute("COMMIT")


def _chunks(ids: Sequence[int]) -> Iterator[Sequence[int]]:
    for start in range(0, len(ids), CHUNK):
        yield ids[start : start + CHUNK]


def _marks(ids: Sequence[int]) -> str:
    return ", ".join("?" * len(ids))


# ---- drives -------------------------------------------------------------------------------

DRIVE_KEYS_SQL = (
    "WITH RECURSIVE drive(key) AS (SELECT MIN(device_key) FROM health_samples"
    " UNION ALL SELECT (SELECT MIN(device_key) FROM health_samples WHERE device_key > drive.key)"
    " FROM drive WHERE drive.key IS NOT NULL) SELECT key FROM drive WHERE key IS NOT NULL"
)


def drive_keys(conn: sqlite3.Connection) -> list[str]:
    """Every drive with health samples (its `device_key`), in key order: one index step from
    each key to the next, however many samples each drive has."""
    return [str(row[0]) for row in conn.execute(DRIVE_KEYS_SQL)]


@dataclass(frozen=True, slots=True)
class DrivePoint:
    """One health sample of a drive as the wear analysis reads it: when, which run and phase,
    and the counters it fits with their resolutions (None: unknown)."""

    sample_id: int
    run_id: int
    phase: str
    taken_at_s: float | None
    wear_used_pct: float | None
    wear_used_resolution: float | None
    erase_count_avg: float | None
    erase_count_resolution: float | None
    host_written_bytes: float | None
    host_written_resolution: float | None
    nand_written_bytes: float | None
    nand_written_resolution: float | None

    @property
    def imported(self) -> bool:
        """Read from a saved file, not from a drive of the host whose run stored it."""
        return self.phase == IMPORTED


DRIVE_POINTS_SQL = (
    "SELECT id, run_id, phase, taken_at_s, wear_used_pct, wear_used_resolution, erase_count_avg,"
    " erase_count_resolution, host_written_bytes, host_written_resolution, nand_written_bytes,"
    " nand_written_resolution FROM health_samples WHERE device_key = ? ORDER BY taken_at_s, id"
)


def _number(value: object, where: str) -> float | None:
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return value
    raise StoreError(f"{where} cannot be read: {value!r} is not a number")


def drive_points(conn: sqlite3.Connection, key: str) -> list[DrivePoint]:
    """The samples of one drive, oldest first (samples without a time first), from the
    covering index health_by_device."""
    points = []
    for row in conn.execute(DRIVE_POINTS_SQL, (key,)):
        where = f"health sample {row[0]} of run {row[1]}"
        figures = [_number(value, where) for value in tuple(row)[3:]]
        points.append(DrivePoint(int(row[0]), int(row[1]), str(row[2]), *figures))
    return points


def run_hosts(conn: sqlite3.Connection, run_ids: Iterable[int]) -> dict[int, str]:
    """The host of each run (this machine's name, or a collected run's inventory name)."""
    wanted = sorted(set(run_ids))
    hosts: dict[int, str] = {}
    for chunk in _chunks(wanted):
        sql = f"SELECT id, host FROM runs WHERE id IN ({_marks(chunk)})"
        hosts.update((int(r[0]), str(r[1])) for r in conn.execute(sql, chunk))
    return hosts


# ---- one health sample --------------------------------------------------------------------


def _health_value(data: object, where: str) -> HealthValue:
    if not isinstance(data, dict):
        raise StoreError(f"{where} cannot be read: {data!r} is not a health value")
    provenance = data.get("provenance")
    if provenance is not None:
        if not isinstance(provenance, dict):
            raise StoreError(f"{where} cannot be read: {provenance!r} is not a provenance")
        provenance = Provenance(**provenance)
    return HealthValue(
        **{**data, "value": _number(data.get("value"), where), "provenance": provenance}
    )


def _health_sample(data: dict[str, Any], where: str) -> HealthSample:
    fields = dict(data)
    identity = fields.get("identity")
    if not isinstance(identity, dict):
        raise StoreError(f"{where} cannot be read: it names no drive")
    fields["identity"] = DriveIdentity(**identity)
    if "taken_at_s" in fields:
        fields["taken_at_s"] = _number(fields["taken_at_s"], where)
    for name in HEALTH_METRICS:
        if name in fields:
            fields[name] = _health_value(fields[name], f"{where}'s {name}")
    for name in ("exit_findings", "flags", "sources"):
        if name in fields:
            fields[name] = tuple(fields[name])
    return HealthSample(**fields)


def health_sample(conn: sqlite3.Connection, sample_id: int) -> HealthSample:
    """One stored health sample, read by its row id."""
    row = conn.execute(
        "SELECT run_id, sample_json FROM health_samples WHERE id = ?", (sample_id,)
    ).fetchone()
    if row is None:
        raise StoreError(f"there is no health sample {sample_id}")
    where = f"health sample {sample_id} of run {row[0]}"
    try:
        return _health_sample(loads_blob(row[1], HEALTH_SAMPLE, where), where)
    except TypeError as error:
        raise StoreError(f"{where} cannot be read: {error}") from None


# ---- runs and the drive each measured -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunDrive:
    """A run and what names the drive it measured: its last health sample's model, serial
    and firmware (`sampled`: it has one), else its block device's (`device`: it was on one)."""

    run_id: int
    host: str
    ended_at_s: float | None
    sampled: bool
    sample_model: str | None
    sample_serial: str | None
    sample_firmware: str | None
    device: bool
    device_model: str | None
    device_serial: str | None
    device_firmware: str | None


def _last_sample(column: str) -> str:
    return (
        f"(SELECT s.{column} FROM health_samples s WHERE s.run_id = r.id"
        " ORDER BY s.taken_at_s DESC, s.id DESC LIMIT 1)"
    )


RUN_DRIVE_SQL = (
    "SELECT r.id, r.host, r.ended_at_s, "
    + ", ".join(_last_sample(c) for c in ("id", "model", "serial", "firmware"))
    + ", d.id, d.model, d.serial, d.firmware FROM runs r LEFT JOIN devices d ON d.id = r.device_id"
)
QUICK_RUNS_SQL = (
    RUN_DRIVE_SQL + " WHERE r.profile = 'quick' AND r.status = ? AND r.kind != 'import'"
    " ORDER BY r.started_at_s, r.id"
)
ENDURANCE_RUNS_SQL = (
    RUN_DRIVE_SQL + " WHERE r.profile = 'endurance' AND (r.status = ? OR r.ended_at_s >= ?)"
    " ORDER BY r.id"
)


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _run_drive(row: sqlite3.Row) -> RunDrive:
    ended = row[2]
    return RunDrive(
        run_id=int(row[0]),
        host=str(row[1]),
        ended_at_s=None if ended is None else float(ended),
        sampled=row[3] is not None,
        sample_model=_text(row[4]),
        sample_serial=_text(row[5]),
        sample_firmware=_text(row[6]),
        device=row[7] is not None,
        device_model=_text(row[8]),
        device_serial=_text(row[9]),
        device_firmware=_text(row[10]),
    )


def complete_quick_runs(conn: sqlite3.Connection) -> list[RunDrive]:
    """Every complete quick run ssdlab ran (imported runs left out), oldest first."""
    rows = conn.execute(QUICK_RUNS_SQL, (RunStatus.COMPLETE.value,))
    return [_run_drive(row) for row in rows]


def endurance_runs(conn: sqlite3.Connection, ended_since_s: float) -> list[RunDrive]:
    """Endurance runs running, or that ended at `ended_since_s` or later, by id."""
    rows = conn.execute(ENDURANCE_RUNS_SQL, (RunStatus.RUNNING.value, ended_since_s))
    return [_run_drive(row) for row in rows]


# ---- the passes and verdicts of the runs exported -----------------------------------------


def _direction(text: str | None, where: str) -> DirectionMetrics | None:
    if text is None:
        return None
    data = loads_blob(text, STEP_METRICS, where)
    percentiles = data.get("clat_percentiles_ns", ())
    try:
        pairs = tuple((_number(pct, where), _number(ns, where)) for pct, ns in percentiles)
        return DirectionMetrics(**{**data, "clat_percentiles_ns": pairs})
    except (TypeError, ValueError) as error:
        raise StoreError(f"{where} cannot be read: {error}") from None


PASSES_SQL = (
    "SELECT run_id, id, step_key, step_label, direction, round_index, bw_bytes_per_s, iops,"
    " lat_mean_ns, read_json, write_json, capture_id FROM step_results"
    " WHERE run_id IN ({marks}) AND discarded = 0 ORDER BY run_id, id"
)


def measured_passes(
    conn: sqlite3.Connection, run_ids: Sequence[int]
) -> dict[int, list[StepResult]]:
    """The measured passes (warm-ups left out) of each run, in the order they ran, without
    their per-second series."""
    passes: dict[int, list[StepResult]] = {run_id: [] for run_id in run_ids}
    for chunk in _chunks(list(run_ids)):
        for row in conn.execute(PASSES_SQL.format(marks=_marks(chunk)), chunk):
            where = f"step result {row[1]}"
            passes[int(row[0])].append(
                StepResult(
                    step_key=row[2],
                    step_label=row[3],
                    direction=row[4],
                    round_index=int(row[5]),
                    discarded=False,
                    bw_bytes_per_s=float(row[6]),
                    iops=float(row[7]),
                    lat_mean_ns=row[8],
                    read=_direction(row[9], f"{where}'s read"),
                    write=_direction(row[10], f"{where}'s write"),
                    capture_id=row[11],
                )
            )
    return passes


def findings_named(
    conn: sqlite3.Connection, name: str, run_ids: Sequence[int]
) -> dict[int, Mapping[str, Any]]:
    """The body of the finding called `name` of each run that has one."""
    bodies: dict[int, Mapping[str, Any]] = {}
    for chunk in _chunks(list(run_ids)):
        sql = (
            f"SELECT run_id, body_json FROM findings WHERE run_id IN ({_marks(chunk)}) AND name = ?"
        )
        for run_id, body in conn.execute(sql, [*chunk, name]):
            where = f"run {run_id}'s finding {name}"
            bodies[int(run_id)] = loads_blob(body, FINDING_BODY, where)
    return bodies
