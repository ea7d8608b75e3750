"""`ssdlab spec add|show|list`: vendor spec sheets, the shipped ones and those a user added to
the store (app/spec_sheets.py reads them together). A sheet to add is read and checked whole
before the store is opened."""

import sqlite3
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ssdlab.app.spec_sheets import known_spec_sheets
from ssdlab.errors import UsageError
from ssdlab.model.spec import SpecSheet
from ssdlab.parse.spec_sheet import parse_spec_sheet
from ssdlab.store.specs import StoredSpecSheet, load_spec_sheets, put_spec_sheet
from ssdlab.system.user_files import SMALL_FILE_BYTES, read_user_text

SHIPPED = "shipped"


@dataclass(frozen=True, slots=True)
class SpecRequest:
    """`action` add (`name` a TOML file), show (`name` a sheet's key) or list."""

    action: str
    name: str | None = None


@dataclass(frozen=True, slots=True)
class SpecOutcome:
    """The sheet added or shown, or every known sheet; where each came from ('added from
    FILE', or 'shipped'); whether an added sheet replaced one of its key; the `--json`
    document of a sheet shown (its fields) or of the list (format `ssdlab-specs`)."""

    sheets: tuple[SpecSheet, ...]
    origins: dict[str, str] = field(default_factory=dict)
    replaced: bool = False
    document: dict[str, Any] = field(default_factory=dict)


def _origins(conn: sqlite3.Connection, sheets: tuple[SpecSheet, ...]) -> dict[str, str]:
    added = {s.key: f"added from {s.origin}" for s in load_spec_sheets(conn)}
    return {s.key: added.get(s.key, SHIPPED) for s in sheets}


def _add(store: Callable[[], sqlite3.Connection], name: str) -> SpecOutcome:
    path = Path(name)
    text = read_user_text(path, SMALL_FILE_BYTES, "the spec sheet")
    sheet = parse_spec_sheet(text, str(path))
    stored = StoredSpecSheet(sheet.key, text, str(path), time.time())
    return SpecOutcome((sheet,), replaced=put_spec_sheet(store(), stored))


def _show(conn: sqlite3.Connection, key: str) -> SpecOutcome:
    sheets = known_spec_sheets(conn)
    for sheet in sheets:
        if sheet.key == key:
            return SpecOutcome((sheet,), document=asdict(sheet))
    keys = ", ".join(s.key for s in sheets)
    raise UsageError(f"no spec sheet {key!r}; known: {keys}")


def _list(conn: sqlite3.Connection) -> SpecOutcome:
    sheets = tuple(known_spec_sheets(conn))
    origins = _origins(conn, sheets)
    rows = [{**asdict(s), "origin": origins[s.key]} for s in sheets]
    document = {"format": "ssdlab-specs", "format_version": 1, "specs": rows}
    return SpecOutcome(sheets, origins, document=document)


def spec_sheets(store: Callable[[], sqlite3.Connection], request: SpecRequest) -> SpecOutcome:
    """Do the request's action; `store` opens the store (once)."""
    if request.action == "add":
        return _add(store, str(request.name))
    if request.action == "show":
        return _show(store(), str(request.name))
    return _list(store())
