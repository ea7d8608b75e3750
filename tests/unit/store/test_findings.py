"""Findings and profile plans round-trip through the store."""

import sqlite3
from pathlib import Path

from ssdlab.model.plan import FioJob
from ssdlab.model.profile import ProfilePlan, ProfileStep, StepRole
from ssdlab.store.db import open_store
from ssdlab.store.findings import add_finding, load_findings
from ssdlab.store.lifecycle import NewRun, create_run, to_json
from ssdlab.store.profile_runs import profile_plan_of
from ssdlab.store.run_rows import load_run

PLAN = ProfilePlan(
    profile="demo",
    profile_version=2,
    settings=(("levels", (0, 50)), ("runtime", 1.5), ("pattern", "seq"), ("bound", None)),
    target_path="/dev/loop9",
    target_kind="device",
    destructive=True,
    steps=(
        ProfileStep(
            key="w",
            label="write",
            role=StepRole.MEASURE,
            job=FioJob((("filename", "/dev/loop9"),), (("w", (("rw", "write"),)),)),
            params=(("block_size_bytes", 4096), ("levels", (1, 2))),
            expected_s=1.5,
        ),
        ProfileStep(key="rest", label="rest", role=StepRole.IDLE, direction="idle", idle_s=3.0),
        ProfileStep(
            key="trim",
            label="fstrim",
            role=StepRole.COMMAND,
            direction="command",
            command=("fstrim", "-v", "/mnt"),
        ),
    ),
    notes=("a note",),
)


def _store(tmp_path: Path) -> tuple[sqlite3.Connection, int]:
    conn = open_store(tmp_path / "db")
    run_id = create_run(
        conn,
        NewRun(
            kind="profile", profile="demo", profile_version=2, preset=None,
            target_kind="device", target_path="/dev/loop9", target_json="{}", device_id=None,
            settings_json="{}", plan_json=to_json(PLAN), environment_json="{}",
            started_at_s=1.0, host="h", pid=1, boot_id=None,
        ),
    )  # fmt: skip
    return conn, run_id


def test_plan_round_trips_through_the_stored_json(tmp_path: Path) -> None:
    conn, run_id = _store(tmp_path)
    run = load_run(conn, run_id)
    assert run is not None
    assert profile_plan_of(run) == PLAN


def test_findings_are_replaced_when_analysed_again(tmp_path: Path) -> None:
    conn, run_id = _store(tmp_path)
    add_finding(conn, run_id, "cliff", "verdict", {"cliff_bytes": 1.0}, 5.0)
    add_finding(conn, run_id, "target-facts", "facts", {"partition": None}, 5.0)
    add_finding(conn, run_id, "cliff", "verdict", {"cliff_bytes": 2.0}, 6.0)
    found = {f.name: f for f in load_findings(conn, run_id)}
    assert found["cliff"].body == {"cliff_bytes": 2.0}
    assert found["target-facts"].kind == "facts"
    assert found["target-facts"].body["partition"] is None
