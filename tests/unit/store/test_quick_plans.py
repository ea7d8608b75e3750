"""Quick runs stored before quick became a profile plan read back as the very plan the quick
planner makes today for the same settings and target (tests/data/store: a store written by
ssdlab at commit 98b38bc)."""

import json
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import pytest

from ssdlab.model.plan import QuickSettings
from ssdlab.plan.quick import plan_quick
from ssdlab.profiles.quick import load_quick_profile
from ssdlab.store.lifecycle import to_json
from ssdlab.store.quick_plans import is_pass_list_plan, migrate_pass_list_plan
from tests.conftest import ROOT

OLD_STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"


def old_quick_runs() -> list[tuple[int, dict[str, Any], dict[str, Any]]]:
    if not OLD_STORE.exists():
        return []
    # read from a copy: even a read-only open of the committed file may remove its -wal and
    # -shm files
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / OLD_STORE.name
        shutil.copyfile(OLD_STORE, copy)
        conn = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
        try:
            rows = conn.execute(
                "SELECT id, settings_json, plan_json FROM runs WHERE kind = 'quick'"
            ).fetchall()
        finally:
            conn.close()
    return [(int(i), json.loads(s), json.loads(p)) for i, s, p in rows]


RUNS = old_quick_runs()


def test_the_old_store_holds_quick_runs() -> None:
    assert Path(OLD_STORE).exists()
    assert len(RUNS) >= 2


@pytest.mark.parametrize("interval_s", [None, 2.5])
@pytest.mark.parametrize(("run_id", "settings", "plan"), RUNS, ids=[str(r[0]) for r in RUNS])
def test_an_old_quick_plan_becomes_todays_plan(
    run_id: int, settings: dict[str, Any], plan: dict[str, Any], interval_s: float | None
) -> None:
    if interval_s is not None:  # the pause sits before every test but the first
        settings = {**settings, "interval_s": interval_s}
        plan = {**plan, "settings": settings}
    assert is_pass_list_plan(plan)
    migrated = migrate_pass_list_plan(plan)
    assert not is_pass_list_plan(migrated)
    today = plan_quick(
        load_quick_profile(),
        QuickSettings(**settings),
        target_path=plan["target_path"],
        target_kind=plan["target_kind"],
        fill=plan["prepare"] is not None,
    )
    assert migrated == _without_histogram_logs(json.loads(to_json(today))), f"run {run_id}"


# options today's quick jobs have that the old runs ran without (their jobs are kept as run)
HISTOGRAM_OPTIONS = {"write_hist_log", "log_hist_msec"}


def _without_histogram_logs(plan: dict[str, Any]) -> dict[str, Any]:
    for step in plan["steps"]:
        if step["job"] is not None:
            options = step["job"]["global_options"]
            step["job"]["global_options"] = [o for o in options if o[0] not in HISTOGRAM_OPTIONS]
    return plan


def test_a_pause_is_only_before_later_tests() -> None:
    run_id, settings, plan = RUNS[0]
    migrated = migrate_pass_list_plan({**plan, "settings": {**settings, "interval_s": 3.0}})
    pauses = [s["pause_before_s"] for s in migrated["steps"] if s["round_index"] == 0]
    assert pauses[0] == 0.0, run_id
    assert set(pauses[1:]) == {3.0}, run_id
