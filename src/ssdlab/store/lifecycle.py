"""A run's life in its row: created running, finished with a status, reopened (a watch series
goes on), its plan replaced (a resume with other stop conditions), its environment brought up
to date (the machine check's passes), and marked interrupted when the process that ran it
died."""

import dataclasses
import sqlite3
import uuid
from collections.abc import Callable

from ssdlab.model.json_fields import dumps
from ssdlab.model.run import RunKind, RunRecord, RunStatus
from ssdlab.model.target import TargetKind
from ssdlab.store.codec import (
    RUN_ENVIRONMENT,
    RUN_PLAN,
    RUN_SETTINGS,
    RUN_TARGET,
    versioned,
)
from ssdlab.store.run_rows import fetch_runs, readable_runs
from ssdlab.store.transaction import transaction


def to_json(value: object) -> str:
    """Canonical JSON of dataclasses, dicts and tuples (sorted keys, no NaN): what callers
    hand to `create_run` and `replace_run_plan`, which put each blob's version in."""
    return dumps(value)


@dataclasses.dataclass(frozen=True, slots=True)
class NewRun:
    kind: RunKind
    profile: str
    profile_version: int
    preset: str | None
    target_kind: TargetKind
    target_path: str
    target_json: str
    device_id: int | None
    settings_json: str
    plan_json: str
    environment_json: str
    started_at_s: float
    host: str
    pid: int
    boot_id: str | None
    pid_namespace: str | None = None  # the PID namespace `pid` belongs to (schema 5)
    uuid: str | None = None  # the run's UUID (schema 7); None: a new random one


def create_run(conn: sqlite3.Connection, run: NewRun) -> int:
    with transaction(conn):
        cursor = conn.execute(
            "INSERT INTO runs (kind, profile, profile_version, preset, status, target_kind,"
            " target_path, target_json, device_id, settings_json, plan_json, environment_json,"
            " started_at_s, host, pid, boot_id, pid_namespace, uuid)"
            " VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run.kind,
                run.profile,
                run.profile_version,
                run.preset,
                run.target_kind,
                run.target_path,
                versioned(run.target_json, RUN_TARGET),
                run.device_id,
                versioned(run.settings_json, RUN_SETTINGS),
                versioned(run.plan_json, RUN_PLAN),
                versioned(run.environment_json, RUN_ENVIRONMENT),
                run.started_at_s,
                run.host,
                run.pid,
                run.boot_id,
                run.pid_namespace,
                run.uuid or str(uuid.uuid4()),
            ),
        )
        return int(cursor.lastrowid or 0)


def finish_run(
    conn: sqlite3.Connection, run_id: int, status: RunStatus, reason: str | None, ended_at_s: float
) -> None:
    with transaction(conn):
        conn.execute(
            "UPDATE runs SET status = ?, status_reason = ?, ended_at_s = ? WHERE id = ?",
            (status.value, reason, ended_at_s, run_id),
        )


def reopen_run(
    conn: sqlite3.Connection,
    run_id: int,
    pid: int,
    boot_id: str | None,
    pid_namespace: str | None = None,
) -> None:
    """Continue a finished or interrupted run (a watch series) from this process; the pid,
    boot id and PID namespace recorded are this process's from now on."""
    with transaction(conn):
        conn.execute(
            "UPDATE runs SET status = 'running', status_reason = NULL, ended_at_s = NULL,"
            " pid = ?, boot_id = ?, pid_namespace = ? WHERE id = ?",
            (pid, boot_id, pid_namespace, run_id),
        )


def replace_run_plan(
    conn: sqlite3.Connection, run_id: int, settings_json: str, plan_json: str
) -> None:
    """New settings and plan for a stopped run that resumes with other stop conditions (the
    change itself is recorded as a finding by the caller)."""
    with transaction(conn):
        conn.execute(
            "UPDATE runs SET settings_json = ?, plan_json = ? WHERE id = ?",
            (versioned(settings_json, RUN_SETTINGS), versioned(plan_json, RUN_PLAN), run_id),
        )


def replace_run_environment(conn: sqlite3.Connection, run_id: int, environment_json: str) -> None:
    """A run's environment with what was learnt since it started (the machine check's passes,
    written between passes)."""
    with transaction(conn):
        conn.execute(
            "UPDATE runs SET environment_json = ? WHERE id = ?",
            (versioned(environment_json, RUN_ENVIRONMENT), run_id),
        )


def mark_dead_runs(conn: sqlite3.Connection, is_alive: Callable[[RunRecord], bool]) -> list[int]:
    """Mark `running` runs whose process is gone as interrupted; return their ids. A collected
    run is left as its node last reported it: its process is on the node, and the next
    collect brings its end."""
    running = readable_runs(fetch_runs(conn, "WHERE status = 'running' AND collected_at_s IS NULL"))
    dead = [run for run in running if not is_alive(run)]
    marked = []
    for run in dead:
        with transaction(conn):
            # only the process judged dead: a resume may have taken the run over meanwhile
            cursor = conn.execute(
                "UPDATE runs SET status = 'interrupted', status_reason = ? "
                "WHERE id = ? AND status = 'running' AND pid = ? AND boot_id IS ?"
                " AND pid_namespace IS ?",
                (
                    "the ssdlab process stopped without finishing (killed, crashed or its "
                    "terminal closed)",
                    run.run_id,
                    run.pid,
                    run.boot_id,
                    run.pid_namespace,
                ),
            )
            if cursor.rowcount:
                marked.append(run.run_id)
    return marked
