"""Runs of health samples: `ssdlab health` of a drive, a `watch` series, and `ssdlab health`
of a saved file or log (stored as an import). Their document is the health report (the drive,
its wear and the life projection, rated by the drive's spec sheet when one matches); `show`
and `export` give them as runs of passes (with none), as they always have."""

from collections.abc import Sequence

from ssdlab.model.run import RunKind
from ssdlab.model.spec import SpecSheet
from ssdlab.model.stored_run import StoredRun
from ssdlab.registry.kind import KindParts, KindRecord
from ssdlab.report.document import Document


def health_document(stored: StoredRun, specs: Sequence[SpecSheet]) -> Document:
    from ssdlab.analysis.spec_match import match_spec, rated_endurance
    from ssdlab.report.health_document import build_health_document

    samples = [sample for _phase, sample in stored.health]
    identity = samples[-1].identity if samples else None
    spec = None if identity is None else match_spec(identity.model, identity.capacity_bytes, specs)
    return build_health_document(stored.run, samples, rated_endurance(spec))


def health_parts() -> KindParts:
    from ssdlab.registry.passes import passes_parts

    passes = passes_parts()  # shown and exported as runs of passes (with none), as ever
    return KindParts(document=health_document, shown=passes.shown, texts=passes.texts)


RECORDS = (
    KindRecord("health", RunKind.HEALTH, health_parts, main_table="health"),
    KindRecord("watch", RunKind.WATCH, health_parts, main_table="health"),
)
