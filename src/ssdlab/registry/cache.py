"""The `cache` profile: its option table, planner, analysis and report."""

from functools import cache

from ssdlab.profiles.cache import SPEC
from ssdlab.registry.record import ProfileParts, ProfileRecord


@cache
def _parts() -> ProfileParts:
    from ssdlab.analysis.profiles.cache import analyse_cache
    from ssdlab.plan.cache import plan_cache
    from ssdlab.report.cache import build_cache_document
    from ssdlab.system.targetfacts import read_target_facts

    return ProfileParts(
        plan=plan_cache,
        analyse=analyse_cache,
        build_document=build_cache_document,
        read_facts=read_target_facts,
    )


RECORDS = (ProfileRecord(SPEC, _parts, rank=0),)
