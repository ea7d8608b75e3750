"""`ssdlab model predict` and `model verify` on the store an earlier ssdlab wrote
(tests/data/store/main-98b38bc.sqlite, as tests/unit/app/test_model_fit.py reads it): a fit
from a cache run without its log and an endurance run of replayed health predicts nothing,
each figure saying why and what run to add; predictions and verifications are runs linked to
the model and read back as printed; 'last' is the newest fit; runs it cannot read are refused.
A prediction verified against a drive with known internals: tests/e2e/test_model_fit.py."""

import sqlite3

import pytest

from ssdlab.app.model_fit import FitRequest, fit_runs
from ssdlab.app.model_predict import (
    PredictRequest,
    RatingRequest,
    VerifyRequest,
    predict_model,
    predict_workload,
    verify_model,
)
from ssdlab.app.runs import run_document, stored_run
from ssdlab.errors import UsageError


def test_a_fit_without_inputs_predicts_nothing_and_says_what_to_add(
    old_store: sqlite3.Connection,
) -> None:
    model = fit_runs(old_store, FitRequest(("7", "14"))).run_id
    rating = RatingRequest(daily_bytes=200e9, tbw_bytes=600e12)
    outcome = predict_model(old_store, PredictRequest("last", "randwrite-4k", 0.8, rating))
    body = outcome.body
    assert body["model"]["run_id"] == model
    assert body["workload"]["described"] == "uniform random 4 KiB writes over 80% of the drive"
    figures = {f["name"]: f for f in body["figures"]}
    assert all(f["value"] is None for f in figures.values())
    assert figures["steady-state WAF"]["needs"] == (
        "blkdiscard /dev/vda && ssdlab run endurance /dev/vda --destroy-data --size 256GiB "
        "--workload randwrite-4k --until-written 2560GiB"
    )
    assert figures["cliff position"]["needs"] == "ssdlab run cache /dev/vda --destroy-data"
    assert body["parameters"]["rating"]["tbw_bytes"] == 600e12
    stored = stored_run(old_store, outcome.run_id)
    assert stored.run.profile == "model-predict"
    assert stored.run.settings["model"] == {
        "run_id": model,
        "uuid": stored_run(old_store, model).run.uuid,
    }
    assert run_document(stored).data["figures"] == body["figures"]


def test_verify_stores_prediction_measurement_and_error(old_store: sqlite3.Connection) -> None:
    fit_runs(old_store, FitRequest(("7", "14")))
    outcome = verify_model(old_store, VerifyRequest("last", "14"))
    body = outcome.body
    assert body["measured_run"]["run_id"] == 14
    rows = {c["name"]: c for c in body["comparison"]}
    # the endurance run's health is a replayed MX500 log: no WAF of the range, said so
    assert (
        "rose 161 GB while fio wrote 0.00839 GB" in rows["steady-state WAF"]["measured"]["reason"]
    )
    assert rows["steady-state WAF"]["inside"] is None
    document = run_document(stored_run(old_store, outcome.run_id))
    table = document.sections[0].tables[0]
    assert table.columns[:4] == ("figure", "predicted", "interval", "measured")
    assert [r[0] for r in table.rows] == list(rows)
    cache = verify_model(old_store, VerifyRequest("last", "7")).body
    assert [c["name"] for c in cache["comparison"]] == ["cliff position", "post-cliff throughput"]


def test_runs_it_cannot_read_are_refused(old_store: sqlite3.Connection) -> None:
    with pytest.raises(UsageError, match="no fitted model; fit one first: ssdlab model fit"):
        predict_model(old_store, PredictRequest("last", "randwrite-4k"))
    with pytest.raises(UsageError, match="run 7 is a cache run, not a fitted model"):
        predict_model(old_store, PredictRequest("7", "randwrite-4k"))
    fit_runs(old_store, FitRequest(("7",)))
    with pytest.raises(UsageError, match="run 1 is a quick run; 'ssdlab model verify'"):
        verify_model(old_store, VerifyRequest("last", "1"))


def test_unknown_workloads_say_what_is_known() -> None:
    with pytest.raises(UsageError, match="known: randwrite-BS"):
        predict_workload("randread-4k")
    assert predict_workload("randwrite-16k", 0.8).block_bytes == 16384
    assert predict_workload("seq-128k").kind == "sequential"


def test_a_fill_is_stored_and_a_full_drive_refused(old_store: sqlite3.Connection) -> None:
    """The fit has no cache size: at 60 % full the cliff still says what run to add; the
    fill is in the JSON, the settings and the headline; 100 % is refused."""
    fit_runs(old_store, FitRequest(("7", "14")))
    outcome = predict_model(old_store, PredictRequest("last", "seq-128k", fill_pct=60))
    assert outcome.body["fill"] == 0.6
    cliff = {f["name"]: f for f in outcome.body["figures"]}["cliff position"]
    assert cliff["value"] is None
    assert cliff["needs"] == "ssdlab run cache /dev/vda --destroy-data"
    assert stored_run(old_store, outcome.run_id).run.settings["fill_pct"] == 60
    assert ("drive fill", "60% written before the workload (the cliff's)") in (
        outcome.document.headline
    )
    with pytest.raises(UsageError, match="--fill must be from 0 to 99 %, not 100 %"):
        predict_model(old_store, PredictRequest("last", "seq-128k", fill_pct=100))
