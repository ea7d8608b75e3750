"""The `qos` profile: its option table, planner, analysis (from the json+ histograms of its
fio output) and report."""

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from ssdlab.model.profile import ProfilePlan
from ssdlab.model.step import StepResult
from ssdlab.profiles.qos import SPEC
from ssdlab.registry.record import ProfileParts, ProfileRecord


@cache
def _parts() -> ProfileParts:
    from ssdlab.plan.qos import plan_qos
    from ssdlab.report.qos import build_qos_document
    from ssdlab.system.targetfacts import read_target_facts

    return ProfileParts(
        plan=plan_qos,
        analyse=_analyse_qos,
        build_document=build_qos_document,
        read_facts=read_target_facts,
    )


def _analyse_qos(
    plan: ProfilePlan,
    steps: Sequence[StepResult],
    facts: Mapping[str, Any],
    outputs: Mapping[int, str],
) -> Mapping[str, Any]:
    from ssdlab.analysis.profiles.qos import analyse_qos
    from ssdlab.parse.fio_histogram import clat_by_direction

    clat = {capture: clat_by_direction(text) for capture, text in outputs.items()}
    return analyse_qos(plan, steps, facts, clat)


RECORDS = (ProfileRecord(SPEC, _parts, rank=12),)
