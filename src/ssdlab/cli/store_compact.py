"""`ssdlab store compact` (app/store_compact.py): the raw evidence an older ssdlab stored as
text compressed in place, then the file shrunk with VACUUM."""

import argparse
import json
import sys
from typing import TYPE_CHECKING

from ssdlab.app.store_compact import CompactRequest, compact_store
from ssdlab.cli.store_open import db_path, open_db

if TYPE_CHECKING:  # rich is imported when the console is first used
    from rich.console import Console


def cmd_store(args: argparse.Namespace, out: "Console") -> int:
    done = compact_store(open_db(args), CompactRequest(db_path(args)))
    if args.json:
        sys.stdout.write(json.dumps(done.document, indent=2) + "\n")
        return 0
    out.print(
        f"compressed {done.values:,} raw outputs ({done.text_bytes / 1e6:.1f} MB of text → "
        f"{done.compressed_bytes / 1e6:.1f} MB); store file {done.file_bytes_before / 1e6:.1f} "
        f"MB → {done.file_bytes_after / 1e6:.1f} MB",
        highlight=False,
        markup=False,
    )
    return 0
