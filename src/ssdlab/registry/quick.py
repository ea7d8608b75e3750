"""The `quick` suite (`ssdlab quick`): its option table (from profiles/quick.toml), planner and
report. It stores no verdicts: its numbers are the best of the measured passes, with their
spread, read from the stored passes by the report."""

from functools import cache

from ssdlab.model.profile import ProfileResults
from ssdlab.model.run import RunKind
from ssdlab.profiles.quick import SPEC
from ssdlab.registry.record import ProfileParts, ProfileRecord
from ssdlab.report.document import Document


@cache
def _parts() -> ProfileParts:
    from ssdlab.plan.quick import plan_quick_run

    return ProfileParts(
        plan=plan_quick_run, analyse=None, build_document=_build_document, read_facts=None
    )


def _build_document(results: ProfileResults) -> Document:
    from ssdlab.report.quick import build_quick_report
    from ssdlab.report.quick_document import build_quick_document

    return build_quick_document(build_quick_report(results.run, results.steps, results.health))


RECORDS = (ProfileRecord(SPEC, _parts, rank=-1, run_kind=RunKind.QUICK),)
