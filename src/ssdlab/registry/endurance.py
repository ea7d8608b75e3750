"""The `endurance` profile: its option table, planner, analysis and report (with where the run
stands, made from its stored iterations and health samples)."""

from functools import cache

from ssdlab.model.profile import ProfileResults
from ssdlab.profiles.endurance import SPEC
from ssdlab.registry.record import ProfileParts, ProfileRecord
from ssdlab.report.document import Document


@cache
def _parts() -> ProfileParts:
    from ssdlab.analysis.profiles.endurance import analyse_endurance
    from ssdlab.plan.endurance import plan_endurance
    from ssdlab.system.targetfacts import read_target_facts

    return ProfileParts(
        plan=plan_endurance,
        analyse=analyse_endurance,
        build_document=_build_document,
        read_facts=read_target_facts,
    )


def _build_document(results: ProfileResults) -> Document:
    from ssdlab.analysis.profiles.endurance import status_of
    from ssdlab.report.endurance import build_endurance_document

    return build_endurance_document(results, status_of(results))


RECORDS = (ProfileRecord(SPEC, _parts, rank=6),)
