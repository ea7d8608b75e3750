"""Named per-drive baselines of quick runs (`ssdlab quick --baseline NAME`): which stored runs
are the reference of a name and drive, and how a new run is judged against them.

Every run made with `--baseline NAME` stores a `baseline` finding (model/finding_names.py).
Its role is `reference` (the run is, or joins, the reference set) or `judged` (the run was
compared with the reference set); `reference_run_ids` is the set in force after the run. The
current reference set of a name and drive is therefore the `reference_run_ids` of its latest
finding with role `reference`: the first run with a name becomes the reference, a reset
(`--baseline-reset`) starts a new set with the run alone, an addition (`--baseline-add`)
appends the run to the set.

Judging is `compare_runs` (Welch's t-test on the passes and the practical threshold), never
a fixed percentage. The threshold is the target a test is held to: its outcome is *fail* when
the whole interval of the change (at level 1 − alpha) is worse than the threshold,
*pass* when none of it is, *inconclusive* when it straddles the threshold; with one pass a side
(no interval) the measured change decides, marked untested. A test is a regression when it
fails. Several reference runs pool their passes: each metric's reference samples
are the passes of every reference run together. Differences between the reference runs (a
warmer day, another file placement) then widen the reference spread, so a new run has to
fall outside the noise of all of them to count as a regression.
"""

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from ssdlab.analysis.compare import (
    DEFAULT_ALPHA,
    DEFAULT_THRESHOLD_PCT,
    Change,
    FailRule,
    MetricSamples,
    Verdict,
    compare_runs,
    gate_outcome,
)
from ssdlab.analysis.intervals import Interval
from ssdlab.analysis.verdict_state import Outcome
from ssdlab.model.json_fields import encode


class BaselineRole(StrEnum):
    REFERENCE = "reference"
    JUDGED = "judged"


class BaselineAction(StrEnum):
    JUDGE = "judge"  # judged against the reference (the first run of a name becomes it)
    RESET = "reset"  # this run alone is the new reference
    ADD = "add"  # this run joins the reference set


@dataclass(frozen=True, slots=True)
class StoredBaseline:
    """The baseline finding of one earlier run, as stored."""

    run_id: int
    body: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class BaselineTest:
    key: str
    label: str
    verdict: str  # a Verdict value
    change_pct: float | None
    p_value: float | None
    regression: bool  # the outcome is fail
    outcome: str | None = None  # pass | fail | inconclusive against the threshold
    ratio_interval: Interval | None = None  # of new ÷ reference


@dataclass(frozen=True, slots=True)
class BaselineJudgement:
    """The body of the `baseline` finding of a run."""

    name: str
    drive: str
    role: str  # a BaselineRole value
    reference_run_ids: tuple[int, ...]
    tests: tuple[BaselineTest, ...] = ()

    @property
    def regressions(self) -> tuple[BaselineTest, ...]:
        return tuple(t for t in self.tests if t.regression)

    def body(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "drive": self.drive,
            "role": self.role,
            "reference_run_ids": list(self.reference_run_ids),
            "tests": [
                {
                    "key": t.key,
                    "label": t.label,
                    "verdict": t.verdict,
                    "change_pct": t.change_pct,
                    "p_value": t.p_value,
                    "regression": t.regression,
                    "outcome": t.outcome,
                    "ratio_interval": encode(t.ratio_interval),
                }
                for t in self.tests
            ],
        }


def reference_set(stored: Sequence[StoredBaseline], name: str, drive: str) -> tuple[int, ...]:
    """The reference runs of `name` on `drive`: the set named by its latest reference finding
    (by run id); () when the name has no reference on this drive yet."""
    references = [
        s
        for s in stored
        if s.body.get("name") == name
        and s.body.get("drive") == drive
        and s.body.get("role") == BaselineRole.REFERENCE.value
    ]
    if not references:
        return ()
    latest = max(references, key=lambda s: s.run_id)
    ids = latest.body.get("reference_run_ids")
    if not isinstance(ids, list) or not ids:
        return (latest.run_id,)
    return tuple(int(i) for i in ids)


