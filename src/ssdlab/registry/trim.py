"""The `trim` profile: its option table, planner, analysis and report."""

from functools import cache

from ssdlab.profiles.trim import SPEC
from ssdlab.registry.record import ProfileParts, ProfileRecord


@cache
def _parts() -> ProfileParts:
    from ssdlab.analysis.profiles.trim import analyse_trim
    from ssdlab.plan.trim import plan_trim
    from ssdlab.report.trim import build_trim_document
    from ssdlab.system.targetfacts import read_target_facts

    return ProfileParts(
        plan=plan_trim,
        analyse=analyse_trim,
        build_document=build_trim_document,
        read_facts=read_target_facts,
    )


RECORDS = (ProfileRecord(SPEC, _parts, rank=4),)
