"""`ssdlab store compact`: the raw evidence an older ssdlab stored as text compressed in
place (store/compaction.py), then the file shrunk with VACUUM."""

import argparse
import json
import sqlite3
import sys

from rich.console import Console

from ssdlab.cli.store_open import db_path, open_db
from ssdlab.errors import StoreError
from ssdlab.store.compaction import compress_stored_text


def _file_bytes(args: argparse.Namespace) -> int:
    path = db_path(args)
    return sum(
        part.stat().st_size for part in (path, path.with_name(path.name + "-wal")) if part.exists()
    )


def cmd_store(args: argparse.Namespace, out: Console) -> int:
    conn = open_db(args)
    before_bytes = _file_bytes(args)
    done = compress_stored_text(conn)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.Error as error:  # another process holds the store
        raise StoreError(
            f"compressed {done.values} raw outputs, but VACUUM could not run ({error}); run "
            "'ssdlab store compact' again when no other ssdlab uses the store"
        ) from None
    after_bytes = _file_bytes(args)
    if args.json:
        document = {
            "format": "ssdlab-store-compact",
            "format_version": 1,
            "compressed_values": done.values,
            "text_bytes": done.text_bytes,
            "compressed_bytes": done.stored_bytes,
            "file_bytes_before": before_bytes,
            "file_bytes_after": after_bytes,
        }
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
        return 0
    out.print(
        f"compressed {done.values:,} raw outputs ({done.text_bytes / 1e6:.1f} MB of text → "
        f"{done.stored_bytes / 1e6:.1f} MB); store file {before_bytes / 1e6:.1f} MB → "
        f"{after_bytes / 1e6:.1f} MB",
        highlight=False,
        markup=False,
    )
    return 0
