"""CSV files of attribute raw values, as scripts and spreadsheets keep them.

Two shapes, separated by commas, semicolons or TABs, with a header row:

* wide, one row per reading: a time column (``time``, ``date``, ``timestamp``, ``datetime``,
  ``epoch``; optional) and one column per attribute, named by its ID with or without the
  drivedb name (``241``, ``241 Total_LBAs_Written``, ``241_Total_LBAs_Written``), holding raw
  values::

      time,9 Power_On_Hours,241 Total_LBAs_Written
      2024-05-01T12:00:00Z,4854,11691690034

* long, one row per attribute per reading: columns ``id`` and ``raw`` (``raw_value``), and
  optionally ``time``, ``name`` and ``value`` (the normalized value); a reading is the rows
  sharing one time (or, without times, a run of rows whose IDs do not repeat).

Each reading becomes a document shaped like ``smartctl -j`` output (attribute table only).
Readings without a time are spaced like attribute_log's (``--interval`` / ``--elapsed``).
"""

import csv
import io
import re
from dataclasses import dataclass, field
from typing import Any

from ssdlab.errors import ParseError
from ssdlab.parse.number_bounds import refuse_long_digit_runs
from ssdlab.parse.smartctl_log import LogSnapshot
from ssdlab.parse.smartctl_text import MODEL_OVERRIDE_KEY, SOURCE_LABEL_KEY
from ssdlab.parse.timestamps import parse_timestamp

LABEL = "attribute CSV"
_TIME_NAMES = frozenset(("time", "date", "timestamp", "datetime", "epoch", "when", "sampled_at"))
_ID_COLUMN = re.compile(r"(?P<id>\d{1,3})(?:[ _:](?P<name>[A-Za-z][\w\-%/.]*))?")
_RAW = re.compile(r"\d{1,20}")


@dataclass
class _Reading:
    line: int
    stamp: tuple[float, bool] | None
    rows: dict[int, dict[str, Any]] = field(default_factory=dict)


def _header(text: str) -> tuple[str, list[str]] | None:
    first = next((line for line in text.split("\n") if line.strip()), "")
    for delimiter in (",", ";", "\t"):
        cells = [c.strip().strip('"') for c in first.split(delimiter)]
        if len(cells) < 2:
            continue
        lowered = {c.lower() for c in cells}
        wide = any(_ID_COLUMN.fullmatch(c) for c in cells)
        long = "id" in lowered and bool({"raw", "raw_value"} & lowered)
        if wide or long:
            return delimiter, cells
    return None


def looks_like_attribute_csv(text: str) -> bool:
    return _header(text) is not None


def read_attribute_csv(
    text: str,
    *,
    model: str | None = None,
    interval_s: float | None = None,
    elapsed_s: float | None = None,
    end_s: float | None = None,
) -> list[LogSnapshot]:
    """The readings of a CSV of attribute values (module docstring) as snapshots."""
    refuse_long_digit_runs(text, LABEL)
    found = _header(text)
    if found is None:
        raise ParseError("no CSV header naming attribute IDs (or id and raw columns) found")
    delimiter, cells = found
    try:
        lines = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    except csv.Error as error:  # a bare CR inside a field, a field beyond csv's limit
        raise ParseError(f"the CSV cannot be read as CSV: {error}") from None
    start = next(i for i, row in enumerate(lines) if any(c.strip() for c in row))
    body = [(start + 2 + n, row) for n, row in enumerate(lines[start + 1 :]) if any(row)]
    lowered = [c.lower() for c in cells]
    if "id" in lowered and ({"raw", "raw_value"} & set(lowered)):
        readings = _long(cells, body)
    else:
        readings = _wide(cells, body)
    if not readings:
        raise ParseError("the CSV has a header but no readings")
    spacing = interval_s
    if spacing is None and elapsed_s is not None and len(readings) > 1:
        spacing = elapsed_s / (len(readings) - 1)
    snapshots = []
    for index, reading in enumerate(readings):
        doc: dict[str, Any] = {
            SOURCE_LABEL_KEY: LABEL,
            "device": {"protocol": "ATA"},
            "ata_smart_attributes": {"table": list(reading.rows.values())},
        }
        if model is not None:
            doc["model_name"] = model
            doc[MODEL_OVERRIDE_KEY] = True
        if reading.stamp is not None:
            taken: float | None = reading.stamp[0]
            assumed, source = reading.stamp[1], "date line"
        elif spacing is not None:
            taken = (end_s or 0.0) - (len(readings) - 1 - index) * spacing
            assumed, source = False, "interval"
        else:
            taken, assumed, source = None, False, None
        snapshots.append(LogSnapshot(taken, doc, reading.line, assumed, source))
    return snapshots


