"""Compress the raw evidence an older ssdlab stored as text (`ssdlab store compact`).

Stores of schema 8 compress raw outputs as they are written (store/raw.py); the text a store
held before stays text and reads as it is. Compacting compresses those values in place, a
batch of rows per transaction: stopped at any point (killed, a full disk) the store is whole,
every value either text or compressed, and compacting again carries on with what is left.
The space freed goes back to the file system only with VACUUM, which the command runs after.
"""

import dataclasses
import json
import sqlite3

from ssdlab.store.raw import FILE_PACK_MIN_BYTES, PACK_MIN_BYTES, dictionary_source, pack_raw
from ssdlab.store.transaction import transaction

BATCH_ROWS = 200

# (table, key columns, raw columns, shortest value compressed): every column of raw evidence
_RAW_COLUMNS = (
    ("captures", ("id",), ("stdout", "stderr", "input_text"), PACK_MIN_BYTES),
    ("capture_files", ("capture_id", "name"), ("content",), FILE_PACK_MIN_BYTES),
)


@dataclasses.dataclass(frozen=True, slots=True)
class Compaction:
    """What compacting did: values compressed, and their size before and after (bytes)."""

    values: int = 0
    text_bytes: int = 0
    stored_bytes: int = 0


def _text_rows(
    conn: sqlite3.Connection, table: str, keys: tuple[str, ...], column: str, min_bytes: int
) -> list[sqlite3.Row]:
    extra = ", tool, argv_json" if table == "captures" else ""
    return conn.execute(
        f"SELECT {', '.join(keys)}, {column} AS raw{extra} FROM {table}"
        f" WHERE typeof({column}) = 'text' AND length(CAST({column} AS BLOB)) >= ?"
        f" LIMIT {BATCH_ROWS:d}",
        (min_bytes,),
    ).fetchall()


def _source(row: sqlite3.Row, column: str) -> str | None:
    """The dictionary a capture's output shares (none for its stderr and job file)."""
    if column != "stdout":  # only a capture's output shares a dictionary
        return None
    try:
        argv = json.loads(row["argv_json"])
    except ValueError:
        return None
    return dictionary_source(str(row["tool"]), [str(word) for word in argv])


def compress_stored_text(conn: sqlite3.Connection) -> Compaction:
    """Compress every raw value the store holds as text, a batch per transaction."""
    values = text_bytes = stored_bytes = 0
    for table, keys, columns, min_bytes in _RAW_COLUMNS:
        for column in columns:
            while True:
                changed = 0
                with transaction(conn):
                    rows = _text_rows(conn, table, keys, column, min_bytes)
                    for row in rows:
                        packed = pack_raw(conn, row["raw"], _source(row, column), min_bytes)
                        if not isinstance(packed, bytes):  # not compressible: left as is
                            continue
                        changed += 1
                        where = " AND ".join(f"{key} = ?" for key in keys)
                        conn.execute(
                            f"UPDATE {table} SET {column} = ? WHERE {where}",
                            (packed, *(row[key] for key in keys)),
                        )
                        values += 1
                        text_bytes += len(str(row["raw"]).encode("utf-8"))
                        stored_bytes += len(packed)
                if len(rows) < BATCH_ROWS or changed == 0:
                    break
    return Compaction(values, text_bytes, stored_bytes)
