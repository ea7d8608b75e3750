"""A whole stored run in one call: the run row with its steps, findings, health samples,
pass temperatures and capture times, and the rest (plan, fio outputs, job files) read from
the same connection when first asked for (model/stored_run.py)."""

import sqlite3
from collections.abc import Mapping

from ssdlab.model.profile import ProfilePlan
from ssdlab.model.run import RunRecord
from ssdlab.model.stored_run import JobInput, StoredRun
from ssdlab.store.captures import capture_times, load_capture_inputs, load_fio_outputs
from ssdlab.store.findings import load_findings
from ssdlab.store.health import load_health_samples
from ssdlab.store.profile_runs import profile_plan_of
from ssdlab.store.run_rows import load_run
from ssdlab.store.step_temperatures import run_step_temperatures
from ssdlab.store.steps import load_step_results


class _Evidence:
    """The run's heavy parts, each read once on first use, from the connection the run was
    read from."""

    def __init__(self, conn: sqlite3.Connection, run: RunRecord) -> None:
        self._conn = conn
        self._run = run
        self._plan: ProfilePlan | None = None
        self._outputs: Mapping[int, str] | None = None
        self._inputs: tuple[JobInput, ...] | None = None

    def plan(self) -> ProfilePlan:
        if self._plan is None:
            self._plan = profile_plan_of(self._run)
        return self._plan

    def fio_outputs(self) -> Mapping[int, str]:
        if self._outputs is None:
            self._outputs = load_fio_outputs(self._conn, self._run.run_id)
        return self._outputs

    def job_inputs(self) -> tuple[JobInput, ...]:
        if self._inputs is None:
            self._inputs = tuple(
                JobInput(capture_id, tool, text)
                for capture_id, tool, text in load_capture_inputs(self._conn, self._run.run_id)
            )
        return self._inputs


def read_run(conn: sqlite3.Connection, run_id: int) -> StoredRun | None:
    """The stored run `run_id` whole, None when the store has no such run (StoreError when
    its row cannot be read back)."""
    run = load_run(conn, run_id)
    if run is None:
        return None
    return StoredRun(
        run=run,
        steps=tuple(load_step_results(conn, run_id)),
        findings={f.name: f.body for f in load_findings(conn, run_id)},
        health=tuple((s.phase, s.sample) for s in load_health_samples(conn, run_id=run_id)),
        capture_times=capture_times(conn, run_id),
        evidence=_Evidence(conn, run),
        temperatures=run_step_temperatures(conn, run_id),
    )
