"""The store's codec: dataclasses to JSON by field and back by type hints, versions per blob."""

import dataclasses
import json
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest

from ssdlab.errors import StoreError
from ssdlab.model.health import HealthSample
from ssdlab.model.json_fields import dumps
from ssdlab.model.profile import ProfilePlan, ProfileStep, SettingValue, StepRole
from ssdlab.model.result import DirectionMetrics
from ssdlab.store.codec import (
    HEALTH_SAMPLE,
    RUN_PLAN,
    STEP_METRICS,
    VERSION_KEY,
    BlobKind,
    decode,
    from_blob,
    loads_blob,
    open_blob,
    to_blob,
    versioned,
)
from ssdlab.store.db import SCHEMA_VERSION, open_store
from ssdlab.store.findings import add_finding, load_findings
from ssdlab.store.health import add_health_sample, load_health_samples
from ssdlab.store.lifecycle import NewRun, create_run
from ssdlab.store.profile_runs import profile_plan_of
from ssdlab.store.run_rows import UnreadableRun, list_run_rows, list_runs, load_run

OLD_STORE = Path(__file__).resolve().parents[2] / "data" / "store" / "main-98b38bc.sqlite"


def asdict_json(value: object) -> str:
    """The JSON the store wrote before the codec: dataclasses.asdict, sorted keys."""

    def default(obj: object) -> object:
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            return dataclasses.asdict(obj)
        raise TypeError(type(obj).__name__)

    return json.dumps(value, default=default, sort_keys=True, allow_nan=False)


@pytest.fixture(scope="module")
def old(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite3.Connection]:
    # a copy: even a read-only open of the committed file may remove its -wal and -shm files
    copy = tmp_path_factory.mktemp("old-store") / OLD_STORE.name
    shutil.copyfile(OLD_STORE, copy)
    conn = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    yield conn
    conn.close()


def test_every_plan_of_the_old_store_decodes_and_encodes_to_the_same_json(
    old: sqlite3.Connection,
) -> None:
    rows = old.execute("SELECT id, plan_json FROM runs WHERE kind = 'profile'").fetchall()
    assert len(rows) == 6  # fill, align, fill, cache, cache, endurance
    for row in rows:
        plan = decode(ProfilePlan, json.loads(row["plan_json"]), f"run {row['id']}")
        assert asdict_json(plan) == dumps(plan)  # the codec writes what the store wrote
        # nothing dropped; fields added since 98b38bc hold their defaults
        assert_holds(json.loads(dumps(plan)), json.loads(row["plan_json"]), ADDED_SINCE)


# ProfileStep's fields added after 98b38bc (quick folded into the profile runner), and
# ProfilePlan's pass_seeds (each fio pass's own seed, PTS plans only)
ADDED_SINCE = {"comment": "", "round_index": None, "keep_result": True, "pass_seeds": False}
# HealthSample's values added after 98b38bc (the NVMe spare threshold and error log entries)
UNKNOWN_VALUE = {"value": None, "provenance": None}
HEALTH_ADDED_SINCE = {
    name: UNKNOWN_VALUE
    for name in ("available_spare_threshold_pct", "error_log_entries", "temperature_warning_c")
} | {"choices": []}


def assert_holds(encoded: Any, stored: Any, added: dict[str, Any]) -> None:
    """`encoded` is `stored`, but for `added` keys (at their default) in its objects."""
    if isinstance(stored, dict):
        assert isinstance(encoded, dict)
        for key, value in encoded.items():
            if key in stored:
                assert_holds(value, stored[key], added)
            else:
                assert key in added, key
                assert value == added[key], key
        assert set(stored) <= set(encoded)
    elif isinstance(stored, list):
        assert isinstance(encoded, list)
        assert len(encoded) == len(stored)
        for mine, theirs in zip(encoded, stored, strict=True):
            assert_holds(mine, theirs, added)
    else:
        assert encoded == stored
        assert type(encoded) is type(stored)


def test_the_quick_plans_of_the_old_store_read_back_as_profile_plans(
    old: sqlite3.Connection,
) -> None:
    for run in list_runs(old):
        if run.kind == "quick":
            assert profile_plan_of(run).profile == "quick"


def test_every_health_sample_and_metrics_blob_of_the_old_store_round_trips(
    old: sqlite3.Connection,
) -> None:
    samples = old.execute("SELECT id, sample_json FROM health_samples").fetchall()
    assert len(samples) == 115
    for row in samples:
        sample = from_blob(HealthSample, json.loads(row[1]), HEALTH_SAMPLE, f"sample {row[0]}")
        # nothing dropped; the NVMe values added since hold "unknown"
        assert_holds(json.loads(dumps(sample)), json.loads(row[1]), HEALTH_ADDED_SINCE)
    metrics = old.execute(
        "SELECT read_json FROM step_results WHERE read_json IS NOT NULL"
        " UNION ALL SELECT write_json FROM step_results WHERE write_json IS NOT NULL"
    ).fetchall()
    assert len(metrics) > 50
    for (text,) in metrics:
        metric = from_blob(DirectionMetrics, json.loads(text), STEP_METRICS, "m")
        # nothing dropped; the total-latency percentile table added since is empty
        assert_holds(json.loads(dumps(metric)), json.loads(text), {"lat_percentiles_ns": []})


