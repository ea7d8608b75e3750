"""The conformance report: every requirement of the OCP Datacenter NVMe SSD Specification that
ssdlab checks, grouped as analysis/conformance/ groups them, each with its verdict, the reason
and the evidence it was answered from. The inputs are numbered once ([1], [2], …) and each piece
of evidence names the input it was read from."""

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from ssdlab.model.conformance import DriveEvidence, RequirementResult, Verdict
from ssdlab.report.document import Document, Layout, Section, Table

FORMAT = "ssdlab-conformance"
SPEC = "OCP Datacenter NVMe SSD Specification v2.0"
COLUMNS = ("ID", "requirement", "§", "verdict", "evidence", "why")
_ORDER = (Verdict.FAIL, Verdict.INCONCLUSIVE, Verdict.PASS, Verdict.NOT_CHECKABLE)
SOURCES_NOTE = (
    "each evidence names its input by number (see Inputs); verdicts: pass, fail, inconclusive "
    "(read, but cannot decide), not checkable (the evidence it needs is not there: the reason "
    "says what to give); docs/conformance.md explains every check and its source"
)


def _sources(results: Sequence[RequirementResult], evidence: DriveEvidence) -> list[str]:
    seen: list[str] = list(dict.fromkeys(evidence.sources))
    for result in results:
        for shown in result.evidence:
            if shown.source and shown.source not in seen:
                seen.append(shown.source)
    return seen


def _evidence_cell(result: RequirementResult, numbers: dict[str, int]) -> str:
    parts = []
    for shown in result.evidence:
        where = f" [{numbers[shown.source]}]" if shown.source in numbers else ""
        parts.append(f"{shown.item}: {shown.value}{where}" if shown.item else shown.value + where)
    return "; ".join(parts) or "—"


def _summary(results: Sequence[RequirementResult]) -> dict[str, int]:
    counted = Counter(r.verdict for r in results)
    return {verdict.value: counted.get(verdict, 0) for verdict in _ORDER}


def _verdict_sentences(results: Sequence[RequirementResult]) -> tuple[str, ...]:
    counts = _summary(results)
    failing = [r.requirement for r in results if r.verdict is Verdict.FAIL]
    tally = ", ".join(f"{n} {verdict}" for verdict, n in counts.items())
    if failing:
        return (f"{len(failing)} requirement(s) fail: {', '.join(failing)}", tally)
    return (f"no requirement checked here fails ({tally})",)


def build_conformance_document(
    evidence: DriveEvidence, results: Sequence[RequirementResult], notes: Sequence[str] = ()
) -> Document:
    sources = _sources(results, evidence)
    numbers = {source: index for index, source in enumerate(sources, start=1)}
    sections: list[Section] = []
    groups = list(dict.fromkeys(r.group for r in results))
    for group in groups:
        rows = tuple(
            (
                r.requirement,
                r.title,
                r.section,
                r.verdict.value,
                _evidence_cell(r, numbers),
                r.reason,
            )
            for r in results
            if r.group == group
        )
        sections.append(Section(group, tables=(Table("", COLUMNS, rows),)))
    inputs = tuple((f"[{numbers[s]}]", s) for s in sources)
    sections.append(Section("Inputs", facts=inputs, notes=(*notes, SOURCES_NOTE)))
    counts = _summary(results)
    data: dict[str, Any] = {
        "format": FORMAT,
        "format_version": 1,
        "specification": SPEC,
        "drive": evidence.drive,
        "sources": sources,
        "qos_runs": list(evidence.qos_runs),
        "summary": counts,
        "results": [asdict(r) for r in results],
        "notes": list(notes),
    }
    return Document(
        title=f"{SPEC} conformance: {evidence.drive}",
        headline=(
            ("drive", evidence.drive),
            (
                "requirements",
                f"{len(results)} listed: "
                + ", ".join(f"{n} {verdict}" for verdict, n in counts.items()),
            ),
        ),
        sections=tuple(sections),
        verdict=_verdict_sentences(results),
        data=data,
        layout=Layout.REPORT,
    )