def plan_role(
    stored: Sequence[StoredBaseline], name: str, drive: str, run_id: int, action: BaselineAction
) -> tuple[BaselineRole, tuple[int, ...]]:
    """(this run's role, the reference runs after it): a reference role carries the new set
    (this run included), a judged role the set it is judged against."""
    current = tuple(i for i in reference_set(stored, name, drive) if i != run_id)
    if action is BaselineAction.RESET or not current:
        return BaselineRole.REFERENCE, (run_id,)
    if action is BaselineAction.ADD:
        return BaselineRole.REFERENCE, (*current, run_id)
    return BaselineRole.JUDGED, current


def pooled(references: Sequence[Sequence[MetricSamples]]) -> tuple[MetricSamples, ...]:
    """The reference runs' metrics with every run's passes of a metric together, in the first
    run's order (metrics only later runs have are appended)."""
    by_key: dict[str, MetricSamples] = {}
    for metrics in references:
        for metric in metrics:
            known = by_key.get(metric.key)
            by_key[metric.key] = (
                metric if known is None else replace(known, values=known.values + metric.values)
            )
    return tuple(by_key.values())


def _test(change: Change, threshold_pct: float) -> BaselineTest:
    """A test against the reference: its outcome as a rule of a fall (a rise, for a latency) by
    more than the threshold would judge it; a metric the new run lacks is not judged."""
    limit = -threshold_pct if change.higher_is_better else threshold_pct
    outcome = None
    if change.verdict is not Verdict.MISSING:
        outcome = gate_outcome(FailRule(change.key, limit), change)
    return BaselineTest(
        key=change.key,
        label=change.label,
        verdict=change.verdict.value,
        change_pct=change.change_pct,
        p_value=change.p_value,
        regression=outcome is Outcome.FAIL and change.ratio_interval is not None,
        outcome=None if outcome is None else outcome.value,
        ratio_interval=change.ratio_interval,
    )


def judge(
    name: str,
    drive: str,
    reference_run_ids: Sequence[int],
    references: Sequence[Sequence[MetricSamples]],
    run_id: int,
    metrics: Sequence[MetricSamples],
    *,
    threshold_pct: float = DEFAULT_THRESHOLD_PCT,
    alpha: float = DEFAULT_ALPHA,
) -> BaselineJudgement:
    """A run judged against its reference runs' pooled passes, metric by metric."""
    comparison = compare_runs(
        reference_run_ids[0] if reference_run_ids else 0,
        pooled(references),
        run_id,
        metrics,
        threshold_pct=threshold_pct,
        alpha=alpha,
    )
    return BaselineJudgement(
        name,
        drive,
        BaselineRole.JUDGED.value,
        tuple(reference_run_ids),
        tuple(_test(c, threshold_pct) for c in comparison.changes),
    )


def reference_judgement(
    name: str, drive: str, reference_run_ids: Sequence[int]
) -> BaselineJudgement:
    return BaselineJudgement(name, drive, BaselineRole.REFERENCE.value, tuple(reference_run_ids))


def drive_key(target: Mapping[str, object], target_path: str) -> tuple[str, bool]:
    """(the drive's key, whether it is the device serial): the serial when the target has a
    device identity with one (a device, or the device under a file's filesystem), else the
    target's path: a device node, a test file, or for a test file ssdlab made in a folder
    (a new name each run) that folder."""
    device = target.get("device")
    if isinstance(device, Mapping):
        serial = device.get("serial")
        if isinstance(serial, str) and serial.strip():
            return serial.strip(), True
    if target.get("kind") == "file" and target.get("created_file") is True:
        return posixpath.dirname(target_path) or target_path, False
    return target_path, False
