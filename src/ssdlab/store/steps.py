"""Parsed measurements: one step result per fio job (a pass, a round, a point) with its
per-interval series."""

import json
import sqlite3
from collections.abc import Sequence

from ssdlab.errors import StoreError
from ssdlab.model.result import DirectionMetrics, SeriesPoint
from ssdlab.model.step import StepResult
from ssdlab.model.step_histogram import SecondHistogram
from ssdlab.model.thermal import TemperatureSample
from ssdlab.store.codec import STEP_METRICS, from_blob, to_blob
from ssdlab.store.step_histograms import add_step_histograms
from ssdlab.store.step_temperatures import add_step_temperatures
from ssdlab.store.transaction import transaction


def add_step_result(
    conn: sqlite3.Connection,
    run_id: int,
    step: StepResult,
    histograms: Sequence[SecondHistogram] = (),
    temperatures: Sequence[TemperatureSample] = (),
) -> int:
    """Store one parsed measurement, its per-interval series, its per-second latency
    histograms (store/step_histograms.py) and the drive's temperatures read while it ran
    (store/step_temperatures.py) in one transaction."""
    with transaction(conn):
        cursor = conn.execute(
            "INSERT INTO step_results (run_id, capture_id, step_key, step_label, direction,"
            " round_index, discarded, bw_bytes_per_s, iops, lat_mean_ns, read_json, write_json)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                step.capture_id,
                step.step_key,
                step.step_label,
                step.direction,
                step.round_index,
                int(step.discarded),
                step.bw_bytes_per_s,
                step.iops,
                step.lat_mean_ns,
                to_blob(step.read, STEP_METRICS) if step.read else None,
                to_blob(step.write, STEP_METRICS) if step.write else None,
            ),
        )
        step_id = int(cursor.lastrowid or 0)
        conn.executemany(
            "INSERT INTO series (step_result_id, elapsed_s, direction, bw_bytes_per_s, iops,"
            " lat_mean_ns) VALUES (?, ?, ?, ?, ?, ?)",
            [
                (step_id, p.elapsed_s, p.direction, p.bw_bytes_per_s, p.iops, p.lat_mean_ns)
                for p in step.series
            ],
        )
        add_step_histograms(conn, step_id, histograms)
        add_step_temperatures(conn, step_id, temperatures)
        return step_id


def _metrics_from_json(text: str | None, where: str) -> DirectionMetrics | None:
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise StoreError(f"{where} is not valid JSON ({error})") from None
    return from_blob(DirectionMetrics, data, STEP_METRICS, where)


def load_step_results(
    conn: sqlite3.Connection, run_id: int, *, with_series: bool = True
) -> list[StepResult]:
    rows = conn.execute(
        "SELECT * FROM step_results WHERE run_id = ? ORDER BY id", (run_id,)
    ).fetchall()
    steps = []
    for row in rows:
        series: tuple[SeriesPoint, ...] = ()
        if with_series:
            series = tuple(
                SeriesPoint(
                    elapsed_s=p["elapsed_s"],
                    direction=p["direction"],
                    bw_bytes_per_s=p["bw_bytes_per_s"],
                    iops=p["iops"],
                    lat_mean_ns=p["lat_mean_ns"],
                )
                for p in conn.execute(
                    "SELECT * FROM series WHERE step_result_id = ? ORDER BY rowid", (row["id"],)
                )
            )
        steps.append(
            StepResult(
                step_key=row["step_key"],
                step_label=row["step_label"],
                direction=row["direction"],
                round_index=int(row["round_index"]),
                discarded=bool(row["discarded"]),
                bw_bytes_per_s=float(row["bw_bytes_per_s"]),
                iops=float(row["iops"]),
                lat_mean_ns=row["lat_mean_ns"],
                read=_metrics_from_json(row["read_json"], f"step result {row['id']}'s read"),
                write=_metrics_from_json(row["write_json"], f"step result {row['id']}'s write"),
                capture_id=row["capture_id"],
                series=series,
            )
        )
    return steps


def delete_step_results(conn: sqlite3.Connection, run_id: int, keys: list[tuple[str, int]]) -> None:
    """Remove parsed results (and their series) of (step key, round) pairs; the raw captures
    they were parsed from stay. Used when a resumed run repeats a round that was cut short."""
    with transaction(conn):
        for step_key, round_index in keys:
            conn.execute(
                "DELETE FROM step_results WHERE run_id = ? AND step_key = ? AND round_index = ?",
                (run_id, step_key, round_index),
            )
