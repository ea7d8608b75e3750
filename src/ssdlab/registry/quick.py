"""The `quick` suite (`ssdlab quick`): its option table (from profiles/quick.toml), planner and
report, and the record of its runs, runs of passes (registry/passes.py). It stores no
verdicts: its numbers are the best of the measured passes, with their spread, read from the
stored passes by the report."""

from functools import cache

from ssdlab.model.run import RunKind
from ssdlab.profiles.quick import SPEC
from ssdlab.registry.kind import KindRecord
from ssdlab.registry.passes import passes_parts
from ssdlab.registry.record import ProfileParts, ProfileRecord


@cache
def _parts() -> ProfileParts:
    from ssdlab.plan.quick import plan_quick_run

    return ProfileParts(plan=plan_quick_run, analyse=None, build_document=None, read_facts=None)


RECORDS = (
    ProfileRecord(SPEC, _parts, rank=-1, run_kind=RunKind.QUICK),
    KindRecord(
        "quick",
        RunKind.QUICK,
        passes_parts,
        main_table="passes",
        passes=True,
        card=True,
        family="quick",
    ),
)
