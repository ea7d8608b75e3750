"""A run's thermal section and `thermal` chart, from a replayed temperature/throughput series
whose onset (77 °C) and exit (75 °C) are known (tests/unit/analysis/thermal_series.py), stored
as a run stores a pass (step result, its readings, its thermal findings) and read back whole."""

import json
import sqlite3
from pathlib import Path

import pytest

from ssdlab.registry import kind_record
from ssdlab.report.chart_rules import chart_problems
from ssdlab.report.chart_spec import chart_spec, render_chart
from ssdlab.report.document import Chart, Series, document_json
from ssdlab.report.thermal import CHART_KEY, with_thermal
from ssdlab.store.db import open_store
from tests.unit.report.test_chart_spec import _validate
from tests.unit.report.thermal_run import SECONDS, stored_thermal_run


@pytest.fixture
def conn(tmp_path: Path) -> sqlite3.Connection:
    return open_store(tmp_path / "db")


def test_the_known_onset_and_exit_are_in_the_thermal_section(conn: sqlite3.Connection) -> None:
    stored = stored_thermal_run(conn)
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
    stored = stored_thermal_run(conn)
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
    stored = stored_thermal_run(conn, sampled=False)
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
