"""The cliff on a part-full drive (`ssdlab model predict --fill`, analysis/cache_fill.py)
against simulated drives whose cache is known: random hidden configurations (static, dynamic
and hybrid caches) measured in process as tests/unit/analysis/test_cache_kind.py measures them
(cache runs after a settled prefill, two uniform-write runs for the spare), fitted and stored
as `model fit` stores them, then asked for the cliff at a fill level no cache run measured;
the simulator's own cliff there (its exact SLC counters) must lie in the interval."""

from functools import cache

import pytest

from ssdlab.analysis.cache_kind import CacheKind
from ssdlab.analysis.model_fit import FitInputs, fit_model
from ssdlab.analysis.model_predict import CLIFF, ModelParams, cliff_figure, params_of
from ssdlab.report.model_fit import fit_json
from ssdlab.sim.random_config import draw_config
from tests.unit.analysis.test_cache_kind import cliff_at, true_cliff_at, true_kind
from tests.unit.analysis.test_model_fit import CAPACITY, waf_input

# static 9, 18; dynamic 2, 3, 8, 11, 13, 15; hybrid 1, 4, 7, 16 (7 and 16: pools under 4 % of
# the cache, which the fit tells as dynamic or inconclusive)
SEEDS = (9, 18, 2, 3, 8, 11, 13, 15, 1, 4, 7, 16)


@cache
def stored_params(seed: int, fills: tuple[float, ...]) -> ModelParams:
    """The stored fit of drive `seed` from cache runs at `fills` and two uniform runs, read
    back as `model predict` reads it."""
    config = draw_config(seed, CAPACITY)
    inputs = FitInputs(
        tuple(cliff_at(seed, f) for f in fills),
        (waf_input(config, 1.0), waf_input(config, 0.8)),
        "/dev/loop0",
        CAPACITY,
    )
    return params_of(fit_json(fit_model(inputs), None, "/dev/loop0", [], CAPACITY))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    ("fills", "unseen"), [((0.0, 0.9), 0.6), ((0.0, 0.3), 0.6), ((0.0, 0.9), 0.3), ((0.0,), 0.6)]
)
def test_the_cliff_at_an_unseen_fill_lies_in_the_interval(
    seed: int, fills: tuple[float, ...], unseen: float
) -> None:
    params = stored_params(seed, fills)
    figure = cliff_figure(params, unseen)
    truth = true_cliff_at(seed, unseen)
    assert figure.name == CLIFF
    assert figure.low is not None
    assert figure.high is not None
    assert figure.low <= truth <= figure.high, (params.cache_kind, figure)
    if params.cache_kind in (CacheKind.STATIC, CacheKind.DYNAMIC, CacheKind.HYBRID):
        # a kind fitted gives a value, within 10 % of the truth
        assert figure.value is not None
        assert abs(figure.value - truth) <= 0.1 * truth
    else:
        assert figure.value is None
        assert figure.reason is not None
        assert figure.needs is not None


def test_the_fit_stores_each_runs_cliff_at_its_fill() -> None:
    params = stored_params(2, (0.0, 0.9))
    assert true_kind(draw_config(2, CAPACITY)) == CacheKind.DYNAMIC
    assert params.cache_kind == CacheKind.DYNAMIC
    assert [p.fill for p in params.cache_fills] == [0.0, 0.9]
    assert params.cache_fills[1].cliff_bytes < params.cache_fills[0].cliff_bytes


def test_at_fill_zero_the_cliff_is_the_fitted_cache_size() -> None:
    params = stored_params(1, (0.0, 0.9))
    assert cliff_figure(params, 0.0) == cliff_figure(params)
    size = params.cache_bytes
    assert size is not None
    assert cliff_figure(params).value == size.value


def test_a_fit_stored_before_the_kind_gives_a_range_and_the_run_to_add() -> None:
    """A stored fit without `cache_fills` nor a cache kind (older fits): the cliff at 60 %
    full is the range from a dynamic cache's to a static one's, and names the run to add."""
    body = fit_json(fit_model(FitInputs((cliff_at(2, 0.0),), target="/dev/sdb")), None,
                    "/dev/sdb", [], CAPACITY)  # fmt: skip
    del body["cache_fills"]
    body["parameters"] = [p for p in body["parameters"] if p["name"] != "cache kind"]
    params = params_of(body)
    figure = cliff_figure(params, 0.6)
    assert figure.value is None
    assert figure.low is not None
    assert figure.high is not None
    assert figure.low <= true_cliff_at(2, 0.6) <= figure.high
    assert figure.reason is not None
    assert figure.reason.startswith("cache kind not fitted: on a drive 60% full")
    assert figure.needs == "ssdlab run cache /dev/sdb --destroy-data --prefill 50"
