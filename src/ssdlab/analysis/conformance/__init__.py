"""A drive held against the OCP Datacenter NVMe SSD Specification v2.0, by requirement ID.

Each requirement is one record (`Requirement`: ID, title, section, the evidence it needs, a pure
check); the groups are modules of their own (`smart_log`: C0h, `identify`: Identify Controller,
`logs`: the SMART / Health log, `thermal`, `latency_monitor`: C3h, `qos`: stored `qos` runs).
`check_drive` answers every one from a `DriveEvidence`; docs/conformance.md explains each.
"""

from ssdlab.analysis.conformance import identify, latency_monitor, logs, qos, smart_log, thermal
from ssdlab.analysis.conformance.requirement import Requirement
from ssdlab.model.conformance import DriveEvidence, RequirementResult

REQUIREMENTS: tuple[Requirement, ...] = (
    *smart_log.REQUIREMENTS,
    *latency_monitor.REQUIREMENTS,
    *logs.REQUIREMENTS,
    *identify.REQUIREMENTS,
    *thermal.REQUIREMENTS,
    *qos.REQUIREMENTS,
)


def check_drive(evidence: DriveEvidence) -> tuple[RequirementResult, ...]:
    """Every requirement answered, in the order of REQUIREMENTS."""
    return tuple(requirement.answer(evidence) for requirement in REQUIREMENTS)


def automated_ids() -> tuple[str, ...]:
    """The requirement IDs with a real check (App. A.2.1 carries no ID and is left out)."""
    return tuple(
        r.requirement for r in REQUIREMENTS if r.automated and r.requirement != qos.APPENDIX_A
    )
