"""The SNIA PTS tests (`pts-iops`, `pts-tp`, `pts-lat`, `pts-wsat`, `pts-hir`, `pts-xsr`): one
option module, one planner module, one analysis with its round check, one report; the report
shows each round loop's stored steady-state verdict and its tracking variables by round."""

from collections.abc import Callable
from functools import cache

from ssdlab.model.profile import ProfileResults
from ssdlab.profiles.pts_options import SPECS
from ssdlab.registry.record import Planner, ProfileParts, ProfileRecord
from ssdlab.report.document import Document

FIRST_RANK = 100  # after the characterisation profiles


def _parts_of(name: str) -> Callable[[], ProfileParts]:
    @cache
    def parts() -> ProfileParts:
        from ssdlab.analysis.profiles.pts import analyse_pts, check_pts_round
        from ssdlab.analysis.run_metrics import PTS_WINDOW_ROUNDS
        from ssdlab.plan import pts
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
            build_document=_build_document,
            read_facts=read_pts_facts,
            check_round=check_pts_round,
            compare_window=PTS_WINDOW_ROUNDS,
        )

    return parts


def _build_document(results: ProfileResults) -> Document:
    """Each loop's steady state as stored (a loop that ran no round has none stored: its
    verdict over no rounds is made here, as the analysis would), then the document."""
    from ssdlab.analysis.profiles.pts import (
        loop_results,
        steady_state_finding,
        steady_verdict,
        tracking_series,
    )
    from ssdlab.analysis.steady_state import SteadyStateVerdict
    from ssdlab.model.json_fields import decode_fields
    from ssdlab.report.pts import LoopRounds, build_pts_document

    plan, steps = results.plan, results.steps
    loops = []
    for loop in plan.loops:
        rounds = max((s.round_index for s in loop_results(loop, steps)), default=0)
        stored = results.findings.get(steady_state_finding(loop))
        steady = (
            decode_fields(SteadyStateVerdict, {k: v for k, v in stored.items() if k != "loop"})
            if stored is not None
            else steady_verdict(plan, loop, steps, rounds)
        )
        loops.append(LoopRounds(steady, tracking_series(loop, steps, rounds)))
    return build_pts_document(results, loops)


RECORDS = tuple(
    ProfileRecord(spec, _parts_of(name), rank=FIRST_RANK + index)
    for index, (name, spec) in enumerate(SPECS.items())
)
