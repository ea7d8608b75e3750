"""A pass's temperatures (schema 11): stored with the step result in a store an older ssdlab
wrote (tests/data/store/main-98b38bc.sqlite, migrated), read back checked, carried whole by a
collect, and a collect refusing a node's run whose temperatures no run of ssdlab's would hold."""

import shutil
import sqlite3
from pathlib import Path

import pytest

from ssdlab.errors import StoreError
from ssdlab.model.thermal import TemperatureSample
from ssdlab.store.captures import add_capture
from ssdlab.store.db import SCHEMA_VERSION, open_store
from ssdlab.store.merge import copy_runs, run_fingerprint
from ssdlab.store.step_temperatures import run_step_temperatures, temperature_problem
from ssdlab.store.steps import add_step_result, delete_step_results
from ssdlab.store.stored_run import read_run
from tests.unit.store.test_store import FIO_CAPTURE, measured_step, new_run

OLD_STORE = Path(__file__).resolve().parents[2] / "data" / "store" / "main-98b38bc.sqlite"
SAMPLES = (
    TemperatureSample(0.512, 41.0, (41.0, 47.0)),
    TemperatureSample(1.507, 42.0, (42.0, 48.0)),
    TemperatureSample(2.511, 42.0, ()),
)


def _old_store_with_temperatures(tmp_path: Path) -> tuple[Path, int, int]:
    """A copy of the old store, migrated, with a new run of one pass and its temperatures."""
    path = tmp_path / "node.sqlite"
    shutil.copyfile(OLD_STORE, path)
    conn = open_store(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 11
    run_id = new_run(conn)
    capture_id = add_capture(conn, run_id, FIO_CAPTURE)
    add_step_result(conn, run_id, measured_step(capture_id), temperatures=SAMPLES)
    conn.close()
    return path, run_id, capture_id


def test_a_pass_temperatures_round_trip_through_the_migrated_store(tmp_path: Path) -> None:
    path, run_id, capture_id = _old_store_with_temperatures(tmp_path)
    conn = open_store(path)
    stored = read_run(conn, run_id)
    assert stored is not None
    assert stored.temperatures == {capture_id: SAMPLES}
    older = read_run(conn, 1)  # a run stored before schema 11 has none
    assert older is not None
    assert older.temperatures == {}
    delete_step_results(conn, run_id, [("rnd4k-q1t1-read", 1)])  # a resumed round set aside
    assert run_step_temperatures(conn, run_id) == {}


def test_a_stored_temperature_that_ssdlab_never_writes_is_a_store_error(tmp_path: Path) -> None:
    path, run_id, _capture = _old_store_with_temperatures(tmp_path)
    conn = open_store(path)
    conn.execute("UPDATE step_temperatures SET composite_c = 4000 WHERE elapsed_s > 2")
    conn.commit()
    with pytest.raises(StoreError, match="composite temperature is not from -273 to 1000 °C"):
        run_step_temperatures(conn, run_id)


def test_a_collect_carries_the_temperatures_whole(tmp_path: Path) -> None:
    path, run_id, _capture = _old_store_with_temperatures(tmp_path)
    node = open_store(path)
    central = open_store(tmp_path / "central.sqlite")
    result = copy_runs(node, central, host="lab-1", collected_at_s=1.0)
    assert result.refused == ()
    uuid = node.execute("SELECT uuid FROM runs WHERE id = ?", (run_id,)).fetchone()[0]
    there = central.execute("SELECT id FROM runs WHERE uuid = ?", (uuid,)).fetchone()[0]
    stored = read_run(central, there)
    assert stored is not None
    assert list(stored.temperatures.values()) == [SAMPLES]
    assert run_fingerprint(central, there) == run_fingerprint(node, run_id)


@pytest.mark.parametrize(
    ("column", "value", "said"),
    [
        ("composite_c", 5000.0, "composite temperature is not from -273 to 1000 °C"),
        ("composite_c", "hot", "composite temperature"),
        ("elapsed_s", -1.0, "its seconds are not a number from 0"),
        ("sensors_json", "[41, 47", "step_temperatures.sensors_json is not JSON"),
        ("sensors_json", "[1, 2, 3, 4, 5, 6, 7, 8, 9]", "at most 8 temperatures"),
        ("sensors_json", '[41, "x"]', "a sensor's temperature"),
        ("sensors_json", "{}", "its sensors are not a list"),
    ],
)
def test_a_collect_refuses_a_run_whose_temperatures_no_run_of_ssdlabs_would_hold(
    tmp_path: Path, column: str, value: object, said: str
) -> None:
    path, run_id, _capture = _old_store_with_temperatures(tmp_path)
    crafted = sqlite3.connect(path)  # a hostile node: plain SQL on its own store
    with crafted:
        crafted.execute(f"UPDATE step_temperatures SET {column} = ? WHERE elapsed_s < 1", (value,))
    crafted.close()
    node = open_store(path)
    central = open_store(tmp_path / "central.sqlite")
    result = copy_runs(node, central, host="lab-1", collected_at_s=1.0)
    (refused,) = result.refused
    assert said in refused
    assert len(refused) < 400
    uuid = node.execute("SELECT uuid FROM runs WHERE id = ?", (run_id,)).fetchone()[0]
    assert uuid in refused
    assert central.execute("SELECT COUNT(*) FROM step_temperatures").fetchone()[0] == 0


def test_what_a_sampler_writes_is_what_the_check_accepts() -> None:
    for sample in SAMPLES:
        assert (
            temperature_problem(sample.elapsed_s, sample.composite_c, list(sample.sensors_c))
            is None
        )
    assert temperature_problem(True, 40.0, []) is not None  # a bool is no number of seconds
    assert temperature_problem(1.0, float("nan"), []) is not None