def _time(cell: str, line: int) -> tuple[float, bool]:
    stamp = parse_timestamp(cell.strip())
    if stamp is None:
        raise ParseError(f"line {line}: {cell.strip()[:40]!r} in the time column is not a time")
    return stamp


def _entry(ident: int, name: str, raw: str, norm: str | None, line: int) -> dict[str, Any]:
    value = raw.strip()
    if _RAW.fullmatch(value) is None:
        raise ParseError(
            f"line {line}: raw value {value[:30]!r} of attribute {ident} is not a count"
        )
    entry: dict[str, Any] = {
        "id": ident,
        "name": name,
        "raw": {"value": int(value), "string": value},
    }
    if norm is not None and norm.strip():
        if not norm.strip().isdigit() or int(norm) > 255:
            raise ParseError(f"line {line}: normalized value {norm.strip()!r} is not 0-255")
        entry["value"] = int(norm)
    return entry


def _wide(cells: list[str], body: list[tuple[int, list[str]]]) -> list[_Reading]:
    time_column = next((i for i, c in enumerate(cells) if c.lower() in _TIME_NAMES), None)
    columns: dict[int, tuple[int, str]] = {}
    for index, cell in enumerate(cells):
        match = _ID_COLUMN.fullmatch(cell)
        if match is not None and 1 <= int(match.group("id")) <= 255:
            columns[index] = (int(match.group("id")), match.group("name") or "")
    readings = []
    for line, row in body:
        if len(row) > len(cells):
            raise ParseError(f"line {line}: {len(row)} fields under a header of {len(cells)}")
        stamp = None if time_column is None else _time(row[time_column], line)
        reading = _Reading(line, stamp)
        for index, (ident, name) in columns.items():
            if index < len(row) and row[index].strip():
                reading.rows[ident] = _entry(ident, name, row[index], None, line)
        if reading.rows:
            readings.append(reading)
    return readings


def _long(cells: list[str], body: list[tuple[int, list[str]]]) -> list[_Reading]:
    where = {c.lower(): i for i, c in enumerate(cells)}
    raw_at = where.get("raw", where.get("raw_value"))
    time_at = next((i for c, i in where.items() if c in _TIME_NAMES), None)
    readings: list[_Reading] = []
    for line, row in body:
        cell = dict(enumerate(row))
        ident_text = cell.get(where["id"], "").strip()
        if not ident_text.isdigit() or not 1 <= int(ident_text) <= 255:
            raise ParseError(f"line {line}: attribute id {ident_text[:10]!r} is not 1-255")
        ident = int(ident_text)
        stamp = None if time_at is None else _time(cell.get(time_at, ""), line)
        current = readings[-1] if readings else None
        if current is None or current.stamp != stamp or ident in current.rows:
            current = _Reading(line, stamp)
            readings.append(current)
        name = cell.get(where["name"], "").strip() if "name" in where else ""
        norm = cell.get(where["value"]) if "value" in where else None
        current.rows[ident] = _entry(ident, name, cell.get(raw_at or 0, ""), norm, line)
    return readings
