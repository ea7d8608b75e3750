"""The `endurance` profile: its option table, planner, analysis and report."""

from functools import cache

from ssdlab.profiles.endurance import SPEC
from ssdlab.registry.record import ProfileParts, ProfileRecord


@cache
def _parts() -> ProfileParts:
    from ssdlab.analysis.profiles.endurance import analyse_endurance
    from ssdlab.plan.endurance import plan_endurance
    from ssdlab.report.endurance import build_endurance_document
    from ssdlab.system.targetfacts import read_target_facts

    return ProfileParts(
        plan=plan_endurance,
        analyse=analyse_endurance,
        build_document=build_endurance_document,
        read_facts=read_target_facts,
    )


RECORDS = (ProfileRecord(SPEC, _parts, rank=6),)
