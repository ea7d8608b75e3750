"""The `sweep` profile: its option table, planner, analysis and report."""

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from ssdlab.model.profile import ProfilePlan, ProfileResults
from ssdlab.model.step import StepResult
from ssdlab.profiles.sweep import SPEC
from ssdlab.registry.record import ProfileParts, ProfileRecord
from ssdlab.report.document import Document


@cache
def _parts() -> ProfileParts:
    from ssdlab.plan.sweep import plan_sweep
    from ssdlab.system.targetfacts import read_target_facts

    return ProfileParts(
        plan=plan_sweep,
        analyse=_analyse_sweep,
        build_document=_build_document,
        read_facts=read_target_facts,
    )


def _analyse_sweep(
    plan: ProfilePlan,
    steps: Sequence[StepResult],
    facts: Mapping[str, Any],
    outputs: Mapping[int, str],
) -> Mapping[str, Any]:
    """The sweep's verdicts from the clat histograms of its fio outputs."""
    from ssdlab.analysis.profiles.sweep import analyse_sweep
    from ssdlab.parse.fio_histogram import clat_bins_by_capture

    return analyse_sweep(plan, steps, facts, clat_bins_by_capture(outputs))


def _build_document(results: ProfileResults) -> Document:
    """The sweep's document, each cell's tails read from its passes and the json+ bins of their
    fio outputs."""
    from ssdlab.analysis.profiles.sweep import cell_tails
    from ssdlab.parse.fio_histogram import clat_bins_by_capture
    from ssdlab.report.sweep import build_sweep_document

    bins = clat_bins_by_capture(results.outputs)
    return build_sweep_document(results, cell_tails(results.plan, results.steps, bins))


RECORDS = (ProfileRecord(SPEC, _parts, rank=2),)
