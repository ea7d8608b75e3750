"""Field logs of attribute lines: ``smartctl -A | grep`` appended by cron, with or without times.

People keep a drive's history as the attribute rows smartctl prints, one or a few per cron tick::

    (date -Is; smartctl -A /dev/sda | grep -E '^ *(9|241|177) ') >> smart.log
    smartctl -A /dev/sda | grep Total_LBAs_Written >> writes.log      # no time at all
    uniq -c writes.log > writes-uniq.log                              # runs of equal lines

Each line is an attribute row in either of smartctl's layouts (``-a``: ``FLAG`` as ``0x0032``
... ``Old_age Always -``; ``-x``/brief: ``-O--CK``), optionally preceded by a time (anything
parse_timestamp reads: ``date``, ``date -Is``, ``date +%s``) or by ``uniq -c``'s count. A line
that is only a time starts a tick; so does a different time prefix, and an attribute ID that the
current tick already holds (the next cron run's first row). Table headers and blank lines
between rows change nothing: a listing that prints each attribute under a header of its own (as
monitoring agents do) is one reading. A
``uniq -c`` count N stands for N consecutive ticks of that row; a run of ticks that read the
same is kept as its first and last tick (nothing is lost: the value did not change between).

Ticks with no time are spaced by `interval_s` (``--interval 5m``), or evenly over `elapsed_s`
(``--elapsed``), the last tick at `end_s` (the log's modification time, given by the caller);
without either they have no time, and a series falls back to Power_On_Hours when the log holds
attribute 9.
"""

import re
from dataclasses import dataclass, field
from typing import Any

from ssdlab.errors import ParseError
from ssdlab.parse.number_bounds import refuse_long_digit_runs
from ssdlab.parse.smartctl_log import LogSnapshot
from ssdlab.parse.smartctl_text import (
    _ATTR_BRIEF,
    _ATTR_HEADER_BRIEF,
    _ATTR_HEADER_OLD,
    _ATTR_OLD,
    MODEL_OVERRIDE_KEY,
    plain_line,
    smartctl_text_to_json,
)
from ssdlab.parse.timestamps import parse_timestamp

_ROW_START = re.compile(
    r"(?P<prefix>.*?)(?:^|(?<=\s))(?P<row>(?:\d{1,3}|0x[0-9a-fA-F]{2})\s+\S+\s+"
    r"(?:0x[0-9a-fA-F]{4}|[P-][O-][S-][R-][C-][K-][+ ]?)\s.*)"
)
_COUNT = re.compile(r"[0-9]{1,12}")
_PREFIX_TRIM = " \t:;,|-"
_HEADER_OLD = (
    "ID# ATTRIBUTE_NAME          FLAG     VALUE WORST THRESH TYPE      UPDATED  WHEN_FAILED "
    "RAW_VALUE"
)
_HEADER_BRIEF = "ID# ATTRIBUTE_NAME          FLAGS    VALUE WORST THRESH FAIL RAW_VALUE"
MAX_TICKS = 10**9  # a uniq -c count above this is not a cron log


@dataclass
class _Tick:
    line: int  # 1-based line of its first row (or its date line)
    stamp: tuple[float, bool] | None = None
    rows: dict[int, str] = field(default_factory=dict)  # attribute ID -> row text
    count: int = 1  # consecutive ticks this one stands for (uniq -c)


@dataclass(frozen=True, slots=True)
class _Row:
    attribute_id: int
    text: str
    brief: bool


def _row(text: str) -> _Row | None:
    for pattern, brief in ((_ATTR_OLD, False), (_ATTR_BRIEF, True)):
        match = pattern.fullmatch(text)
        if match is not None:
            ident = match.group("id")
            return _Row(int(ident, 16) if ident.startswith("0x") else int(ident), text, brief)
    return None


def looks_like_attribute_log(text: str) -> bool:
    """True when the text's first meaningful line is an attribute row (with or without a time
    or count before it) or a date line followed by one."""
    for raw in text.split("\n")[:50]:
        line = plain_line(raw)
        if not line or parse_timestamp(line) is not None or _is_header(line):
            continue
        match = _ROW_START.fullmatch(line)
        return match is not None and _row(match.group("row")) is not None
    return False


def _is_header(line: str) -> bool:
    return bool(_ATTR_HEADER_OLD.fullmatch(line) or _ATTR_HEADER_BRIEF.fullmatch(line))


