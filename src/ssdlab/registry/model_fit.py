"""Fitted drive models (`ssdlab model fit RUN…`, stored as runs of kind `sim`, profile
`model-fit`), their predictions (`model predict`, profile `model-predict`) and verifications
(`model verify`, profile `model-verify`): each read back as the document it printed, from its
finding of the profile's name."""

from collections.abc import Sequence

from ssdlab.model.run import RunKind
from ssdlab.model.spec import SpecSheet
from ssdlab.model.stored_run import StoredRun
from ssdlab.registry.kind import KindParts, KindRecord
from ssdlab.report.document import Document

MODEL_FIT_PROFILE = "model-fit"
PREDICT_PROFILE = "model-predict"
VERIFY_PROFILE = "model-verify"


def _not_stored(stored: StoredRun, what: str) -> Document:
    run = stored.run
    return Document(
        title=f"ssdlab run {run.run_id}: model {what}",
        headline=(("run", f"{run.run_id} ({run.status.value})"),),
        sections=(),
        verdict=(f"the {what} was not stored ({run.status_reason or run.status.value})",),
        data={"format": f"ssdlab-model-{what}", "format_version": 1, "run": {"id": run.run_id}},
    )


def fit_document(stored: StoredRun, _specs: Sequence[SpecSheet] = ()) -> Document:
    """The stored fit's document (the same `ssdlab model fit` printed)."""
    from ssdlab.report.model_fit import build_fit_document

    body = stored.findings.get("model-fit")
    return _not_stored(stored, "fit") if body is None else build_fit_document(body)


def predict_document(stored: StoredRun, _specs: Sequence[SpecSheet] = ()) -> Document:
    """The stored prediction's document (the same `ssdlab model predict` printed)."""
    from ssdlab.report.model_predict import build_predict_document

    body = stored.findings.get(PREDICT_PROFILE)
    return _not_stored(stored, "predict") if body is None else build_predict_document(body)


def verify_document(stored: StoredRun, _specs: Sequence[SpecSheet] = ()) -> Document:
    """The stored verification's document: prediction, measurement and error side by side."""
    from ssdlab.report.model_predict import build_verify_document

    body = stored.findings.get(VERIFY_PROFILE)
    return _not_stored(stored, "verify") if body is None else build_verify_document(body)


RECORDS = (
    KindRecord(
        "model fit",
        RunKind.SIM,
        lambda: KindParts(fit_document),
        profiles=(MODEL_FIT_PROFILE,),
    ),
    KindRecord(
        "model prediction",
        RunKind.SIM,
        lambda: KindParts(predict_document),
        profiles=(PREDICT_PROFILE,),
    ),
    KindRecord(
        "model verification",
        RunKind.SIM,
        lambda: KindParts(verify_document),
        profiles=(VERIFY_PROFILE,),
    ),
)
