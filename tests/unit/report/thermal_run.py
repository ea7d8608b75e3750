"""A run that stored a pass with its temperatures as a run does (step result, readings, the
`thermal` and `thermal-pass` findings), from a replayed temperature/throughput series whose
onset (77 °C) and exit (75 °C) are known (tests/unit/analysis/thermal_series.py): the
thermal report's tests and the chart fixtures (tests/unit/report/test_chart_rules.py) read it."""

import dataclasses
import functools
import sqlite3
import tempfile
from pathlib import Path

from ssdlab.model.finding_names import THERMAL
from ssdlab.model.result import SeriesPoint
from ssdlab.model.run import Capture
from ssdlab.model.stored_run import StoredRun
from ssdlab.model.thermal import TemperatureSample, ThermalCounters
from ssdlab.registry import kind_record
from ssdlab.report.document import Document
from ssdlab.runner.pass_thermal import pass_body, pass_finding_name
from ssdlab.runner.thermal_watch import PassTemperatures
from ssdlab.store.captures import add_capture
from ssdlab.store.db import open_store
from ssdlab.store.findings import add_finding
from ssdlab.store.steps import add_step_result
from ssdlab.store.stored_run import read_run
from tests.unit.analysis.thermal_series import drive_series
from tests.unit.store.test_store import FIO_CAPTURE, measured_step, new_run

SECONDS = 300  # about nine episodes: the drive heats from 55 °C, throttles at 77, cools to 75
STARTED_AT_S = 1_700_000_000.0


def stored_thermal_run(conn: sqlite3.Connection, *, sampled: bool = True) -> StoredRun:
    points = drive_series(3, seconds=SECONDS)
    run_id = new_run(conn)
    capture = dataclasses.replace(FIO_CAPTURE, started_at_s=STARTED_AT_S)
    capture_id = add_capture(conn, run_id, capture)
    series = tuple(
        SeriesPoint(p.elapsed_s + 1.0, "write", p.bw_bytes_per_s, None, None) for p in points
    )  # fio's log: each second at its end
    step = dataclasses.replace(measured_step(capture_id, series), step_key="seq1m-q8t1-write")
    readings = tuple(
        TemperatureSample(p.elapsed_s + 0.5, p.temperature_c or 0.0, ()) for p in points
    )
    add_step_result(conn, run_id, step, temperatures=readings if sampled else ())
    probe = Capture("nvme", ("nvme", "smart-log"), 0, "{}", "", STARTED_AT_S, STARTED_AT_S)
    body = {
        "sampled": sampled,
        "source": "nvme smart-log /dev/nvme1n1",
        "reason": "",
        "capture_id": add_capture(conn, run_id, probe),
        "period_s": 1.0,
        "limits": None,
    }
    add_finding(conn, run_id, THERMAL, "facts", body, 0.0)
    if sampled:
        counters = ThermalCounters(warning_temp_time_min=0, power_on_hours=100)
        taken = PassTemperatures(readings, counters, counters, 0)
        name = pass_finding_name(step.step_key, step.round_index)
        add_finding(conn, run_id, name, "verdict", pass_body(step, taken), 0.0)
    stored = read_run(conn, run_id)
    assert stored is not None
    return stored


@functools.cache
def thermal_document() -> Document:
    """The report of such a run (a quick run's, with its Thermal section)."""
    with tempfile.TemporaryDirectory() as folder:
        conn = open_store(Path(folder) / "db")
        stored = stored_thermal_run(conn)
        document = kind_record(stored.run).document(stored, ())
        conn.close()
    return document
