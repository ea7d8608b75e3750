"""The SNIA PTS tests (`pts-iops`, `pts-tp`, `pts-lat`, `pts-wsat`, `pts-hir`, `pts-xsr`): one
option module, one planner module, one analysis with its round check, one report."""

from collections.abc import Callable
from functools import cache

from ssdlab.profiles.pts_options import SPECS
from ssdlab.registry.record import Planner, ProfileParts, ProfileRecord

FIRST_RANK = 100  # after the characterisation profiles


def _parts_of(name: str) -> Callable[[], ProfileParts]:
    @cache
    def parts() -> ProfileParts:
        from ssdlab.analysis.profiles.pts import analyse_pts, check_pts_round
        from ssdlab.plan import pts
        from ssdlab.report.pts import build_pts_document
        from ssdlab.system.purge import read_pts_facts

        planners: dict[str, Planner] = {
            "pts-iops": pts.plan_pts_iops,
            "pts-tp": pts.plan_pts_tp,
            "pts-lat": pts.plan_pts_lat,
            "pts-wsat": pts.plan_pts_wsat,
            "pts-hir": pts.plan_pts_hir,
            "pts-xsr": pts.plan_pts_xsr,
        }
        return ProfileParts(
            plan=planners[name],
            analyse=analyse_pts,
            build_document=build_pts_document,
            read_facts=read_pts_facts,
            check_round=check_pts_round,
        )

    return parts


RECORDS = tuple(
    ProfileRecord(spec, _parts_of(name), rank=FIRST_RANK + index)
    for index, (name, spec) in enumerate(SPECS.items())
)
