"""The model on a drive that reports no NAND writes (analysis/model_fit.py, model_predict.py,
model_verify.py): the fit leaves spare and GC class None with the reason and no run to add,
predict evaluates what rests on the spare over the assumed range (`SPARE_PRIOR`) with no
value, and verify holds a measurement against that range but never calls it fitted."""

import pytest

from ssdlab.analysis.model_fit import NO_NAND_COUNTER, FitInputs, GcClass, fit_model
from ssdlab.analysis.model_predict import (
    CLIFF,
    DAYS,
    IOPS,
    POST_CLIFF,
    SPARE_PRIOR,
    WAF,
    Figure,
    Prediction,
    Rating,
    params_of,
    predict,
)
from ssdlab.analysis.model_verify import compare, unverifiable
from ssdlab.app.model_predict import predict_workload
from tests.unit.analysis.test_model_predict import truth_body


def _nandless_body() -> dict:
    """A stored fit of a drive without a NAND counter: the cache run's figures, no spare."""
    body = truth_body(0.12, "greedy", 0.01)
    body["parameters"] = [p for p in body["parameters"] if p["name"] != "spare (of logical)"]
    body["parameters"].append({"name": "spare (of logical)", "value": None,
                               "note": NO_NAND_COUNTER})  # fmt: skip
    body["simulator"].update(gc_policy=None, gc_policy_fitted=None, gc_classes_fitting=[])
    body["nand_counter"] = False
    return body


def test_the_fit_says_the_spare_cannot_be_measured_and_asks_for_no_run() -> None:
    fit = fit_model(FitInputs(target="/dev/sda", capacity_bytes=10**12, nand_counter=False))
    spare, gc = fit.estimate("spare (of logical)"), fit.estimate("GC class")
    assert (spare.value, spare.needs, spare.note) == (None, None, NO_NAND_COUNTER)
    assert (gc.value, gc.needs, gc.note) == (GcClass.UNKNOWN, None, NO_NAND_COUNTER)
    assert fit.nand_counter is False
    # no readings at all (unknown): the endurance run is still the advice
    unknown = fit_model(FitInputs(target="/dev/sda", capacity_bytes=10**12))
    assert "ssdlab run endurance" in (unknown.estimate("spare (of logical)").needs or "")


def test_a_drive_without_nand_counter_predicts_over_the_assumed_spare() -> None:
    params = params_of(_nandless_body())
    assert params.alpha is not None
    assert (params.alpha.low, params.alpha.high) == pytest.approx(
        (1 + SPARE_PRIOR[0], 1 + SPARE_PRIOR[1])
    )
    assert (params.policy, params.other_policy) == ("greedy", "fifo")
    assert params.assumed is not None
    assert "alpha" not in params.missing
    prediction = predict(params, predict_workload("randwrite-4k"), daily_bytes=1e9,
                         rating=Rating(None, 3000.0, "--pe-cycles"))  # fmt: skip
    for name in (WAF, IOPS, DAYS):
        f = prediction.figure(name)
        assert f.value is None, name
        assert f.assumed, name
        assert f.low is not None, name
        assert f.high is not None, name
        assert f.low < f.high, name
        assert f.reason == params.assumed, name
    # 28 % spare writes ~2.5×, 6 % ~10× (uniform 4 KiB over the whole drive, reference/ftl.md)
    waf = prediction.figure(WAF)
    assert waf.low is not None
    assert waf.high is not None
    assert waf.low < 3.0 < 8.0 < waf.high
    for name in (CLIFF, POST_CLIFF):  # from the cache run: fitted as on any drive
        assert prediction.figure(name).value is not None
        assert not prediction.figure(name).assumed


def test_a_fitted_spare_is_not_replaced_by_the_assumption() -> None:
    body = truth_body(0.12, "greedy", 0.01)
    body["nand_counter"] = False  # e.g. the spare given by another source
    params = params_of(body)
    assert params.assumed is None
    assert params.alpha is not None
    assert params.alpha.value == pytest.approx(1.12)


def test_verify_holds_a_measurement_against_an_assumed_range_without_an_error() -> None:
    predicted = Prediction(
        predict_workload("randwrite-4k"),
        (Figure(WAF, "", None, 2.5, 10.0, reason="assumed", assumed=True),
         Figure(IOPS, "IOPS", None, 80.0, 160.0, reason="assumed", assumed=True)),
        (),
        None,
    )  # fmt: skip
    measured = (Figure(WAF, "", None, reason=dict(unverifiable(False))[WAF]),
                Figure(IOPS, "IOPS", 100.0))  # fmt: skip
    rows = {r.name: r for r in compare(predicted, measured)}
    assert rows[IOPS].inside is True
    assert rows[IOPS].error is None
    assert rows[IOPS].relative_error is None
    assert (rows[IOPS].reason or "").startswith("predicted over an assumed range only")
    assert rows[WAF].inside is None
    assert "cannot be verified" in (rows[WAF].reason or "")
    assert {n for n, _ in unverifiable(False)} == {WAF, DAYS}
    assert unverifiable(True) == ()
    assert unverifiable(None) == ()