def read_attribute_log(
    text: str,
    *,
    model: str | None = None,
    interval_s: float | None = None,
    elapsed_s: float | None = None,
    end_s: float | None = None,
) -> list[LogSnapshot]:
    """The ticks of an attribute-line log as snapshots, in file order (module docstring).

    Raises ParseError naming the line when a line is neither a row, a time nor a header, when a
    tick mixes the two row layouts, or when there is no row at all.
    """
    refuse_long_digit_runs(text, "attribute log")
    ticks = _collapse(_ticks(text))
    if not ticks:
        raise ParseError("no attribute rows found in this log")
    total = sum(t.count for t in ticks)
    spacing = interval_s
    if spacing is None and elapsed_s is not None and total > 1:
        spacing = elapsed_s / (total - 1)
    snapshots: list[LogSnapshot] = []
    index = 0
    for tick in ticks:
        doc = _tick_doc(tick, model)
        for offset in sorted({0, tick.count - 1}):
            position = index + offset
            taken, assumed, source = _tick_time(tick, position, total, spacing, end_s)
            snapshots.append(LogSnapshot(taken, dict(doc), tick.line, assumed, source))
        index += tick.count
    return snapshots


def _tick_time(
    tick: _Tick, position: int, total: int, spacing: float | None, end_s: float | None
) -> tuple[float | None, bool, str | None]:
    if tick.stamp is not None:
        return tick.stamp[0], tick.stamp[1], "date line"
    if spacing is None:
        return None, False, None
    return (end_s or 0.0) - (total - 1 - position) * spacing, False, "interval"


def _ticks(text: str) -> list[_Tick]:
    ticks: list[_Tick] = []
    current: _Tick | None = None
    for number, raw in enumerate(text.split("\n"), start=1):
        line = plain_line(raw)
        if not line or _is_header(line):
            continue
        stamp = parse_timestamp(line)
        if stamp is not None:
            current = _Tick(number, stamp)
            ticks.append(current)
            continue
        count, stamp, row = _split_line(line, number)
        if current is None or (stamp is not None and stamp != current.stamp):
            current = _Tick(number, stamp)
            ticks.append(current)
        elif row.attribute_id in current.rows:
            current = _Tick(number, current.stamp if stamp is None else stamp)
            ticks.append(current)
        current.rows[row.attribute_id] = row.text
        if count > 1:  # uniq -c: the same row for count - 1 more ticks, then a new tick
            ticks.append(_Tick(number, None, {row.attribute_id: row.text}, count - 1))
            current = None
    return [t for t in ticks if t.rows]


def _split_line(line: str, number: int) -> tuple[int, tuple[float, bool] | None, _Row]:
    """(uniq -c count, time prefix, row) of one line."""
    match = _ROW_START.fullmatch(line)
    row = None if match is None else _row(match.group("row"))
    if match is None or row is None:
        raise ParseError(
            f"line {number}: not an attribute row of smartctl -A, a time or a uniq -c count: "
            f"{line[:80]!r}"
        )
    prefix = match.group("prefix").strip(_PREFIX_TRIM)
    if not prefix:
        return 1, None, row
    if _COUNT.fullmatch(prefix):
        count = int(prefix)
        if not 1 <= count <= MAX_TICKS:
            raise ParseError(f"line {number}: uniq -c count {count} is not a count of cron runs")
        return count, None, row
    stamp = parse_timestamp(prefix)
    if stamp is None:
        raise ParseError(f"line {number}: {prefix[:40]!r} before the attribute row is not a time")
    return 1, stamp, row


def _collapse(ticks: list[_Tick]) -> list[_Tick]:
    """Untimed consecutive ticks that read the same become one tick standing for all of them."""
    kept: list[_Tick] = []
    for tick in ticks:
        last = kept[-1] if kept else None
        if (
            last is not None
            and last.stamp is None
            and tick.stamp is None
            and last.rows == tick.rows
        ):
            last.count += tick.count
            continue
        kept.append(tick)
    return kept


def _tick_doc(tick: _Tick, model: str | None) -> dict[str, Any]:
    rows = [_row(text) for text in tick.rows.values()]
    layouts = {r.brief for r in rows if r is not None}
    if len(layouts) > 1:
        raise ParseError(
            f"line {tick.line}: the rows of one tick mix smartctl's -a and -x attribute layouts"
        )
    header = _HEADER_BRIEF if layouts == {True} else _HEADER_OLD
    body = "\n".join([header, *tick.rows.values()]) + "\n\n"
    try:
        doc = smartctl_text_to_json(body)
    except ParseError as error:
        raise ParseError(f"tick starting at line {tick.line}: {error}") from None
    if model is not None:
        doc["model_name"] = model
        doc[MODEL_OVERRIDE_KEY] = True
    return doc
