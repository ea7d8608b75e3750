"""A run's thermal section and `thermal` chart, from a replayed temperature/throughput series
whose onset (77 °C) and exit (75 °C) are known (tests/unit/analysis/thermal_series.py), stored
as a run stores a pass (step result, its readings, its thermal findings) and read back whole."""

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest

from ssdlab.model.finding_names import THERMAL
from ssdlab.model.result import SeriesPoint
from ssdlab.model.run import Capture
from ssdlab.model.stored_run import StoredRun
from ssdlab.model.thermal import TemperatureSample, ThermalCounters
from ssdlab.registry import kind_record
from ssdlab.report.chart_rules import chart_problems
from ssdlab.report.chart_spec import chart_spec, render_chart
from ssdlab.report.document import Chart, Series, document_json
from ssdlab.report.thermal import CHART_KEY, with_thermal
from ssdlab.runner.pass_thermal import pass_body, pass_finding_name
from ssdlab.runner.thermal_watch import PassTemperatures
from ssdlab.store.captures import add_capture
from ssdlab.store.db import open_store
from ssdlab.store.findings import add_finding
from ssdlab.store.steps import add_step_result
from ssdlab.store.stored_run import read_run
from tests.unit.analysis.thermal_series import drive_series
from tests.unit.report.test_chart_spec import _validate
from tests.unit.store.test_store import FIO_CAPTURE, measured_step, new_run

SECONDS = 300  # about nine episodes: the drive heats from 55 °C, throttles at 77, cools to 75
STARTED_AT_S = 1_700_000_000.0


def _stored_run(conn: sqlite3.Connection, *, sampled: bool = True) -> StoredRun:
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


@pytest.fixture
def conn(tmp_path: Path) -> sqlite3.Connection:
    return open_store(tmp_path / "db")


def test_the_known_onset_and_exit_are_in_the_thermal_section(conn: sqlite3.Connection) -> None:
    stored = _stored_run(conn)
    document = kind_record(stored.run).document(stored, ())
    section = document.sections[-1]
    assert section.title == "Thermal"
    (row,) = section.tables[0].rows
    _label, readings, temps, throttling, onset, exit_, ratio, _time = row
    assert readings == str(SECONDS)
    assert temps.startswith("55–")
    assert throttling.endswith("episodes")
    assert onset == "77 °C"  # whole degrees: the reading steps from 76 to 77 as it throttles
    assert exit_ == "75 °C"
    assert ratio.startswith("0.")  # throttled at half speed: the interval is printed with it
    checks = {r[0]: r[2] for r in section.tables[1].rows}
    assert checks["TTHROTTLE-5"] == "yes"
    assert checks["TTHROTTLE-7"] == "yes"
    data = json.loads(document_json(document))["thermal"]
    (found,) = data["passes"]
    assert found["readings"] == SECONDS
    episodes = found["throttling"]["episodes"]
    assert all(e["explained_by_temperature"] for e in episodes)
    assert {e["onset"]["threshold"]["low"] for e in episodes} == {77.0}


def test_the_thermal_chart_has_throughput_and_temperature_on_one_time_axis(
    conn: sqlite3.Connection,
) -> None:
    stored = _stored_run(conn)
    (chart,) = [c for c in kind_record(stored.run).shown(stored).charts if c.key == CHART_KEY]
    assert chart.key == CHART_KEY
    assert chart_problems(chart) == ()
    throughput, temperature = chart.series
    assert (throughput.axis, temperature.axis) == ("y", "y2")
    assert len(temperature.xs) == SECONDS
    assert min(temperature.ys) == 55.0
    assert {m.kind for m in chart.markers} == {"band"}
    spec = chart_spec(chart)
    _validate(spec)
    left, right = spec["layer"]
    assert spec["resolve"] == {"scale": {"y": "independent"}}
    assert right["layer"][0]["encoding"]["y"]["axis"]["orient"] == "right"
    assert right["layer"][0]["encoding"]["y"]["title"] == "temperature (°C)"
    assert left["layer"][0]["encoding"]["y"]["title"] == "throughput (MB/s)"
    assert render_chart(chart, "svg").startswith(b"<?xml")


def test_a_run_without_temperatures_is_laid_out_as_before(conn: sqlite3.Connection) -> None:
    stored = _stored_run(conn, sampled=False)
    record = kind_record(stored.run)
    document = record.document(stored, ())
    assert "Thermal" not in [s.title for s in document.sections]
    assert "thermal" not in document.data
    assert with_thermal(document, stored) is document


def test_a_second_axis_needs_its_unit() -> None:
    chart = Chart(
        "t", "t", x_label="time", x_unit="s", y_label="throughput", y_unit="MB/s", y_zero=True,
        series=(Series("a", (1.0,), (2.0,)), Series("b", (1.0,), (40.0,), axis="y2")),
    )  # fmt: skip
    assert chart_problems(chart) == ("t: the second y axis (unnamed) has no unit",)
