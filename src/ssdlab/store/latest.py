"""What `ssdlab metrics` reads of the store on each scrape, by indexed queries (schema 9): the
drives with health samples and each drive's series of plain figures, single health samples,
the complete quick runs with the drive each measured, the measured passes and baseline
verdicts of the runs it exports, and the endurance runs under way. No statement scans the
health samples or step results, and no sample's JSON is read but the ones the scrape uses.

A fleet's scrape reads tens of thousands of rows, so rows come back as tuples and columns, not
objects per row; a health sample is read from its JSON blob field by field as the codec would
(`store/codec.py`: the version checked, every field taken by name, the dataclass built with
its defaults) without the codec's general decoder, which takes 1.3 ms a sample; a pass's
latency percentiles are read from its JSON only when asked for. What they give is checked
against the codec's decoding (tests/unit/store/test_latest.py)."""

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from ssdlab.errors import StoreError
from ssdlab.model.health import (
    HEALTH_METRICS,
    UNKNOWN,
    DriveIdentity,
    HealthSample,
    HealthValue,
    Provenance,
    SourceChoice,
)
from ssdlab.model.run import RunStatus
from ssdlab.store.codec import (
    FINDING_BODY,
    HEALTH_SAMPLE,
    STEP_METRICS,
    VERSION_KEY,
    BlobKind,
    loads_blob,
    open_blob,
)
from ssdlab.store.health import load_health_samples

if TYPE_CHECKING:
    from ssdlab.model.profile import ProfileResults

# JSON the store's own SQL made (json_array, json_extract): no whitespace around it to skip
_json_value = json.JSONDecoder().raw_decode
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


def _check_version(version: object, kind: BlobKind, where: str) -> None:
    """Refuse a blob version this ssdlab does not read (a JSON field's `blob_version`, None when
    the field has none). A version that passed once passes again: a scrape checks each kind's
    few versions once, not each of its thousands of fields."""
    if version is None or (type(version) is int and (kind.name, version) in _READABLE):
        return
    open_blob({VERSION_KEY: version}, kind, where)
    if type(version) is int:
        _READABLE.add((kind.name, version))


_READABLE: set[tuple[str, int]] = set()


