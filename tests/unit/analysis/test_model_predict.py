"""`model predict` (analysis/model_predict.py) against the simulator: from a model whose
parameters are the truth, the simulator's own run of the workload (another seed) lies in the
prediction's interval; wider parameter intervals give wider predictions; a model fitted to a
random hidden drive (tests/unit/analysis/test_model_fit.py) predicts a workload the fit never
saw; and verify's errors (analysis/model_verify.py)."""

from typing import Any

import pytest

from ssdlab.analysis.model_fit import FitInputs, fit_model
from ssdlab.analysis.model_predict import (
    CLIFF,
    DAYS,
    IOPS,
    MODEL_BLOCK_PAGES,
    MODEL_BYTES,
    MODEL_FILLS,
    POST_CLIFF,
    WAF,
    WINDOW_FILLS,
    Figure,
    Prediction,
    Rating,
    params_of,
    predict,
)
from ssdlab.analysis.model_verify import compare
from ssdlab.app.model_predict import predict_workload
from ssdlab.report.model_fit import fit_json
from ssdlab.sim import simulate
from ssdlab.sim.config import GcPolicy, SimConfig, Timing
from ssdlab.sim.workload import Workload
from tests.unit.analysis.test_model_fit import fitted_with_skew

TIMING = Timing()
NATIVE = 4096 * TIMING.parallel_units / (TIMING.page_program_us / 1e6)  # the model's own rate


def _parameter(name: str, value: float, half: float, unit: str = "") -> dict[str, Any]:
    return {"name": name, "value": value, "low": value - half, "high": value + half,
            "unit": unit}  # fmt: skip


def truth_body(spare: float, policy: str, spare_half: float, rate_share: float = 0.0) -> dict:
    """A stored fit (format ssdlab-model-fit) whose parameters are the truth, ± the halves."""
    rate = rate_share * NATIVE
    return {
        "target": "/dev/loop0",
        "parameters": [
            _parameter("spare (of logical)", spare, spare_half),
            _parameter("cache size", 8e6, 0.2e6, "B"),
            _parameter("native write rate", NATIVE, rate, "B/s"),
            {"name": "GC class", "value": "greedy-like"},
        ],
        "simulator": {"gc_policy": policy, "gc_policy_fitted": policy,
                      "gc_classes_fitting": ["greedy-like"], "capacity_bytes": MODEL_BYTES},
    }  # fmt: skip


def truth_run(policy: str, spare: float, kind: str, span: float, pages: int) -> tuple[float, float]:
    """(steady WAF, steady write bytes/s) of the simulator itself, seed 11 (the prediction
    uses seeds 1–3), over the same window."""
    physical = round(MODEL_BYTES * (1 + spare))
    config = SimConfig(MODEL_BYTES, physical, pages_per_block=MODEL_BLOCK_PAGES,
                       gc_policy=GcPolicy(policy), seed=11)  # fmt: skip
    span_bytes = MODEL_BYTES * span
    workload = Workload(kind=kind, span_fraction=span, request_pages=pages)
    result = simulate(config, workload, host_bytes=int(span_bytes * MODEL_FILLS),
                      interval_bytes=int(span_bytes / 10))  # fmt: skip
    first = result.intervals[-int(WINDOW_FILLS * 10) - 1]
    last = result.intervals[-1]
    host = last.host_write_bytes - first.host_write_bytes
    waf = (last.nand_write_bytes - first.nand_write_bytes) / host
    return waf, host / (last.elapsed_s - first.elapsed_s)


CASES = (
    ("greedy", 0.12, "randwrite-4k", 0.5),
    ("greedy", 0.07, "randwrite-16k", 0.8),
    ("fifo", 0.2, "randwrite-4k", 1.0),
    ("greedy", 0.28, "jesd219-enterprise", 1.0),
    ("fifo", 0.12, "jesd219-enterprise", 1.0),
)