class Colour(StrEnum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True, slots=True)
class Inner:
    name: str
    weight: float | None = None


@dataclass(frozen=True, slots=True)
class Outer:
    colour: Colour
    inners: tuple[Inner, ...]
    pair: tuple[str, int]
    settings: tuple[tuple[str, SettingValue], ...] = ()
    table: dict[str, Inner] = field(default_factory=dict)
    extra: Any = None
    added_later: int = 7


OUTER = Outer(
    colour=Colour.BLUE,
    inners=(Inner("a"), Inner("b", 2.5)),
    pair=("x", 3),
    settings=(("i", 4), ("f", 0.5), ("s", "seq"), ("b", True), ("t", (1, 2)), ("n", None)),
    table={"k": Inner("c", 1.0)},
    extra={"free": [1, "form"]},
)


def test_a_dataclass_round_trips_field_by_field() -> None:
    data = json.loads(dumps(OUTER))
    assert data["colour"] == "blue"
    assert data["pair"] == ["x", 3]
    assert decode(Outer, data, "it") == OUTER


def test_setting_values_keep_their_types() -> None:
    back = decode(Outer, json.loads(dumps(OUTER)), "it")
    kinds = {name: type(value) for name, value in back.settings}
    assert kinds == {"i": int, "f": float, "s": str, "b": bool, "t": tuple, "n": type(None)}


def test_a_whole_number_where_a_float_is_expected_stays_whole() -> None:
    # as stored (a simulated sample's resolution 1): encoding it again gives the same JSON
    data = {"name": "a", "weight": 3}
    assert decode(Inner, data, "it") == Inner("a", 3)
    assert json.loads(dumps(decode(Inner, data, "it"))) == data


def test_a_field_missing_from_an_old_blob_takes_its_default() -> None:
    data = json.loads(dumps(OUTER))
    del data["added_later"]
    assert decode(Outer, data, "it").added_later == 7


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(unheard_of=1), "Outer has no field unheard_of"),
        (lambda d: d.pop("pair"), "pair: missing"),
        (lambda d: d.update(colour="green"), 'colour: "green" is not a Colour'),
        (lambda d: d["inners"][1].update(weight="heavy"), r"inners\[1\].weight: \"heavy\" fits"),
        (lambda d: d.update(pair=["x"]), "pair: expected a list of 2, found one of 1"),
        (lambda d: d.update(pair=["x", True]), r"pair\[1\]: expected a whole number, found true"),
        (lambda d: d.update(inners={}), "inners: expected a list"),
    ],
)
def test_a_blob_that_does_not_fit_is_a_store_error_naming_it(change: Any, message: str) -> None:
    data = json.loads(dumps(OUTER))
    change(data)
    with pytest.raises(StoreError, match=f"^run 5's plan cannot be read: {message}"):
        decode(Outer, data, "run 5's plan")


def test_a_stored_step_with_an_unknown_field_is_refused_not_dropped() -> None:
    step = json.loads(dumps(ProfileStep(key="k", label="l", role=StepRole.MEASURE)))
    step["new_knob"] = 3
    with pytest.raises(StoreError, match="ProfileStep has no field new_knob"):
        decode(ProfileStep, step, "a step")


def test_blobs_carry_a_version_that_reading_takes_out() -> None:
    text = to_blob(Inner("a"), RUN_PLAN)
    assert json.loads(text) == {"name": "a", "weight": None, VERSION_KEY: 1}
    assert open_blob(json.loads(text), RUN_PLAN, "it") == {"name": "a", "weight": None}
    assert json.loads(versioned('{"a": 1}', RUN_PLAN)) == {"a": 1, VERSION_KEY: 1}
    assert json.loads(versioned("{}", RUN_PLAN)) == {VERSION_KEY: 1}
    assert versioned("[1]", RUN_PLAN) == "[1]"  # not an object: left for the reader to refuse


def test_a_blob_without_a_version_is_version_1_and_is_migrated() -> None:
    kind = BlobKind(
        "thing",
        version=3,
        migrations={
            1: lambda d: {**d, "b": d["a"] * 2},
            2: lambda d: {**d, "c": d["b"] + 1},
        },
    )
    assert open_blob({"a": 1}, kind, "it") == {"a": 1, "b": 2, "c": 3}
    assert open_blob({"a": 1, "b": 5, VERSION_KEY: 2}, kind, "it") == {"a": 1, "b": 5, "c": 6}
    assert open_blob({"c": 0, VERSION_KEY: 3}, kind, "it") == {"c": 0}


