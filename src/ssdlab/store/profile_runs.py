"""Read a profile run back: its plan rebuilt from the stored JSON, and fio's raw outputs."""

import sqlite3
from typing import Any

from ssdlab.errors import StoreError
from ssdlab.model.plan import FioJob, Options
from ssdlab.model.profile import ProfilePlan, ProfileStep, RoundLoop, SettingValue, StepRole
from ssdlab.model.run import RunRecord
from ssdlab.store.quick_plans import is_pass_list_plan, migrate_pass_list_plan


def _options(pairs: list[list[str]]) -> Options:
    return tuple((str(name), str(value)) for name, value in pairs)


def _value(value: Any) -> SettingValue:
    return tuple(int(v) for v in value) if isinstance(value, list) else value


def _pairs(pairs: list[list[Any]]) -> tuple[tuple[str, SettingValue], ...]:
    return tuple((str(name), _value(value)) for name, value in pairs)


def _job(data: dict[str, Any] | None) -> FioJob | None:
    if data is None:
        return None
    return FioJob(
        global_options=_options(data["global_options"]),
        sections=tuple((str(name), _options(opts)) for name, opts in data["sections"]),
    )


def _step(data: dict[str, Any]) -> ProfileStep:
    return ProfileStep(
        key=data["key"],
        label=data["label"],
        role=StepRole(data["role"]),
        direction=data["direction"],
        job=_job(data["job"]),
        idle_s=float(data["idle_s"]),
        command=tuple(data["command"]),
        params=_pairs(data["params"]),
        log_interval_ms=data["log_interval_ms"],
        expected_s=data["expected_s"],
        expected_bytes=data["expected_bytes"],
        pause_before_s=float(data["pause_before_s"]),
        round_index=data.get("round_index"),
        comment=str(data.get("comment", "")),
        keep_result=bool(data.get("keep_result", True)),
    )


def _loop(data: dict[str, Any]) -> RoundLoop:
    return RoundLoop(
        steps=tuple(_step(s) for s in data["steps"]),
        max_rounds=int(data["max_rounds"]),
        min_rounds=int(data["min_rounds"]),
        check=str(data["check"]),
        name=str(data.get("name", "")),
        before=tuple(_step(s) for s in data.get("before", ())),
    )


def profile_plan_of(run: RunRecord) -> ProfilePlan:
    """The ProfilePlan a profile run executed, as stored with it."""
    data: dict[str, Any] = dict(run.plan)
    try:
        if is_pass_list_plan(data):
            data = migrate_pass_list_plan(data)
        return ProfilePlan(
            profile=str(data["profile"]),
            profile_version=int(data["profile_version"]),
            settings=_pairs(data["settings"]),
            target_path=str(data["target_path"]),
            target_kind=str(data["target_kind"]),
            destructive=bool(data["destructive"]),
            steps=tuple(_step(s) for s in data["steps"]),
            notes=tuple(data.get("notes", ())),
            loops=tuple(_loop(loop) for loop in data.get("loops", ())),
            after=tuple(_step(s) for s in data.get("after", ())),
            params=_pairs(data.get("params", [])),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise StoreError(f"run {run.run_id}'s stored plan cannot be read: {error}") from error


def load_fio_outputs(conn: sqlite3.Connection, run_id: int) -> dict[int, str]:
    """fio's JSON output of every measured or prepared step of a run, by capture id."""
    rows = conn.execute(
        "SELECT c.id, c.stdout FROM captures c JOIN step_results s ON s.capture_id = c.id"
        " WHERE s.run_id = ? ORDER BY c.id",
        (run_id,),
    ).fetchall()
    return {int(r[0]): str(r[1]) for r in rows}
