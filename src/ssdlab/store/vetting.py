"""What `ssdlab fleet collect` accepts of a node's runs: a node's answers are data, never
authority over this machine's store, and a hostile or broken node must not be able to make
this machine's store, or the commands that read it, unusable.

Every row of a collected run is checked before it is written (`vetting_sink`): a run UUID in
its canonical form, text no longer than the kind of column holds, JSON columns that parse,
raw outputs that decompress within `raw.MAX_RAW_BYTES`, no binary data where text is kept, step
histograms in fio's fixed buckets with bounded seconds and counts, pass temperatures with
bounded seconds and plausible degrees, and no more rows of a kind
than a real run has. A run that fails is refused whole (`RunRefused`,
its transaction rolled back) with a reason that quotes nothing of the node's at length.

The limits are far above what any run ssdlab makes holds, so they refuse damage and attacks,
never a real run.
"""

import json
import sqlite3
import uuid
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from ssdlab.errors import StoreError
from ssdlab.store.raw import check_raw
from ssdlab.store.step_histograms import histogram_problem
from ssdlab.store.step_temperatures import temperature_problem

Row = dict[str, Any]
Sink = Callable[[str, Row], int]

# columns holding raw evidence (store/raw.py: text, or a compressed BLOB)
RAW_COLUMNS = {
    "captures": frozenset({"input_text", "stdout", "stderr"}),
    "capture_files": frozenset({"content"}),
}
# a JSON column (`…_json`): a plan of thousands of steps, a drive's whole health reading
MAX_JSON_CHARS = 16 * 2**20
# any other text column: names, paths (PATH_MAX is 4,096), a status reason
MAX_TEXT_CHARS = 64 * 2**10
# rows of one table in one run: a year of health samples every ten minutes is 52,560; a
# year of one-second series points is 31,536,000
MAX_ROWS = {"series": 100_000_000, "step_histograms": 100_000_000, "step_temperatures": 100_000_000}
MAX_ROWS_OTHER = 1_000_000
QUOTE_CHARS = 60  # what a message quotes of a node's text at most


class RunRefused(StoreError):
    """A run of the source is not copied: its reason says why, in one line."""


def brief(value: object) -> str:
    """`value` quoted in a message, at most `QUOTE_CHARS` of it."""
    text = repr(value)
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1] + "…"


def checked_uuid(value: object) -> str:
    """A run's UUID as the source gives it, refused unless it is one in its canonical form
    (what ssdlab writes): it names the run in every message and in the receiving store."""
    if isinstance(value, str) and len(value) == 36:
        try:
            if str(uuid.UUID(value)) == value:
                return value
        except ValueError:
            pass
    raise RunRefused(f"its UUID {brief(value)} is not a UUID as ssdlab writes them")


def _check_json(text: str, where: str) -> None:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        raise RunRefused(f"{where} is not JSON ssdlab can read") from None


def _check_text(table: str, column: str, value: str) -> None:
    where = f"{table}.{column}"
    if column.endswith("_json"):
        if len(value) > MAX_JSON_CHARS:
            raise RunRefused(f"{where} is longer than {MAX_JSON_CHARS:,} characters")
        _check_json(value, where)
    elif len(value) > MAX_TEXT_CHARS:
        raise RunRefused(f"{where} is longer than {MAX_TEXT_CHARS:,} characters")


def _check_histogram(row: Mapping[str, Any]) -> None:
    """A step histogram must be one in fio's fixed buckets as ssdlab writes it: it is added
    bucket by bucket to other drives' (store/step_histograms.histogram_problem)."""
    try:
        counts = json.loads(row.get("counts_json") or "")
    except (TypeError, ValueError, RecursionError):
        raise RunRefused("a step histogram's counts are not JSON ssdlab can read") from None
    problem = histogram_problem(row.get("direction"), row.get("second"), row.get("ios"), counts)
    if problem is not None:
        raise RunRefused(f"a step histogram is not one ssdlab writes: {problem}")


def _check_temperature(row: Mapping[str, Any]) -> None:
    """A pass's temperature must be a reading as ssdlab writes it: it is analysed and drawn
    (store/step_temperatures.temperature_problem)."""
    try:
        sensors = json.loads(row.get("sensors_json") or "")
    except (TypeError, ValueError, RecursionError):
        raise RunRefused("a pass temperature's sensors are not JSON ssdlab can read") from None
    problem = temperature_problem(row.get("elapsed_s"), row.get("composite_c"), sensors)
    if problem is not None:
        raise RunRefused(f"a pass temperature is not one ssdlab writes: {problem}")


def check_row(source: sqlite3.Connection, table: str, row: Mapping[str, Any]) -> None:
    """Refuse (`RunRefused`) a row of `table` holding a value no run of ssdlab's would."""
    for column, value in row.items():
        if column in RAW_COLUMNS.get(table, ()):
            try:
                check_raw(source, value, f"{table}.{column}")
            except StoreError as error:
                raise RunRefused(str(error)) from None
        elif isinstance(value, str):
            _check_text(table, column, value)
        elif isinstance(value, bytes | bytearray | memoryview):
            raise RunRefused(f"{table}.{column} holds binary data where ssdlab keeps text")
    if table == "step_histograms":  # after its text is bounded and known to be JSON
        _check_histogram(row)
    if table == "step_temperatures":
        _check_temperature(row)


def vetting_sink(source: sqlite3.Connection, sink: Sink) -> Sink:
    """`sink`, handed each row only once it is checked (`check_row`) and while the run has
    no more rows of its table than `MAX_ROWS` allows."""
    counts: Counter[str] = Counter()

    def vet(table: str, row: Row) -> int:
        counts[table] += 1
        most = MAX_ROWS.get(table, MAX_ROWS_OTHER)
        if counts[table] > most:
            raise RunRefused(f"it has more than {most:,} rows of {table}")
        check_row(source, table, row)
        return sink(table, row)

    return vet
