"""The profiles `ssdlab run` knows, each bound to its planner, facts, analysis and report.

Each entry names functions as 'module:function' and is imported only when used, so the
command line starts fast; every profile's option table (profiles/<name>.py) is small data.
"""

import importlib
import importlib.util
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ssdlab.model.profile import (
    PlanTarget,
    ProfilePlan,
    ProfileResults,
    ProfileSpec,
    RoundLoop,
    RoundVerdict,
    Settings,
)
from ssdlab.model.step import StepResult
from ssdlab.model.target import Target
from ssdlab.report.document import Document
from ssdlab.system.process import ProcessRunner

Planner = Callable[[Settings, PlanTarget], ProfilePlan]
Analyser = Callable[
    [ProfilePlan, Sequence[StepResult], Mapping[str, Any], Mapping[int, str]], Mapping[str, Any]
]
DocumentBuilder = Callable[[ProfileResults], Document]
RoundCheck = Callable[[ProfilePlan, RoundLoop, Sequence[StepResult], int], RoundVerdict]
FactsReader = Callable[[Target, ProcessRunner], tuple[dict[str, Any], tuple[Any, ...]]]


@dataclass(frozen=True, slots=True)
class Binding:
    spec: str  # 'module:NAME' of the ProfileSpec, or of a dict of them keyed by profile name
    plan: str
    analyse: str
    document: str
    facts: str | None = "ssdlab.system.targetfacts:read_target_facts"
    round_check: str | None = None  # profiles with round loops: stop after this round?


def _binding(name: str) -> Binding:
    """The conventional binding: profiles/<name>.py holds SPEC, plan/<name>.py plan_<name>,
    report/<name>.py analyse_<name> and build_<name>_document."""
    module = name.replace("-", "_")
    return Binding(
        f"ssdlab.profiles.{module}:SPEC",
        f"ssdlab.plan.{module}:plan_{module}",
        f"ssdlab.report.{module}:analyse_{module}",
        f"ssdlab.report.{module}:build_{module}_document",
    )


def _pts_binding(name: str) -> Binding:
    """The SNIA PTS tests share one option module, planner module and report module."""
    module = name.replace("-", "_")
    return Binding(
        "ssdlab.profiles.pts_options:SPECS",
        f"ssdlab.plan.pts:plan_{module}",
        "ssdlab.report.pts:analyse_pts",
        "ssdlab.report.pts:build_pts_document",
        facts="ssdlab.system.purge:read_pts_facts",
        round_check="ssdlab.report.pts:check_pts_round",
    )


PROFILE_NAMES = ("cache", "align", "sweep", "cachefit", "trim", "fill", "endurance")
PTS_NAMES = ("pts-iops", "pts-tp", "pts-lat", "pts-wsat", "pts-hir", "pts-xsr")
PROFILES: dict[str, Binding] = {
    **{
        name: _binding(name)
        for name in PROFILE_NAMES
        if importlib.util.find_spec(f"ssdlab.profiles.{name}") is not None
    },
    **{
        name: _pts_binding(name)
        for name in PTS_NAMES
        if importlib.util.find_spec("ssdlab.report.pts") is not None
    },
}


def _load(reference: str) -> Any:
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def spec_of(name: str) -> ProfileSpec:
    value = _load(PROFILES[name].spec)
    return cast(ProfileSpec, value[name] if isinstance(value, dict) else value)


def planner_of(name: str) -> Planner:
    return cast(Planner, _load(PROFILES[name].plan))


def analyser_of(name: str) -> Analyser:
    return cast(Analyser, _load(PROFILES[name].analyse))


def document_builder_of(name: str) -> DocumentBuilder:
    return cast(DocumentBuilder, _load(PROFILES[name].document))


def round_check_of(name: str) -> RoundCheck | None:
    reference = PROFILES[name].round_check
    return None if reference is None else cast(RoundCheck, _load(reference))


def facts_reader_of(name: str) -> FactsReader | None:
    reference = PROFILES[name].facts
    return None if reference is None else cast(FactsReader, _load(reference))
