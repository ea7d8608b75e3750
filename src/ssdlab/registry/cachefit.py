"""The `cachefit` profile: its option table, planner, analysis and report."""

from functools import cache

from ssdlab.profiles.cachefit import SPEC
from ssdlab.registry.record import ProfileParts, ProfileRecord


@cache
def _parts() -> ProfileParts:
    from ssdlab.analysis.profiles.cachefit import analyse_cachefit
    from ssdlab.plan.cachefit import plan_cachefit
    from ssdlab.report.cachefit import build_cachefit_document
    from ssdlab.system.targetfacts import read_target_facts

    return ProfileParts(
        plan=plan_cachefit,
        analyse=analyse_cachefit,
        build_document=build_cachefit_document,
        read_facts=read_target_facts,
    )


RECORDS = (ProfileRecord(SPEC, _parts, rank=3),)
