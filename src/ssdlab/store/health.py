"""Insert and load normalised health samples."""

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from ssdlab.model.health import DriveIdentity, HealthSample
from ssdlab.store.codec import HEALTH_SAMPLE, from_blob, to_blob
from ssdlab.store.transaction import transaction


def device_key(identity: DriveIdentity) -> str:
    """What identifies one physical drive across samples: model and serial."""
    return f"{identity.model or '?'}|{identity.serial or '?'}"


def health_sample_from_dict(data: dict[str, Any], where: str = "a health sample") -> HealthSample:
    """A HealthSample from its stored JSON (sample_json, versioned or not)."""
    return from_blob(HealthSample, data, HEALTH_SAMPLE, where)


@dataclass(frozen=True, slots=True)
class StoredHealthSample:
    sample_id: int
    run_id: int
    phase: str  # before | after | check | watch | import
    sample: HealthSample
    capture_ids: tuple[int, ...]


def add_health_sample(
    conn: sqlite3.Connection,
    run_id: int,
    phase: str,
    sample: HealthSample,
    capture_ids: tuple[int, ...] = (),
) -> int:
    with transaction(conn):
        cursor = conn.execute(
            "INSERT INTO health_samples (run_id, phase, device_key, taken_at_s, model, serial,"
            " host_written_bytes, nand_written_bytes, wear_used_pct, temperature_c, sample_json,"
            " capture_ids_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                phase,
                device_key(sample.identity),
                sample.taken_at_s,
                sample.identity.model,
                sample.identity.serial,
                sample.host_written_bytes.value,
                sample.nand_written_bytes.value,
                sample.wear_used_pct.value,
                sample.temperature_c.value,
                to_blob(sample, HEALTH_SAMPLE),
                json.dumps(list(capture_ids)),
            ),
        )
        return int(cursor.lastrowid or 0)


def _stored(row: sqlite3.Row) -> StoredHealthSample:
    return StoredHealthSample(
        sample_id=int(row["id"]),
        run_id=int(row["run_id"]),
        phase=row["phase"],
        sample=health_sample_from_dict(
            json.loads(row["sample_json"]), f"health sample {row['id']} of run {row['run_id']}"
        ),
        capture_ids=tuple(json.loads(row["capture_ids_json"])),
    )


def load_health_samples(
    conn: sqlite3.Connection, *, run_id: int | None = None, key: str | None = None
) -> list[StoredHealthSample]:
    """Samples of one run, or of one drive (device_key), oldest first."""
    clauses: list[str] = []
    params: list[int | str] = []
    if run_id is not None:
        clauses.append("run_id = ?")
        params.append(run_id)
    if key is not None:
        clauses.append("device_key = ?")
        params.append(key)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = conn.execute(
        f"SELECT * FROM health_samples{where} ORDER BY taken_at_s, id", params
    ).fetchall()
    return [_stored(row) for row in rows]


def load_health_sample(conn: sqlite3.Connection, sample_id: int) -> StoredHealthSample | None:
    if abs(sample_id) >= 2**63:  # beyond SQLite's integers (the driver would raise OverflowError)
        return None
    row = conn.execute("SELECT * FROM health_samples WHERE id = ?", (sample_id,)).fetchone()
    return None if row is None else _stored(row)
