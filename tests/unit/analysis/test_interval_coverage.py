"""Intervals are computed, never assumed: targets whose truth is known (samples drawn with a seed
from a known distribution) are measured over and over, and the 95 % interval must hold the
truth in about 95 % of the repeats. Each test states the band it accepts over its repeats (the
binomial spread of 400 repeats at 95 % is ±2.2 points, so 90–99 % leaves room for the small
bias of each method but catches an interval that is too narrow or too wide), and that a
verdict says "inconclusive" where the data cannot decide."""

import numpy as np
import pytest

from ssdlab.analysis.alignment import AlignResult, alignment_verdict
from ssdlab.analysis.intervals import (
    mean_interval,
    ratio_interval,
    sample_of_repeats,
    sample_of_seconds,
)
from ssdlab.analysis.verdict_state import State, at_least

REPEATS = 400
BAND = (0.90, 0.99)
NO_DEVICE = {
    "partition_start_bytes": None,
    "logical_block_bytes": None,
    "physical_block_bytes": None,
}


def share(hits: list[bool]) -> float:
    return sum(hits) / len(hits)


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.mark.parametrize(("n", "cv"), [(3, 0.05), (5, 0.02), (2, 0.10)])
def test_the_mean_of_repeats(n: int, cv: float) -> None:
    hits = []
    for seed in range(REPEATS):
        values = rng(seed).normal(20_000, 20_000 * cv, n)
        interval = mean_interval(sample_of_repeats(list(values)))
        assert interval is not None
        hits.append(interval.holds(20_000))
    assert BAND[0] <= share(hits) <= BAND[1]


@pytest.mark.parametrize(("n", "cv", "truth"), [(3, 0.05, 1.5), (3, 0.30, 1.5), (2, 0.05, 0.8)])
def test_a_ratio_of_two_means(n: int, cv: float, truth: float) -> None:
    """Fieller's interval of a ratio of two independently measured means."""
    hits = []
    for seed in range(REPEATS):
        r = rng(seed)
        a = r.normal(10_000 * truth, 10_000 * truth * cv, n)
        b = r.normal(10_000, 10_000 * cv, n)
        interval = ratio_interval(sample_of_repeats(list(a)), sample_of_repeats(list(b)))
        assert interval is not None
        hits.append(interval.holds(truth))
    assert BAND[0] <= share(hits) <= BAND[1]


def ar1(r: np.random.Generator, points: int, phi: float, mean: float, sd: float) -> np.ndarray:
    """A per-second series whose neighbouring seconds are correlated (φ), around `mean`."""
    noise = r.normal(0, sd, points + 50)
    x = np.zeros(points + 50)
    for t in range(1, points + 50):
        x[t] = phi * x[t - 1] + noise[t]
    return mean + x[50:]


@pytest.mark.parametrize("points", [10, 60, 300])
def test_one_pass_from_batch_means_of_its_per_second_log(points: int) -> None:
    """Seconds that follow each other are correlated (φ = 0.3 here; at 0.6 the coverage falls
    to about 90 %): batch means of ⌊√m⌋ seconds hold the pass's true mean."""
    hits = []
    for seed in range(REPEATS):
        series = ar1(rng(seed), points, 0.3, 5_000, 150)
        interval = mean_interval(sample_of_seconds(float(series.mean()), list(series)))
        assert interval is not None
        hits.append(interval.holds(5_000))
    assert BAND[0] <= share(hits) <= BAND[1]


def test_a_percentile_bootstrap_of_three_repeats_is_too_narrow() -> None:
    """Why ssdlab does not bootstrap three repeats: ten distinct resampled means cover the truth
    in about three cases of four, far from 19 in 20."""
    hits = []
    for seed in range(200):
        r = rng(seed)
        values = r.normal(1_000, 50, 3)
        means = r.choice(values, (500, 3)).mean(axis=1)
        low, high = np.percentile(means, [2.5, 97.5])
        hits.append(bool(low <= 1_000 <= high))
    assert share(hits) < 0.85


def test_truth_on_the_threshold_is_inconclusive() -> None:
    """A drive whose misaligned writes are exactly 1.5× slower (the threshold): the verdict must
    not say yes or no, except in the few repeats whose interval misses the truth."""
    states = []
    for seed in range(REPEATS):
        r = rng(seed)
        aligned = r.normal(15_000, 300, 3)
        misaligned = r.normal(10_000, 200, 3)
        results = [AlignResult(4096, 4096, float(v)) for v in aligned] + [
            AlignResult(4096, 512, float(v)) for v in misaligned
        ]
        states.append(alignment_verdict(results, **NO_DEVICE).misaligned_state)
    assert share([s == "inconclusive" for s in states]) >= BAND[0]


@pytest.mark.parametrize(("truth", "expected"), [(3.0, State.YES), (1.0, State.NO)])
def test_truth_far_from_the_threshold_is_decided(truth: float, expected: State) -> None:
    states = []
    for seed in range(REPEATS):
        r = rng(seed)
        a = r.normal(10_000 * truth, 10_000 * truth * 0.03, 3)
        b = r.normal(10_000, 300, 3)
        sa, sb = sample_of_repeats(list(a)), sample_of_repeats(list(b))
        states.append(at_least(sa.mean / sb.mean, ratio_interval(sa, sb), 1.5))
    assert share([s is expected for s in states]) >= 0.97
