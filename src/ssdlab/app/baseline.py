"""A run judged against its drive's baseline (`--baseline NAME` of `quick` and `run`): the
first complete run of a name on a drive is its reference; a later one is judged against the
reference runs as `compare` judges, and the judgement is stored as the run's `baseline`
finding."""

import sqlite3
import time
from dataclasses import dataclass, replace

from ssdlab.analysis.baseline import (
    BaselineAction,
    BaselineJudgement,
    BaselineRole,
    StoredBaseline,
    drive_key,
    judge,
    plan_role,
    reference_judgement,
)
from ssdlab.analysis.compare import MetricSamples
from ssdlab.app.runs import run_metrics
from ssdlab.errors import UsageError
from ssdlab.model.finding_names import BASELINE
from ssdlab.model.run import RunStatus
from ssdlab.model.stored_run import StoredRun
from ssdlab.store.findings import add_finding
from ssdlab.store.named_findings import load_named_findings
from ssdlab.store.stored_run import read_run


@dataclass(frozen=True, slots=True)
class BaselineRequest:
    name: str  # the baseline's name (stripped)
    action: BaselineAction = BaselineAction.JUDGE
    fail_on_regression: bool = False  # exit 4 when a test regressed


def baseline_request(
    name: str | None, *, reset: bool, add: bool, fail_on_regression: bool
) -> BaselineRequest | None:
    """The baseline options as given; --baseline-reset, --baseline-add and
    --fail-on-regression need --baseline NAME, and the name must not be blank."""
    if name is None:
        for flag, given in (
            ("baseline-reset", reset),
            ("baseline-add", add),
            ("fail-on-regression", fail_on_regression),
        ):
            if given:
                raise UsageError(f"--{flag} needs --baseline NAME")
        return None
    if not name.strip():
        raise UsageError("--baseline needs a name, e.g. --baseline nightly")
    action = BaselineAction.RESET if reset else BaselineAction.ADD if add else BaselineAction.JUDGE
    return BaselineRequest(name.strip(), action, fail_on_regression)


def apply_baseline(
    conn: sqlite3.Connection, stored: StoredRun, request: BaselineRequest | None
) -> BaselineJudgement | None:
    """With a baseline and a complete run: the run's judgement (or its new role as the
    reference), stored as its `baseline` finding. None without a baseline or for a run that
    did not complete (it neither becomes a reference nor is judged)."""
    run = stored.run
    if request is None or run.status is not RunStatus.COMPLETE:
        return None
    name = request.name
    drive, _serial = drive_key(run.target, run.target_path)
    baselines = [
        StoredBaseline(run_id, body)
        for run_id, body in load_named_findings(conn, BASELINE)
        if run_id != run.run_id
    ]
    role, reference_ids = plan_role(baselines, name, drive, run.run_id, request.action)
    judgement = reference_judgement(name, drive, reference_ids)
    if role is BaselineRole.JUDGED:
        present, references = _reference_metrics(conn, reference_ids)
        if present:
            judgement = judge(name, drive, present, references, run.run_id, run_metrics(stored))
        else:  # every reference run was deleted: this run starts the baseline again
            judgement = reference_judgement(name, drive, (run.run_id,))
    add_finding(conn, run.run_id, BASELINE, "verdict", judgement.body(), time.time())
    return judgement


def _reference_metrics(
    conn: sqlite3.Connection, run_ids: tuple[int, ...]
) -> tuple[tuple[int, ...], list[tuple[MetricSamples, ...]]]:
    """The reference runs still in the store, and their metrics."""
    found = [(i, s) for i, s in ((i, read_run(conn, i)) for i in run_ids) if s is not None]
    return tuple(i for i, _ in found), [run_metrics(s) for _, s in found]


def with_judgement(stored: StoredRun, judgement: BaselineJudgement | None) -> StoredRun:
    """The run with the baseline judgement just made and stored, as it was made."""
    if judgement is None:
        return stored
    return replace(stored, findings={**stored.findings, BASELINE: judgement.body()})


def regressed(request: BaselineRequest | None, judgement: BaselineJudgement | None) -> bool:
    """Whether the command fails for this judgement: --fail-on-regression and a regression."""
    return (
        request is not None
        and request.fail_on_regression
        and judgement is not None
        and bool(judgement.regressions)
    )
