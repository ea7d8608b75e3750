"""A whole stored run, read back in one call (`store/stored_run.read_run`): what every reader
of a run (show, export, report, compare, card, baselines, fleet compare) builds its document
or its metrics from.

The run row, its parsed steps with their series, its findings, its health samples, the
temperatures read during its passes and the wall-clock times of its captures are read at
once; what is heavy, or needed by few readers, is read from the store on first use through
`evidence` (the plan decoded from its JSON, fio's raw outputs, the job files), so showing a
quick run reads no fio output and decodes no plan.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ssdlab.model.finding_names import BASELINE, TARGET_FACTS
from ssdlab.model.health import HealthSample
from ssdlab.model.profile import ProfilePlan, ProfileResults
from ssdlab.model.run import RunRecord
from ssdlab.model.step import StepResult
from ssdlab.model.thermal import TemperatureSample


@dataclass(frozen=True, slots=True)
class JobInput:
    """A job file a tool read (fio's), as stored with its capture."""

    capture_id: int
    tool: str
    text: str


class RunEvidence(Protocol):
    """What a stored run reads from the store only when asked, once."""

    def plan(self) -> ProfilePlan:
        """The plan the run executed (StoreError for a run that executed none)."""
        ...

    def fio_outputs(self) -> Mapping[int, str]:
        """fio's JSON output of every stored step, by capture id."""
        ...

    def job_inputs(self) -> tuple[JobInput, ...]:
        """Every job file of the run's captures, in the order they ran."""
        ...


@dataclass(frozen=True, slots=True)
class StoredRun:
    run: RunRecord
    steps: tuple[StepResult, ...]  # every stored step result, series included, in stored order
    findings: Mapping[str, Mapping[str, Any]]  # stored verdicts and facts, by name
    health: tuple[tuple[str, HealthSample], ...]  # (phase, sample), oldest first
    capture_times: Mapping[int, tuple[float, float]]  # capture id -> (started, ended)
    evidence: RunEvidence
    # the drive's temperatures read each second of a pass, by the pass's capture id (schema 11)
    temperatures: Mapping[int, tuple[TemperatureSample, ...]] = field(default_factory=dict)

    @property
    def run_id(self) -> int:
        return self.run.run_id

    @property
    def facts(self) -> Mapping[str, Any]:
        """What a profile run found about its target when it started ({} when it stored none)."""
        body = self.findings.get(TARGET_FACTS)
        return dict(body) if isinstance(body, Mapping) else {}

    @property
    def baseline(self) -> Mapping[str, Any] | None:
        """The baseline finding of a run made with --baseline NAME (its reference role or its
        judgement), None for any other run."""
        return self.findings.get(BASELINE)

    def profile_results(self) -> ProfileResults:
        """Everything a profile's document is built from: the decoded plan and fio's outputs
        are read here."""
        return ProfileResults(
            run=self.run,
            plan=self.evidence.plan(),
            steps=self.steps,
            facts=self.facts,
            outputs=self.evidence.fio_outputs(),
            health=self.health,
            findings=self.findings,
            capture_times=self.capture_times,
        )
