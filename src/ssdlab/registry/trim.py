"""The `trim` profile: its option table, planner, analysis and report; its report also shows
what the zero-check and fstrim steps printed, read and judged here."""

from functools import cache

from ssdlab.model.profile import ProfileResults
from ssdlab.profiles.trim import SPEC
from ssdlab.registry.record import ProfileParts, ProfileRecord
from ssdlab.report.document import Document

ZERO_CHECK_STEP = "step:zero-check"  # the runner stores a system step's result as step:<key>
FSTRIM_STEP = "step:fstrim"


@cache
def _parts() -> ProfileParts:
    from ssdlab.analysis.profiles.trim import analyse_trim
    from ssdlab.plan.trim import plan_trim
    from ssdlab.system.targetfacts import read_target_facts

    return ProfileParts(
        plan=plan_trim,
        analyse=analyse_trim,
        build_document=_build_document,
        read_facts=read_target_facts,
    )


def _build_document(results: ProfileResults) -> Document:
    from ssdlab.analysis.profiles.trim import fstrim_result, zero_check
    from ssdlab.parse.tool_outputs import fstrim_trimmed_bytes, read_back_of
    from ssdlab.report.trim import build_trim_document

    zero = results.findings.get(ZERO_CHECK_STEP)
    fstrim = results.findings.get(FSTRIM_STEP)
    return build_trim_document(
        results,
        zeroes=zero_check(read_back_of(str(zero.get("stdout", "")))) if zero else None,
        fstrim=(
            fstrim_result(
                fstrim.get("elapsed_s"), fstrim_trimmed_bytes(str(fstrim.get("stdout", "")))
            )
            if fstrim
            else None
        ),
    )


RECORDS = (ProfileRecord(SPEC, _parts, rank=4),)
