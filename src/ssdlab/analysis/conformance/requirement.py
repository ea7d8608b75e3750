"""One requirement of the OCP Datacenter NVMe SSD Specification as a record: its ID, title and
section, the evidence it needs, and the pure check that answers it from a `DriveEvidence`."""

from collections.abc import Callable
from dataclasses import dataclass

from ssdlab.model.conformance import DriveEvidence, Evidence, RequirementResult, Verdict


@dataclass(frozen=True, slots=True)
class Answer:
    verdict: Verdict
    reason: str
    evidence: tuple[Evidence, ...] = ()


Check = Callable[[DriveEvidence], Answer]


@dataclass(frozen=True, slots=True)
class Requirement:
    """`automated`: False for a requirement listed so that the report says why it is not
    checked (it needs evidence ssdlab does not gather yet); its check then always answers
    *not checkable*."""

    requirement: str
    title: str
    section: str
    group: str
    needs: str
    check: Check
    automated: bool = True

    def answer(self, evidence: DriveEvidence) -> RequirementResult:
        found = self.check(evidence)
        return RequirementResult(
            self.requirement,
            self.title,
            self.section,
            self.group,
            found.verdict,
            found.reason,
            found.evidence,
        )


def passed(reason: str, *evidence: Evidence) -> Answer:
    return Answer(Verdict.PASS, reason, evidence)


def failed(reason: str, *evidence: Evidence) -> Answer:
    return Answer(Verdict.FAIL, reason, evidence)


def inconclusive(reason: str, *evidence: Evidence) -> Answer:
    return Answer(Verdict.INCONCLUSIVE, reason, evidence)


def not_checkable(reason: str, *evidence: Evidence) -> Answer:
    return Answer(Verdict.NOT_CHECKABLE, reason, evidence)


def judged(ok: bool, reason: str, *evidence: Evidence) -> Answer:
    """Pass when `ok`, else fail, with one reason."""
    return Answer(Verdict.PASS if ok else Verdict.FAIL, reason, evidence)
