"""Fitted drive models (`ssdlab model fit RUN…`, stored as runs of kind `sim`, profile
`model-fit`): read back as the fit's document, from its `model-fit` finding."""

from collections.abc import Sequence

from ssdlab.model.run import RunKind
from ssdlab.model.spec import SpecSheet
from ssdlab.model.stored_run import StoredRun
from ssdlab.registry.kind import KindParts, KindRecord
from ssdlab.report.document import Document

MODEL_FIT_PROFILE = "model-fit"


def fit_document(stored: StoredRun, _specs: Sequence[SpecSheet] = ()) -> Document:
    """The stored fit's document (the same `ssdlab model fit` printed)."""
    from ssdlab.report.model_fit import build_fit_document

    body = stored.findings.get("model-fit")
    if body is None:
        run = stored.run
        return Document(
            title=f"ssdlab run {run.run_id}: model fit",
            headline=(("run", f"{run.run_id} ({run.status.value})"),),
            sections=(),
            verdict=(f"the fit was not stored ({run.status_reason or run.status.value})",),
            data={"format": "ssdlab-model-fit", "format_version": 1, "run": {"id": run.run_id}},
        )
    return build_fit_document(body)


RECORDS = (
    KindRecord(
        "model fit",
        RunKind.SIM,
        lambda: KindParts(fit_document),
        profiles=(MODEL_FIT_PROFILE,),
    ),
)
