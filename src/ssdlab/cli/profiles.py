"""The profiles `ssdlab run` knows, each bound to its planner, facts, analysis and report.

Each entry names functions as 'module:function' and is imported only when used, so the
command line starts fast; every profile's option table (profiles/<name>.py) is small data.
"""

import importlib
import importlib.util
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


def _binding(name: str) -> Binding:
    """The conventional binding: profiles/<name>.py holds SPEC, plan/<name>.py plan_<name>,
    report/<name>.py analyse_<name> and build_<name>_document."""
    module = name.replace("-", "_")
    return Binding(
        f"ssdlab.profiles.{module}",
        f"ssdlab.plan.{module}:plan_{module}",
        f"ssdlab.report.{module}:analyse_{module}",
        f"ssdlab.report.{module}:build_{module}_document",
    )


PROFILE_NAMES = ("cache", "align", "sweep", "cachefit", "trim", "fill")
PROFILES: dict[str, Binding] = {
    name: _binding(name)
    for name in PROFILE_NAMES
    if importlib.util.find_spec(f"ssdlab.profiles.{name}") is not None
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
