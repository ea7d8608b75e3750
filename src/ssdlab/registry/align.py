"""The `align` profile: its option table, planner, analysis and report."""

from functools import cache

from ssdlab.profiles.align import SPEC
from ssdlab.registry.record import ProfileParts, ProfileRecord


@cache
def _parts() -> ProfileParts:
    from ssdlab.analysis.profiles.align import analyse_align
    from ssdlab.plan.align import plan_align
    from ssdlab.report.align import build_align_document
    from ssdlab.system.targetfacts import read_target_facts

    return ProfileParts(
        plan=plan_align,
        analyse=analyse_align,
        build_document=build_align_document,
        read_facts=read_target_facts,
    )


RECORDS = (ProfileRecord(SPEC, _parts, rank=1),)
