"""A pass's temperatures read once a second (schema 11, model/thermal.TemperatureSample):
written with the step result, read back checked — a row that is not what ssdlab writes is a
StoreError naming it, never a temperature bent into shape."""

import json
import math
import sqlite3
from collections.abc import Sequence

from ssdlab.errors import StoreError
from ssdlab.model.thermal import TemperatureSample

MAX_ELAPSED_S = 1e9  # 31 years of one pass
LOWEST_C = -273.0
HIGHEST_C = 1000.0  # far above any drive's critical temperature; a reading above is damage
MAX_SENSORS = 8  # the SMART / Health log's temperature sensors


def add_step_temperatures(
    conn: sqlite3.Connection, step_id: int, samples: Sequence[TemperatureSample]
) -> None:
    """Store a pass's temperatures (inside the caller's transaction: the step's own)."""
    conn.executemany(
        "INSERT OR IGNORE INTO step_temperatures (step_result_id, elapsed_s, composite_c,"
        " sensors_json) VALUES (?, ?, ?, ?)",
        [(step_id, s.elapsed_s, s.composite_c, json.dumps(list(s.sensors_c))) for s in samples],
    )


def _within(value: object, low: float, high: float) -> bool:
    """A finite number (never a bool) from `low` to `high`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value) and low <= value <= high


def _celsius(value: object) -> bool:
    return _within(value, LOWEST_C, HIGHEST_C)


def temperature_problem(elapsed_s: object, composite_c: object, sensors: object) -> str | None:
    """Why a row is not a reading ssdlab writes (None when it is): seconds from 0 to
    MAX_ELAPSED_S, temperatures (°C) from LOWEST_C to HIGHEST_C, at most MAX_SENSORS sensors."""
    if not _within(elapsed_s, 0.0, MAX_ELAPSED_S):
        return f"its seconds are not a number from 0 to {MAX_ELAPSED_S:g}"
    if not _celsius(composite_c):
        return f"its composite temperature is not from {LOWEST_C:g} to {HIGHEST_C:g} °C"
    if not isinstance(sensors, list) or len(sensors) > MAX_SENSORS:
        return f"its sensors are not a list of at most {MAX_SENSORS} temperatures"
    if not all(_celsius(s) for s in sensors):
        return f"a sensor's temperature is not from {LOWEST_C:g} to {HIGHEST_C:g} °C"
    return None


def _sample(row: sqlite3.Row) -> TemperatureSample:
    where = f"the temperature at {row['elapsed_s']!r} s of step result {row['step_result_id']}"
    try:
        sensors = json.loads(row["sensors_json"])
    except (TypeError, ValueError, RecursionError):
        raise StoreError(f"{where} has sensors that are not JSON") from None
    problem = temperature_problem(row["elapsed_s"], row["composite_c"], sensors)
    if problem is not None:
        raise StoreError(f"{where}: {problem}")
    return TemperatureSample(
        float(row["elapsed_s"]), float(row["composite_c"]), tuple(float(s) for s in sensors)
    )


def run_step_temperatures(
    conn: sqlite3.Connection, run_id: int
) -> dict[int, tuple[TemperatureSample, ...]]:
    """The temperatures of a run's passes, by the capture id of each pass's step result."""
    found: dict[int, list[TemperatureSample]] = {}
    for row in conn.execute(
        "SELECT r.capture_id, t.* FROM step_temperatures t"
        " JOIN step_results r ON r.id = t.step_result_id"
        " WHERE r.run_id = ? AND r.capture_id IS NOT NULL ORDER BY r.id, t.elapsed_s",
        (run_id,),
    ):
        found.setdefault(int(row["capture_id"]), []).append(_sample(row))
    return {key: tuple(each) for key, each in found.items()}
