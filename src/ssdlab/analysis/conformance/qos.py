"""Latency QoS (OCP Datacenter NVMe SSD Spec v2.0 §4.7 CTO-3, §4.10 TRIM-6/7, App. A.2.1) as
stored `qos` runs judged them (analysis/profiles/qos.py, docs/qos.md): a requirement passes
when every target of it passed in the runs given, fails when any failed, and is inconclusive
otherwise. Without such a run it cannot be checked, and the reason names the run to make."""

import re
from collections.abc import Callable

from ssdlab.analysis.conformance.requirement import (
    Answer,
    Requirement,
    failed,
    inconclusive,
    not_checkable,
    passed,
)
from ssdlab.model.conformance import DriveEvidence, Evidence

GROUP = "Latency QoS"
APPENDIX_A = "App. A.2.1"
_ID = re.compile(r"\b(CTO-\d+|TRIM-\d+)\b")


def requirement_of(source: str) -> str:
    """The requirement a stored target's source names: 'CTO-3', 'TRIM-6', or App. A.2.1 for
    a FioSynth workload target (which carries no requirement ID)."""
    found = _ID.search(source)
    if found:
        return found[1]
    return APPENDIX_A if "A.2.1" in source else source


def _judged(requirement: str, workload: str) -> Callable[[DriveEvidence], Answer]:
    def check(evidence: DriveEvidence) -> Answer:
        items = [q for q in evidence.qos if q.requirement == requirement]
        if not items:
            given = (
                f"the runs given ({', '.join(str(r) for r in evidence.qos_runs)}) judged none "
                "of its targets"
                if evidence.qos_runs
                else "no qos run was given"
            )
            return not_checkable(
                f"{given}: run `ssdlab run qos TARGET --workload {workload}` and give its id "
                "with --run"
            )
        shown = tuple(
            Evidence(f"{q.check}", f"{q.outcome}: {q.sentence}", f"run {q.run_id} ({q.workload})")
            for q in items
        )
        outcomes = [q.outcome for q in items]
        counted = f"{outcomes.count('pass')} of {len(items)} target(s) passed"
        if "fail" in outcomes:
            return failed(f"{outcomes.count('fail')} of {len(items)} target(s) failed", *shown)
        if all(o == "pass" for o in outcomes):
            return passed(counted, *shown)
        return inconclusive(counted + "; the others could not be decided", *shown)

    return check


def _record(requirement: str, title: str, section: str, workload: str) -> Requirement:
    return Requirement(
        requirement,
        title,
        section,
        GROUP,
        f"a stored `ssdlab run qos --workload {workload}` run (--run)",
        _judged(requirement, workload),
    )


REQUIREMENTS: tuple[Requirement, ...] = (
    _record(
        "CTO-3",
        "QD1 I/O within 8 s; at most 7 I/Os over 2 s in an hour",
        "§4.7",
        "CTO-3",
    ),
    _record(
        "TRIM-6",
        "Read latency within 5 % of baseline while the host trims",
        "§4.10",
        "TRIM-6-7",
    ),
    _record(
        "TRIM-7",
        "Read latency within 5 % of baseline while the drive runs idle GC",
        "§4.10",
        "TRIM-6-7",
    ),
    _record(
        APPENDIX_A,
        "FioSynth workload latency targets (4K_L2R6DWPD_wTRIM …)",
        "App. A.2.1",
        "4K_L2R6DWPD_wTRIM",
    ),
)
