"""`ssdlab store compact`: the raw evidence an older ssdlab stored as text compressed in place
(store/compaction.py), then the store file shrunk with VACUUM."""

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ssdlab.app.command_context import command_context
from ssdlab.errors import StoreError
from ssdlab.model.next_command import next_command
from ssdlab.store.compaction import compress_stored_text


@dataclass(frozen=True, slots=True)
class CompactRequest:
    database: Path  # the store file, whose size is measured (and named in hints)


@dataclass(frozen=True, slots=True)
class CompactOutcome:
    """How many raw outputs were compressed, their text and compressed bytes, the store
    file's size before and after (with its WAL), and the `--json` document."""

    values: int
    text_bytes: int
    compressed_bytes: int
    file_bytes_before: int
    file_bytes_after: int

    @property
    def document(self) -> dict[str, Any]:
        return {
            "format": "ssdlab-store-compact",
            "format_version": 1,
            "compressed_values": self.values,
            "text_bytes": self.text_bytes,
            "compressed_bytes": self.compressed_bytes,
            "file_bytes_before": self.file_bytes_before,
            "file_bytes_after": self.file_bytes_after,
        }


def _file_bytes(path: Path) -> int:
    return sum(
        part.stat().st_size for part in (path, path.with_name(path.name + "-wal")) if part.exists()
    )


def compact_store(conn: sqlite3.Connection, request: CompactRequest) -> CompactOutcome:
    """Compress, then VACUUM; a StoreError (saying what was done and what to run) when
    another process holds the store."""
    before_bytes = _file_bytes(request.database)
    done = compress_stored_text(conn)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.Error as error:  # another process holds the store
        again = next_command(command_context(request.database), ("store", "compact"))
        raise StoreError(
            f"compressed {done.values} raw outputs, but VACUUM could not run ({error}); run "
            f"{again} again when no other ssdlab uses the store"
        ) from None
    after_bytes = _file_bytes(request.database)
    return CompactOutcome(
        done.values, done.text_bytes, done.stored_bytes, before_bytes, after_bytes
    )
