"""The joint fit of spare and GC policy (analysis/model_fit_joint.py) against drives whose truth
is known: random hidden configurations (sim/random_config.py) measured in process as in
test_model_fit.py — two uniform runs (100 % and 80 % of the LBAs) and a JESD219 run, ten
fills each from empty. The seeds are drives the fit missed by more than 2 points while it
held the model's block size at 64 pages: d-choices and cost-benefit drives of 128- and
256-page blocks, whose GC keeps whole blocks free that the host's data cannot use. The
figures are deterministic (the simulator is), not timed."""

import pytest

from ssdlab.analysis.model_fit_joint import (
    BLOCK_PAGES,
    MODEL_BYTES,
    VALUE_BLOCK_PAGES,
    drive_alpha,
    model_alpha,
    model_config,
)
from ssdlab.sim.config import GcPolicy
from tests.unit.analysis.test_model_fit import fitted_with_skew

# former misses: 4 (cost-benefit, +2.66), 10 (d-choices, −2.00), 12 (d-choices, −2.37),
# 13 (cost-benefit, −2.06), 23 (d-choices, −2.25); docs/model-fit.md has seeds 1–25
FORMER_MISSES = (4, 10, 12, 13, 23)


@pytest.mark.parametrize("seed", FORMER_MISSES)
def test_spare_within_two_points_with_the_block_size_a_nuisance(seed: int) -> None:
    config, fit = fitted_with_skew(seed)
    spare = fit.estimate("spare (of logical)")
    assert isinstance(spare.value, float)
    assert abs(spare.value - config.spare_of_logical) <= 0.02
    assert spare.low is not None
    assert spare.high is not None
    assert spare.low <= config.spare_of_logical <= spare.high
    assert fit.fitted_block_pages in BLOCK_PAGES
    gc = fit.estimate("GC class")
    assert gc.value == "greedy-like"  # every one of them is d-choices or cost-benefit


# every drive above and the joint seeds of test_model_fit.py, FIFO ones among them
COVERAGE_SEEDS = (1, 2, 3, 4, 7, 8, 10, 11, 12, 13, 23)


def test_the_interval_covers_the_truth_on_every_drive() -> None:
    """Coverage, not a single hit: the spare's interval holds the hidden spare on each."""
    assert _outside_the_interval(COVERAGE_SEEDS, MODEL_BYTES) == []


def _outside_the_interval(seeds: tuple[int, ...], capacity: int) -> list[int]:
    """The seeds whose drive of `capacity` the fitted spare's interval does not hold."""
    missed = []
    for seed in seeds:
        config, fit = fitted_with_skew(seed, capacity)
        spare = fit.estimate("spare (of logical)")
        assert spare.low is not None
        assert spare.high is not None
        if not spare.low <= config.spare_of_logical <= spare.high:
            missed.append(seed)
    return missed


def test_the_model_holds_whole_blocks_and_its_spare_is_their_count() -> None:
    """The spare a fit reports is the model's own: whole blocks of the size it was fitted at,
    never fewer than the GC needs (four beyond the logical ones)."""
    for pages in BLOCK_PAGES:
        config = model_config(GcPolicy.GREEDY, 1.25, pages)
        assert config.physical_bytes % config.block_bytes == 0
        assert config.total_blocks * config.block_bytes == config.physical_bytes
        least = model_config(GcPolicy.GREEDY, 1.0, pages)
        assert least.total_blocks == config.logical_bytes // config.block_bytes + 4
    assert VALUE_BLOCK_PAGES in BLOCK_PAGES


def test_the_fit_document_names_the_block_size_predict_builds() -> None:
    from ssdlab.analysis.model_predict import params_of
    from ssdlab.report.model_fit import fit_json

    _, fit = fitted_with_skew(10)
    body = fit_json(fit, None, "/dev/loop0", [], 64 * 2**20)
    assert body["simulator"]["pages_per_block_fitted"] == fit.fitted_block_pages
    assert params_of(body).block_pages == fit.fitted_block_pages


