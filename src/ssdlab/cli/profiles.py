"""The profiles `ssdlab run` knows, each bound to its planner, facts, analysis and report.

Each entry names functions as 'module:function' and is imported only when used, so the
command line starts fast; every profile's option table (profiles/<name>.py) is small data.
"""

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ssdlab.model.profile import PlanTarget, ProfilePlan, ProfileResults, ProfileSpec, Settings
from ssdlab.model.step import StepResult
from ssdlab.model.target import Target
from ssdlab.report.document import Document
from ssdlab.system.process import ProcessRunner

Planner = Callable[[Settings, PlanTarget], ProfilePlan]
Analyser = Callable[
    [ProfilePlan, Sequence[StepResult], Mapping[str, Any], Mapping[int, str]], Mapping[str, Any]
]
DocumentBuilder = Callable[[ProfileResults], Document]
FactsReader = Callable[[Target, ProcessRunner], tuple[dict[str, Any], tuple[Any, ...]]]


@dataclass(frozen=True, slots=True)
class Binding:
    spec: str  # module with SPEC
    plan: str
    analyse: str
    document: str
    facts: str | None = "ssdlab.system.targetfacts:read_target_facts"


PROFILES: dict[str, Binding] = {
    "align": Binding(
        "ssdlab.profiles.align",
        "ssdlab.plan.align:plan_align",
        "ssdlab.report.align:analyse_align",
        "ssdlab.report.align:build_align_document",
    ),
}


def _load(reference: str) -> Any:
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def spec_of(name: str) -> ProfileSpec:
    return cast(ProfileSpec, _load(PROFILES[name].spec + ":SPEC"))


def planner_of(name: str) -> Planner:
    return cast(Planner, _load(PROFILES[name].plan))


def analyser_of(name: str) -> Analyser:
    return cast(Analyser, _load(PROFILES[name].analyse))


def document_builder_of(name: str) -> DocumentBuilder:
    return cast(DocumentBuilder, _load(PROFILES[name].document))


def facts_reader_of(name: str) -> FactsReader | None:
    reference = PROFILES[name].facts
    return None if reference is None else cast(FactsReader, _load(reference))