def _tuples(conn: sqlite3.Connection, sql: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
    """The rows of a statement as plain tuples (the store's connection makes sqlite3.Rows)."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor.execute(sql, params).fetchall()


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
    return [str(row[0]) for row in _tuples(conn, DRIVE_KEYS_SQL, ())]


@dataclass(frozen=True, slots=True)
class DriveSeries:
    """A drive's samples as the wear analysis reads them, column by column in the order of
    their times (samples without a time first): the sample and its run, whether it was read
    from a saved file (1) or taken from the drive (0), when it was taken, and the counters the
    wear fit uses with their resolutions (None: not known)."""

    sample_ids: Sequence[int]
    run_ids: Sequence[int]
    imported: Sequence[int]
    times_s: Sequence[float | None]
    wear_pct: Sequence[float | None]
    wear_resolution: Sequence[float | None]
    erase_count: Sequence[float | None]
    erase_resolution: Sequence[float | None]
    host_written_bytes: Sequence[float | None]

    def __len__(self) -> int:
        return len(self.sample_ids)

    def last_taken_run_id(self) -> int | None:
        """The run of the latest sample taken from the drive itself (not read from a file)."""
        for run_id, imported in zip(reversed(self.run_ids), reversed(self.imported), strict=True):
            if not imported:
                return run_id
        return None


DRIVE_SERIES_SQL = (
    f"SELECT id, run_id, phase = '{IMPORTED}', taken_at_s, wear_used_pct, wear_used_resolution,"
    " erase_count_avg, erase_count_resolution, host_written_bytes FROM health_samples"
    " WHERE device_key = ? ORDER BY taken_at_s, id"
)


def drive_series(conn: sqlite3.Connection, key: str) -> DriveSeries:
    """The samples of one drive, from the entries of the covering index health_by_device
    (figures as stored: one that is not a number fails the analysis, not this read)."""
    rows = _tuples(conn, DRIVE_SERIES_SQL, (key,))
    if not rows:
        return DriveSeries(*([()] * 9))
    return DriveSeries(*zip(*rows, strict=True))


def run_host(conn: sqlite3.Connection, run_id: int) -> str | None:
    """The host of a run (this machine's name, or a collected run's inventory name)."""
    rows = _tuples(conn, "SELECT host FROM runs WHERE id = ?", (run_id,))
    return str(rows[0][0]) if rows else None


# ---- one health sample --------------------------------------------------------------------


NUMBERS = (int, float)  # not bool: JSON's true is not a number


def _number(value: object, where: str, name: str | None = None) -> Any:
    """`value` when it is a number or None; a StoreError naming `where` (and the field
    `name`, the message made only then) when not."""
    if value is None or type(value) in NUMBERS:
        return value
    field = where if name is None else f"{where}'s {name}"
    raise StoreError(f"{field} cannot be read: {value!r} is not a number")


def _health_value(data: object, where: str, name: str) -> HealthValue:
    if (
        not isinstance(data, dict)
        or "value" not in data
        or len(data) > 2
        or (len(data) == 2 and "provenance" not in data)
    ):
        raise StoreError(f"{where}'s {name} cannot be read: {data!r} is not a health value")
    value = _number(data["value"], where, name)
    provenance = data.get("provenance")
    if provenance is None:
        return UNKNOWN if value is None else HealthValue(value)
    if type(provenance) is not dict:
        raise StoreError(f"{where}'s {name} cannot be read: {provenance!r} is not a provenance")
    return HealthValue(value, Provenance(**provenance))


def _health_sample(data: dict[str, Any], where: str) -> HealthSample:
    fields = dict(data)
    identity = fields.get("identity")
    if type(identity) is not dict:
        raise StoreError(f"{where} cannot be read: it names no drive")
    fields["identity"] = DriveIdentity(**identity)
    if "taken_at_s" in fields:
        fields["taken_at_s"] = _number(fields["taken_at_s"], where)
    for name in HEALTH_METRICS:
        if name in fields:
            fields[name] = _health_value(fields[name], where, name)
    for name in ("exit_findings", "flags", "sources"):
        if name in fields:
            fields[name] = tuple(fields[name])
    if "choices" in fields:
        choices = fields["choices"]
        if not isinstance(choices, list) or not all(type(c) is dict for c in choices):
            raise StoreError(f"{where} cannot be read: {choices!r} is not a list of choices")
        fields["choices"] = tuple(SourceChoice(**choice) for choice in choices)
    return HealthSample(**fields)


def health_sample(conn: sqlite3.Connection, sample_id: int) -> HealthSample:
    """One stored health sample, read by its row id."""
    rows = _tuples(
        conn, "SELECT run_id, sample_json FROM health_samples WHERE id = ?", (sample_id,)
    )
    if not rows:
        raise StoreError(f"there is no health sample {sample_id}")
    run_id, text = rows[0]
    where = f"health sample {sample_id} of run {run_id}"
    try:
        return _health_sample(loads_blob(text, HEALTH_SAMPLE, where), where)
    except TypeError as error:
        raise StoreError(f"{where} cannot be read: {error}") from None


class WrittenCounters(NamedTuple):
    """A sample's time and its host and NAND bytes written, each with its counter's
    resolution (None: not known): what a window's WAF reads of the sample it starts at."""

    taken_at_s: float | None
    host_written_bytes: float | None
    host_resolution: float | None
    nand_written_bytes: float | None
    nand_resolution: float | None


WRITTEN_SQL = (
    "SELECT run_id, taken_at_s, json_extract(sample_json, '$.blob_version',"
    " '$.host_written_bytes.value', '$.host_written_bytes.provenance.resolution',"
    " '$.nand_written_bytes.value', '$.nand_written_bytes.provenance.resolution')"
    " FROM health_samples WHERE id = ?"
)


def written_counters(conn: sqlite3.Connection, sample_id: int) -> WrittenCounters:
    """The byte counters of one stored health sample, taken out of its JSON by SQLite."""
    try:
        rows = _tuples(conn, WRITTEN_SQL, (sample_id,))
    except sqlite3.OperationalError as error:
        raise StoreError(f"health sample {sample_id} cannot be read: {error}") from None
    if not rows:
        raise StoreError(f"there is no health sample {sample_id}")
    run_id, taken_at_s, figures = rows[0]
    where = f"health sample {sample_id} of run {run_id}"
    version, *counters = _json_value(figures)[0]
    _check_version(version, HEALTH_SAMPLE, where)
    return WrittenCounters(taken_at_s, *(_number(value, where) for value in counters))


# ---- runs and the drive each measured -----------------------------------------------------


class RunDrive(NamedTuple):
    """A run and what names the drive it measured: its last health sample's model, serial
    and firmware (`sampled`: it has a sample), else its block device's (when it was on one)."""

    run_id: int
    started_at_s: float
    host: str
    ended_at_s: float | None
    sampled: bool
    sample_model: str | None
    sample_serial: str | None
    sample_firmware: str | None
    device_id: int | None
    device_model: str | None
    device_serial: str | None
    device_firmware: str | None


# the run's last sample from the covering index health_by_run: its model, serial and firmware
# as one JSON array (NULL: the run has no sample)
LAST_SAMPLE = (
    "(SELECT json_array(s.model, s.serial, s.firmware) FROM health_samples s"
    " WHERE s.run_id = r.id ORDER BY s.taken_at_s DESC, s.id DESC LIMIT 1)"
)
ENDURANCE_RUNS_SQL = (
    f"SELECT r.id, r.started_at_s, r.host, r.ended_at_s, r.device_id, {LAST_SAMPLE} FROM runs r"
    " WHERE r.profile = 'endurance' AND (r.status = ? OR r.ended_at_s >= ?) ORDER BY r.id"
)
QUICK_RUNS_SQL = (
    f"SELECT r.id, r.started_at_s, r.host, r.ended_at_s, r.device_id, {LAST_SAMPLE} FROM runs r"
    " WHERE r.profile = 'quick' AND r.status = ? AND r.kind != 'import'"
    " ORDER BY r.started_at_s, r.id"
)
DEVICES_SQL = "SELECT id, model, serial, firmware FROM devices WHERE id IN ({marks})"
NO_DEVICE = (None, None, None, None)


def _devices(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, tuple[Any, ...]]:
    """The block devices of these ids (id, model, serial, firmware), a few hundred a
    statement; an id the store has no device of is left out."""
    found: dict[int, tuple[Any, ...]] = {}
    for chunk in _chunks(list(dict.fromkeys(ids))):
        for row in _tuples(conn, DEVICES_SQL.format(marks=_marks(chunk)), chunk):
            found[row[0]] = row
    return found


def _run_drives(conn: sqlite3.Connection, rows: Sequence[tuple[Any, ...]]) -> Iterator[RunDrive]:
    """Rows of (id, started_at_s, host, ended_at_s, device_id, last sample) as RunDrives."""
    devices = _devices(conn, (row[4] for row in rows if row[4] is not None))
    for run_id, started_at_s, host, ended_at_s, device_id, drive in rows:
        model, serial, firmware = _json_value(drive)[0] if drive is not None else (None,) * 3
        found_id = device_model = device_serial = device_firmware = None
        if device_id is not None:
            found_id, device_model, device_serial, device_firmware = devices.get(
                device_id, NO_DEVICE
            )
        yield RunDrive(
            run_id, started_at_s, host, ended_at_s, drive is not None, model, serial, firmware,
            found_id, device_model, device_serial, device_firmware,
        )  # fmt: skip


def newest_quick_runs(conn: sqlite3.Connection) -> list[RunDrive]:
    """Of the complete quick runs ssdlab ran (imported runs left out), the newest of each
    group that names its drive alike as stored (host, device, the last sample's model, serial
    and firmware), the groups in the order of their oldest run. Two groups may still name one
    drive once their labels are trimmed: the caller merges them. The runs are read oldest
    first from the index runs_by_profile, a fleet's tens of thousands as rows only."""
    cursor = conn.cursor()
    cursor.row_factory = None
    groups: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for row in cursor.execute(QUICK_RUNS_SQL, (RunStatus.COMPLETE.value,)):
        groups[(row[2], row[4], row[5])] = row  # a group keeps its first place, its last run
    return list(_run_drives(conn, list(groups.values())))


def endurance_results(conn: sqlite3.Connection, run_id: int) -> "ProfileResults | None":
    """What the status of an endurance run is judged from: its plan, iterations (without
    their series), their captures' times and its health samples."""
    # imported only for a store with endurance runs to export: most scrapes have none
    from ssdlab.model.profile import ProfileResults
    from ssdlab.store.captures import capture_times
    from ssdlab.store.profile_runs import profile_plan_of
    from ssdlab.store.run_rows import load_run
    from ssdlab.store.steps import load_step_results

    run = load_run(conn, run_id)
    if run is None:
        return None
    return ProfileResults(
        run=run,
        plan=profile_plan_of(run),
        steps=tuple(load_step_results(conn, run_id, with_series=False)),
        facts={},
        outputs={},
        health=tuple((s.phase, s.sample) for s in load_health_samples(conn, run_id=run_id)),
        capture_times=capture_times(conn, run_id),
    )


def endurance_runs(conn: sqlite3.Connection, ended_since_s: float) -> list[RunDrive]:
    """Endurance runs running, or that ended at `ended_since_s` or later, by id."""
    rows = _tuples(conn, ENDURANCE_RUNS_SQL, (RunStatus.RUNNING.value, ended_since_s))
    return list(_run_drives(conn, rows))


# ---- the passes and verdicts of the runs exported -----------------------------------------


class StoredPercentiles:
    """fio's completion-latency percentiles of one direction of a stored pass, as
    (percentile, ns) pairs: read from the step's JSON when first asked for."""

    __slots__ = ("_pairs", "_text", "_where")

    def __init__(self, text: str | None, where: str) -> None:
        self._text = text
        self._where = where
        self._pairs: tuple[tuple[float, float], ...] | None = None

    @property
    def clat_percentiles_ns(self) -> tuple[tuple[float, float], ...]:
        if self._pairs is None:
            self._pairs = self._read()
        return self._pairs

    def _read(self) -> tuple[tuple[float, float], ...]:
        """The pairs from `[blob version, percentiles]` (json_extract of both), as stored."""
        version, pairs = _json_value(self._text)[0] if self._text else (None, None)
        _check_version(version, STEP_METRICS, self._where)
        try:
            return tuple(map(tuple, pairs or ()))
        except TypeError:
            raise StoreError(
                f"{self._where} cannot be read: its percentiles are not pairs"
            ) from None


class StoredPass(NamedTuple):
    """A measured pass (warm-ups left out) of a stored run, with what `ssdlab metrics` reads:
    the test it belongs to, its figures, and each direction's percentiles (None: the
    direction was not measured)."""

    run_id: int
    step_key: str
    direction: str
    bw_bytes_per_s: float
    iops: float
    lat_mean_ns: float | None
    read: StoredPercentiles | None
    write: StoredPercentiles | None


PERCENTILES = "json_extract({0}, '$.blob_version', '$.clat_percentiles_ns')"
PASSES_SQL = (
    "SELECT run_id, id, step_key, direction, bw_bytes_per_s, iops, lat_mean_ns,"
    f" read_json IS NOT NULL, {PERCENTILES.format('read_json')},"
    f" write_json IS NOT NULL, {PERCENTILES.format('write_json')}"
    " FROM step_results WHERE run_id IN ({marks}) AND discarded = 0 ORDER BY run_id, id"
)


def measured_passes(
    conn: sqlite3.Connection, run_ids: Sequence[int]
) -> dict[int, list[StoredPass]]:
    """The measured passes of each run, in the order they ran."""
    passes: dict[int, list[StoredPass]] = {run_id: [] for run_id in run_ids}
    for chunk in _chunks(list(run_ids)):
        try:
            rows = _tuples(conn, PASSES_SQL.format(marks=_marks(chunk)), chunk)
        except sqlite3.OperationalError as error:
            raise StoreError(f"a step result of runs {chunk[0]}–{chunk[-1]}: {error}") from None
        for (
            run_id,
            step_id,
            key,
            direction,
            bw,
            iops,
            lat,
            has_read,
            read,
            has_write,
            write,
        ) in rows:
            where = f"step result {step_id}"
            passes[run_id].append(
                StoredPass(
                    run_id,
                    key,
                    direction,
                    bw,
                    iops,
                    lat,
                    StoredPercentiles(read, f"{where}'s read") if has_read else None,
                    StoredPercentiles(write, f"{where}'s write") if has_write else None,
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
        for run_id, body in _tuples(conn, sql, [*chunk, name]):
            bodies[int(run_id)] = loads_blob(body, FINDING_BODY, f"run {run_id}'s finding {name}")
    return bodies