@pytest.mark.parametrize(("policy", "spare", "name", "span"), CASES)
def test_a_model_with_the_true_parameters_covers_the_simulators_run(
    policy: str, spare: float, name: str, span: float
) -> None:
    params = params_of(truth_body(spare, policy, 0.005))
    workload = predict_workload(name, span)
    prediction = predict(params, workload)
    kind = "jesd219" if workload.kind == "jesd219" else "uniform"
    waf, rate = truth_run(policy, spare, kind, span, max(workload.block_bytes // 4096, 1))
    found = prediction.figure(WAF)
    assert found.low is not None
    assert found.high is not None
    assert found.low <= waf <= found.high
    assert found.value == pytest.approx(waf, rel=0.02)
    iops = prediction.figure(IOPS)
    size = 4096 * max(workload.block_bytes // 4096, 1)
    if workload.kind != "jesd219":  # the model's own rate: the same timing as the truth's
        assert iops.low is not None
        assert iops.high is not None
        assert iops.low <= rate / size <= iops.high


def _width(f: Figure) -> float:
    assert f.low is not None
    assert f.high is not None
    return f.high - f.low


def test_wider_parameter_intervals_give_wider_predictions() -> None:
    workload = predict_workload("randwrite-4k", 0.8)
    rating = Rating(600e12, None, "given")
    narrow = predict(params_of(truth_body(0.12, "greedy", 0.005, 0.01)), workload,
                     daily_bytes=200e9, rating=rating)  # fmt: skip
    wide = predict(params_of(truth_body(0.12, "greedy", 0.04, 0.1)), workload,
                   daily_bytes=200e9, rating=rating)  # fmt: skip
    for name in (WAF, IOPS, DAYS):
        a, b = narrow.figure(name), wide.figure(name)
        assert _width(b) > _width(a), name
        assert b.low is not None
        assert b.high is not None
        assert b.low <= (a.low or 0) <= (a.high or 0) <= b.high, name


def test_days_at_the_rating_workload_are_the_rating_itself() -> None:
    """A TBW rating is taken at JESD219 over the whole drive: that workload at a daily volume
    lasts TBW ÷ daily, whatever the model's WAF (each corner's two WAFs are the same)."""
    params = params_of(truth_body(0.12, "greedy", 0.02))
    prediction = predict(params, predict_workload("jesd219-enterprise"), daily_bytes=100e9,
                         rating=Rating(600e12, None, "given"))  # fmt: skip
    days = prediction.figure(DAYS)
    assert days.value == pytest.approx(6000.0)
    assert days.low == pytest.approx(6000.0)
    assert days.high == pytest.approx(6000.0)
    pe = predict(params, predict_workload("randwrite-4k"), daily_bytes=MODEL_BYTES,
                 rating=Rating(None, 3000, "given")).figure(DAYS)  # fmt: skip
    waf = predict(params, predict_workload("randwrite-4k")).figure(WAF).value
    assert waf is not None
    assert pe.value == pytest.approx(3000 * 1.12 / waf, rel=1e-3)


@pytest.mark.parametrize("seed", [3, 8])
def test_a_fitted_hidden_drive_predicts_a_range_it_never_saw(seed: int) -> None:
    """Fitted on uniform writes over 100 % and 80 % and JESD219 over 100 %: uniform writes
    over half the drive, within 5 % of the hidden drive's own simulation (its SLC cache,
    block size and timing not fitted)."""
    config, fit = fitted_with_skew(seed)
    prediction = predict(params_of(fit_json(fit, 1, "/dev/loop0", [], MODEL_BYTES)),
                         predict_workload("randwrite-4k", 0.5))  # fmt: skip
    truth = steady_waf(config, 0.5)
    waf = prediction.figure(WAF).value
    assert waf is not None
    assert abs(waf / truth - 1) <= 0.05


def steady_waf(config: SimConfig, span: float) -> float:
    """The hidden drive's own WAF under uniform 4 KiB writes over `span`: sixty fills from
    empty, over the last twenty (as the prediction reads its model)."""
    span_bytes = config.logical_bytes * span
    result = simulate(config, Workload(span_fraction=span), host_bytes=int(span_bytes * 60),
                      interval_bytes=int(span_bytes / 10))  # fmt: skip
    first, last = result.intervals[-201], result.intervals[-1]
    return (last.nand_write_bytes - first.nand_write_bytes) / (
        last.host_write_bytes - first.host_write_bytes
    )


def test_what_the_fit_lacks_is_none_with_the_reason_and_the_run_to_add() -> None:
    body = fit_json(fit_model(FitInputs(target="/dev/sdb", capacity_bytes=2**30)), 1, "/dev/sdb",
                    [])  # fmt: skip
    prediction = predict(params_of(body), predict_workload("randwrite-4k"), daily_bytes=1e9)
    for name in (WAF, CLIFF, POST_CLIFF, IOPS, DAYS):
        f = prediction.figure(name)
        assert f.value is None, name
        assert f.reason, name
        assert f.needs, name
    assert "--workload randwrite-4k" in (prediction.figure(WAF).needs or "")
    assert prediction.figure(CLIFF).needs == "ssdlab run cache /dev/sdb --destroy-data"
    no_daily = predict(params_of(truth_body(0.1, "greedy", 0.01)), predict_workload("seq-128k"))
    assert no_daily.figure(DAYS).reason == "no daily host write volume given"
    assert "--daily" in (no_daily.figure(DAYS).needs or "")


def test_verify_errors_and_whether_the_measurement_is_inside() -> None:
    predicted = Prediction(
        predict_workload("randwrite-4k"),
        (Figure(WAF, "", 2.0, 1.8, 2.2), Figure(IOPS, "IOPS", 1000.0, 900.0, 1100.0),
         Figure(DAYS, "days", None, reason="no daily host write volume given"),
         Figure(CLIFF, "B", 8e6, 7e6, 9e6)),
        (),
        None,
    )  # fmt: skip
    measured = (Figure(WAF, "", 2.1, 2.0, 2.2), Figure(IOPS, "IOPS", 1250.0),
                Figure(DAYS, "days", 300.0))  # fmt: skip
    rows = {r.name: r for r in compare(predicted, measured)}
    assert set(rows) == {WAF, IOPS, DAYS}  # the cliff: not measured by this run, left out
    assert rows[WAF].error == pytest.approx(0.1)
    assert rows[WAF].relative_error == pytest.approx((2.0 - 2.1) / 2.1)
    assert rows[WAF].inside is True
    assert rows[IOPS].error == pytest.approx(250.0)
    assert rows[IOPS].relative_error == pytest.approx(-0.2)
    assert rows[IOPS].inside is False
    assert rows[DAYS].error is None
    assert rows[DAYS].inside is None
    assert rows[DAYS].reason == "not predicted: no daily host write volume given"


def test_a_gc_class_left_open_is_both_classes_corners() -> None:
    """One active range fits the spare assuming a greedy-like GC and names no class: the
    prediction takes greedy and FIFO as corners."""
    body = truth_body(0.12, "greedy", 0.01)
    body["simulator"].update(gc_policy=None, gc_policy_fitted=None, gc_classes_fitting=[])
    params = params_of(body)
    assert (params.policy, params.other_policy) == ("greedy", "fifo")
    prediction = predict(params, predict_workload("randwrite-4k"))
    assert {c.split(",")[0] for c in prediction.corners} == {"greedy", "fifo"}