def test_the_models_spare_converts_to_a_drive_of_another_size_and_back() -> None:
    """The GC's reserve is the same count of blocks on any drive: a smaller drive needs
    more spare for the model's WAF, a larger one less, the model's own size none."""
    for pages in BLOCK_PAGES:
        assert drive_alpha(1.2, pages, MODEL_BYTES) == pytest.approx(1.2)
        assert drive_alpha(1.2, pages, None) == 1.2
        small, large = drive_alpha(1.2, pages, MODEL_BYTES // 2), drive_alpha(1.2, pages, 2**40)
        assert large < 1.2 < small
        for capacity in (MODEL_BYTES // 2, 2**40):
            back = model_alpha(drive_alpha(1.2, pages, capacity), pages, capacity)
            assert back == pytest.approx(1.2)


# 32 MiB drives of 128 pages a block (the size the spare's value is fitted at): only the
# model's size differs from theirs. Without the conversion each is 1.2–1.6 points low.
HALF_SIZE_SEEDS = (6, 27, 28)


@pytest.mark.parametrize("seed", HALF_SIZE_SEEDS)
def test_a_drive_half_the_models_size_is_fitted_its_own_spare(seed: int) -> None:
    config, fit = fitted_with_skew(seed, MODEL_BYTES // 2)
    assert config.pages_per_block == VALUE_BLOCK_PAGES
    spare = fit.estimate("spare (of logical)")
    assert isinstance(spare.value, float)
    assert abs(spare.value - config.spare_of_logical) <= 0.005
    assert spare.low is not None
    assert spare.high is not None
    assert spare.low <= config.spare_of_logical <= spare.high
    assert fit.spare_capacity_bytes == MODEL_BYTES // 2
    assert "as this drive's" in (spare.note or "")


# 32 MiB drives of 64 and 256 pages a block, which the fit cannot tell from 128 (their
# spare is up to 3.5 points off the value): the interval still holds the truth
OTHER_BLOCK_SEEDS = (10, 12, 13, 18, 29, 30)


def test_at_half_the_models_size_the_interval_covers_every_block_size() -> None:
    for seed in OTHER_BLOCK_SEEDS:
        config, _ = fitted_with_skew(seed, MODEL_BYTES // 2)
        assert config.pages_per_block != VALUE_BLOCK_PAGES
    assert _outside_the_interval(OTHER_BLOCK_SEEDS, MODEL_BYTES // 2) == []


def test_predict_converts_the_drives_spare_back_to_the_models() -> None:
    """A fit of a 32 MiB drive predicts the WAF that drive shows on a workload no fitting run
    wrote (uniform 4 KiB over half of it), the drive's spare converted back to the model's."""
    from ssdlab.analysis.model_predict import WAF, params_of, predict
    from ssdlab.app.model_predict import predict_workload
    from ssdlab.report.model_fit import fit_json
    from tests.unit.analysis.test_model_predict import steady_waf

    config, fit = fitted_with_skew(27, MODEL_BYTES // 2)
    params = params_of(fit_json(fit, None, "/dev/loop0", [], MODEL_BYTES // 2))
    assert params.spare_capacity_bytes == MODEL_BYTES // 2
    found = predict(params, predict_workload("randwrite-4k", 0.5)).figure(WAF)
    truth = steady_waf(config, 0.5)
    assert found.value == pytest.approx(truth, rel=0.05)
    assert found.low is not None
    assert found.high is not None
    assert found.low <= truth <= found.high


def test_predict_simulates_the_fitted_models_own_spare_whatever_its_decimals() -> None:
    """A drive's spare of 13.671875 % (the model's 12.5 %, 144 blocks of 128 pages, on a
    32 MiB drive) is written 13.67 % in the corners' text; the model predict builds is still
    the fitted one, not a block less (which moved the WAF by 6 %)."""
    from ssdlab.analysis.model_predict import Bounds, ModelParams, corners

    params = ModelParams(
        target="/dev/loop0",
        alpha=Bounds(1.13671875, 1.0859375, 1.21484375),
        policy="d-choices",
        other_policy=None,
        cache_bytes=None,
        native_rate=None,
        capacity_bytes=MODEL_BYTES // 2,
        block_pages=128,
        spare_capacity_bytes=MODEL_BYTES // 2,
    )
    found = corners(params)
    assert {c.grid for c in found if c.alpha == 1.1367} == {1.125}
    assert found[0].text() == "d-choices, spare 13.7 %, seed 1"
