"""Candidate values of one health metric from several sources, and the choice among them.

Every source smartctl's output offers for a metric (its own derived keys, the NVMe or SCSI logs,
ATA Device Statistics, attributes read by the vendor map or by their drivedb name) becomes a
Candidate with a priority; the highest wins unless a plausibility rule (smart_plausible) sets it
aside.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from ssdlab.model.health import HealthValue

PRIORITY_DERIVED = 0
PRIORITY_SMARTCTL_GUESS = 20
PRIORITY_NAME = 35
"""Attributes read by what their drivedb name states (smart_names): above smartctl's guesses,
below every vendor-map entry (40-50), Device Statistics (40-60) and the logs (80)."""
PRIORITY_SMARTCTL = 55
PRIORITY_SMARTCTL_HOST_IO = 58
PRIORITY_LOG = 80


@dataclass(frozen=True, slots=True)
class Candidate:
    metric: str
    value: HealthValue
    priority: int
    kind: str  # "attribute", "devstat", "smartctl", "log", "derived"


def choose(candidates: Iterable[Candidate]) -> dict[str, Candidate]:
    """The highest-priority candidate of each metric (the first listed among equals)."""
    chosen: dict[str, Candidate] = {}
    for candidate in candidates:
        best = chosen.get(candidate.metric)
        if best is None or candidate.priority > best.priority:
            chosen[candidate.metric] = candidate
    return chosen


def best_of_kind(candidates: Iterable[Candidate], metric: str, kind: str) -> Candidate | None:
    return choose(c for c in candidates if c.metric == metric and c.kind == kind).get(metric)


def source_of(candidate: Candidate) -> str:
    provenance = candidate.value.provenance
    return "?" if provenance is None else provenance.source
