"""The `fill` profile: its option table, planner, analysis and report."""

from functools import cache

from ssdlab.profiles.fill import SPEC
from ssdlab.registry.record import ProfileParts, ProfileRecord


@cache
def _parts() -> ProfileParts:
    from ssdlab.analysis.profiles.fill import analyse_fill
    from ssdlab.plan.fill import plan_fill
    from ssdlab.report.fill import build_fill_document
    from ssdlab.system.targetfacts import read_target_facts

    return ProfileParts(
        plan=plan_fill,
        analyse=analyse_fill,
        build_document=build_fill_document,
        read_facts=read_target_facts,
    )


RECORDS = (ProfileRecord(SPEC, _parts, rank=5),)