def test_a_blob_of_a_newer_version_is_refused_with_advice() -> None:
    with pytest.raises(StoreError, match=r"^run 3's plan was written by a newer ssdlab \(plan"):
        loads_blob(json.dumps({"a": 1, VERSION_KEY: 2}), RUN_PLAN, "run 3's plan")
    with pytest.raises(StoreError, match="upgrade ssdlab"):
        from_blob(Inner, {"name": "a", VERSION_KEY: 9}, RUN_PLAN, "it")


def test_a_missing_migration_and_a_bad_version_are_store_errors() -> None:
    with pytest.raises(StoreError, match="no migration to version 2"):
        open_blob({}, BlobKind("thing", version=2), "it")
    with pytest.raises(StoreError, match="'two' is not a blob version"):
        open_blob({VERSION_KEY: "two"}, RUN_PLAN, "it")


def new_run(conn: sqlite3.Connection, plan_json: str = '{"steps": []}') -> int:
    return create_run(
        conn,
        NewRun(
            kind="profile", profile="cache", profile_version=1, preset=None,
            target_kind="file", target_path="/tmp/x", target_json="{}", device_id=None,
            settings_json='{"count": 1}', plan_json=plan_json, environment_json="{}",
            started_at_s=1000.0, host="h", pid=1, boot_id="b",
        ),
    )  # fmt: skip


def test_run_columns_are_stored_versioned_and_read_back_without_it(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "db")
    run_id = new_run(conn)
    row = conn.execute("SELECT settings_json, plan_json FROM runs").fetchone()
    assert json.loads(row[0]) == {"count": 1, VERSION_KEY: 1}
    assert json.loads(row[1]) == {"steps": [], VERSION_KEY: 1}
    run = load_run(conn, run_id)
    assert run is not None
    assert run.settings == {"count": 1}
    assert run.plan == {"steps": []}


def test_a_run_with_a_newer_plan_is_unreadable_with_its_reason(tmp_path: Path) -> None:
    conn = open_store(tmp_path / "db")
    run_id = new_run(conn)
    conn.execute("UPDATE runs SET plan_json = ?", (json.dumps({VERSION_KEY: 2}),))
    with pytest.raises(StoreError, match="column plan_json was written by a newer ssdlab"):
        load_run(conn, run_id)
    (listed,) = list_run_rows(conn)
    assert isinstance(listed, UnreadableRun)


def test_samples_and_findings_are_stored_versioned(tmp_path: Path, old: sqlite3.Connection) -> None:
    conn = open_store(tmp_path / "db")
    run_id = new_run(conn)
    sample = load_health_samples(old, run_id=12)[0].sample
    add_health_sample(conn, run_id, "before", sample)
    (text,) = conn.execute("SELECT sample_json FROM health_samples").fetchone()
    assert json.loads(text)[VERSION_KEY] == 1
    assert load_health_samples(conn, run_id=run_id)[0].sample == sample
    add_finding(conn, run_id, "cache-cliff", "verdict", {"cliff_bytes": 5}, 1.0)
    (body,) = conn.execute("SELECT body_json FROM findings").fetchone()
    assert json.loads(body) == {"cliff_bytes": 5, VERSION_KEY: 1}
    assert load_findings(conn, run_id)[0].body == {"cliff_bytes": 5}


def test_a_plan_stored_with_one_round_loop_under_rounds_reads_back_with_it(
    old: sqlite3.Connection,
) -> None:
    # plans of 2026-11-22 held their one loop as `rounds`; it was dropped on reading until
    # the codec refused the unknown field
    (run,) = [r for r in list_runs(old) if r.run_id == 14]
    plan = dict(run.plan)
    loop = plan.pop("loops")[0]
    older = dataclasses.replace(run, plan={**plan, "rounds": loop})
    assert profile_plan_of(older) == profile_plan_of(run)
    none = dataclasses.replace(run, plan={**plan, "rounds": None})
    assert profile_plan_of(none).loops == ()


def test_a_store_from_before_blob_versions_is_migrated_and_reads_the_same(
    tmp_path: Path, old: sqlite3.Connection
) -> None:
    copy = tmp_path / "old.sqlite"
    copy.write_bytes(OLD_STORE.read_bytes())
    assert old.execute("PRAGMA user_version").fetchone()[0] == 5
    conn = open_store(copy)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 6
    # schema 7 gave each migrated run a random UUID; the old file, read as it is, has none
    migrated = [dataclasses.replace(run, uuid="") for run in list_runs(conn)]
    assert migrated == list_runs(old)
    assert load_health_samples(conn) == load_health_samples(old)
