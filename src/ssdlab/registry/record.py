"""What a profile is made of, as one typed record: its option table (`spec`, small data, read
to build the command line), and the parts a run or a report needs — planner, facts reader,
round check, analysis and document builder — loaded only when asked for, so that
`ssdlab --help` does not import the planners, analyses and reports of every profile."""

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ssdlab.model.json_fields import dumps
from ssdlab.model.profile import (
    PlanTarget,
    ProfilePlan,
    ProfileResults,
    ProfileSpec,
    RoundLoop,
    RoundVerdict,
    Settings,
)
from ssdlab.model.run import Capture, RunKind, RunStatus
from ssdlab.model.spec import SpecSheet
from ssdlab.model.step import StepResult
from ssdlab.model.stored_run import StoredRun
from ssdlab.model.target import Target
from ssdlab.registry.kind import KindParts, KindRecord
from ssdlab.report.document import Document
from ssdlab.system.process import ProcessRunner

Planner = Callable[[Settings, PlanTarget], ProfilePlan]
Analyser = Callable[
    [ProfilePlan, Sequence[StepResult], Mapping[str, Any], Mapping[int, str]], Mapping[str, Any]
]
DocumentBuilder = Callable[[ProfileResults], Document]
RoundCheck = Callable[[ProfilePlan, RoundLoop, Sequence[StepResult], int], RoundVerdict]
FactsReader = Callable[[Target, ProcessRunner], tuple[dict[str, Any], tuple[Capture, ...]]]


@dataclass(frozen=True, slots=True)
class ProfileParts:
    """The functions of a profile: plan (pure), read the target's facts (system), check a
    round (pure, profiles with round loops), analyse (pure: the verdicts stored as findings)
    and build the document (pure: from the stored findings)."""

    plan: Planner
    analyse: Analyser | None  # None: the profile stores no verdicts (quick: best of N passes)
    # None: the profile's runs are read by a kind record of their own (quick: runs of passes,
    # registry/passes.py)
    build_document: DocumentBuilder | None
    read_facts: FactsReader | None
    check_round: RoundCheck | None = None
    compare_window: int | None = None  # the rounds of a step compared (PTS: the last five)


@dataclass(frozen=True, slots=True)
class ProfileRecord:
    """One profile: `spec` names it; `load` imports and returns its parts (cached by the
    profile's module); `rank` orders the profiles in listings (`ssdlab run --help`); `run_kind`
    is the kind of run it stores: "profile" for the profiles of `ssdlab run`, "quick" for the
    suite `ssdlab quick` runs."""

    spec: ProfileSpec
    load: Callable[[], ProfileParts]
    rank: int
    run_kind: RunKind = RunKind.PROFILE

    @property
    def name(self) -> str:
        return self.spec.name

    def parts(self) -> ProfileParts:
        return self.load()

    def build_document(self, results: ProfileResults) -> Document:
        """The run's document from its stored findings; a run that stopped before its analysis
        (interrupted, failed) has none, so the analysis fills what is missing first."""
        parts = self.load()
        if parts.build_document is None:
            raise TypeError(f"the runs of {self.name} are read by a kind record of their own")
        if results.run.status is not RunStatus.COMPLETE and parts.analyse is not None:
            results = fill_verdicts(results, parts.analyse)
        return parts.build_document(results)

    def kind_record(self) -> KindRecord:
        """The record of the runs this profile makes (`ssdlab run`, `endure`): their document
        built from the stored run, their steps shaped by the stored plan."""
        return KindRecord(
            self.name, self.run_kind, self._kind_parts, profiles=(self.name,), plan_shapes=True
        )

    def _kind_parts(self) -> KindParts:
        def document(stored: StoredRun, _specs: Sequence[SpecSheet]) -> Document:
            return self.build_document(stored.profile_results())

        return KindParts(document=document, window=self.load().compare_window)


def fill_verdicts(results: ProfileResults, analyse: Analyser) -> ProfileResults:
    """`results` with every verdict the analysis makes that is not stored, as the store would
    give it back (its JSON body read back); a stored verdict is kept as stored."""
    found = analyse(results.plan, results.steps, results.facts, results.outputs)
    missing = {
        name: json.loads(dumps(body))
        for name, body in found.items()
        if name not in results.findings
    }
    return replace(results, findings={**results.findings, **missing}) if missing else results
