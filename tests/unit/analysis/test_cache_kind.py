"""The cache's kind (analysis/cache_kind.py, through analysis/model_fit.py) against simulated
drives whose kind is known: random hidden configurations (sim/random_config.py) measured in
process on the virtual drive's own FTL (sim/virtual_drive.py), as `ssdlab run cache
--prefill P` measures a drive: the first P % written sequentially, then the whole drive
written sequentially in 256 KiB requests, its rate logged 400 times.

Two ways the prefill can leave a drive: *settled*, as a real drive leaves it after
`--prefill-idle` (its SLC cache folded out: `VirtualDrive.write_settled`), and *as served*
(`ssdlab sim serve` models no idle time: the prefill still sits in the cache)."""

from collections.abc import Iterator
from functools import cache

import pytest

from ssdlab.analysis.cache_kind import CacheKind, CliffAtFill, fit_cache_kind
from ssdlab.analysis.cliff import detect_cache_cliff
from ssdlab.analysis.model_fit import (
    CliffInput,
    Estimate,
    FitInputs,
    Source,
    cliff_at_fill,
    fit_model,
    kind_alpha,
)
from ssdlab.sim.config import SimConfig
from ssdlab.sim.random_config import draw_config
from ssdlab.sim.virtual_drive import VirtualDrive
from tests.unit.analysis.test_model_fit import CAPACITY, first_miss, waf_input

REQUEST = 256 * 2**10
PREFILL_REQUEST = 2**20


def true_kind(config: SimConfig) -> str:
    static, dynamic = config.slc_static_bytes > 0, config.slc_dynamic
    if static and dynamic:
        return CacheKind.HYBRID
    return CacheKind.STATIC if static else CacheKind.DYNAMIC if dynamic else CacheKind.NONE


def prefilled(seed: int, fill: float, *, settled: bool = True) -> VirtualDrive:
    """Drive `seed` with the first `fill` of it written sequentially, as `--prefill` does."""
    drive = VirtualDrive(draw_config(seed, CAPACITY))
    prefill = int(drive.capacity_bytes * fill) // PREFILL_REQUEST * PREFILL_REQUEST
    if settled:
        drive.write_settled(0, prefill)
    else:
        for offset in range(0, prefill, PREFILL_REQUEST):
            drive.write(offset, PREFILL_REQUEST)
    return drive


@cache
def true_cliff_at(seed: int, fill: float) -> int:
    """Host bytes the measured write of a cache run after a settled prefill of `fill` puts in
    the SLC cache before its first request misses it, from the simulator's exact counters."""
    drive = prefilled(seed, fill)

    def steps() -> Iterator[tuple[int, int]]:
        for offset in range(0, drive.capacity_bytes, REQUEST):
            drive.write(offset, REQUEST)
            yield offset + REQUEST, drive.counters().slc_used_bytes

    return first_miss(steps())


@cache
def cliff_at(seed: int, fill: float, *, settled: bool = True) -> CliffInput:
    """A cache run of drive `seed` after a prefill of `fill` of it."""
    drive = prefilled(seed, fill, settled=settled)
    size = drive.capacity_bytes
    series: list[tuple[float, float]] = []
    written, seconds, step = 0, 0.0, size // 400
    for offset in range(0, size, REQUEST):
        seconds += drive.write(offset, REQUEST)
        if offset + REQUEST - written >= step:
            series.append((float(offset + REQUEST), (offset + REQUEST - written) / seconds))
            written, seconds = offset + REQUEST, 0.0
    label = f"cache run at {fill:.0%}"
    return CliffInput(Source(None, None, label), (detect_cache_cliff(tuple(series)),), fill)


def kind_of(seed: int, fills: tuple[float, ...], *, settled: bool, spare: bool) -> str | None:
    """The fit's kind from cache runs at `fills`, with the spare's interval as the fit of two
    uniform runs gives it (the truth ± 2 points, the campaign's figure), or without it."""
    config = draw_config(seed, CAPACITY)
    points = [cliff_at_fill(cliff_at(seed, f, settled=settled)) for f in fills]
    alpha = (config.alpha - 0.02, config.alpha + 0.02) if spare else None
    return fit_cache_kind(points, alpha).kind


# drawn kinds among seeds 1-18: static 9, 18; dynamic 2, 3, 8, 11, 13, 15; hybrid 1, 4
# (7 and 16: pools under 4 % of the cache, told as dynamic or not at all; 17: a 0.7 MB pool
# no cliff search at 400 points sees)
SETTLED = (9, 18, 2, 3, 8, 11, 13, 15, 1, 4)


@pytest.mark.parametrize("seed", SETTLED)
def test_settled_drive_empty_and_90_percent_full_tells_the_kind(seed: int) -> None:
    truth = true_kind(draw_config(seed, CAPACITY))
    assert kind_of(seed, (0.0, 0.9), settled=True, spare=True) == truth


AS_SERVED = (2, 3, 8, 13, 15, 1, 4)


@pytest.mark.parametrize("seed", AS_SERVED)
def test_as_served_three_fills_tell_dynamic_from_hybrid(seed: int) -> None:
    """No idle: the prefill still in the cache; a dynamic cliff is gone by 90 %, a hybrid one
    stays at its static pool from 50 % on; no spare needed."""
    truth = true_kind(draw_config(seed, CAPACITY))
    assert kind_of(seed, (0.0, 0.5, 0.9), settled=False, spare=False) == truth


def test_static_cliff_stays_put_without_the_spare() -> None:
    assert kind_of(18, (0.0, 0.5, 0.9), settled=True, spare=False) == CacheKind.STATIC


def test_two_fills_without_the_spare_cannot_tell_a_small_pool_and_ask_for_the_spare() -> None:
    config = draw_config(1, CAPACITY)  # hybrid: a 3 MB pool under a 27 MB dynamic part
    assert true_kind(config) == CacheKind.HYBRID
    fit = fit_model(FitInputs((cliff_at(1, 0.0), cliff_at(1, 0.9)), target="/dev/loop0"))
    kind = fit.estimate("cache kind")
    assert kind.value == CacheKind.INCONCLUSIVE
    assert kind.note is not None
    assert "the spare's fit (two uniform-write runs) narrows α" in kind.note


def test_the_fit_reads_the_spare_and_the_empty_run_for_the_size() -> None:
    """Through fit_model: the spare from two uniform runs gives α; the runs given fullest
    first, the cache size still comes from the empty drive's run."""
    config = draw_config(1, CAPACITY)
    inputs = FitInputs(
        (cliff_at(1, 0.9), cliff_at(1, 0.0)),
        (waf_input(config, 1.0), waf_input(config, 0.8)),
        "/dev/loop0",
        CAPACITY,
    )
    fit = fit_model(inputs)
    kind = fit.estimate("cache kind")
    assert kind.value == CacheKind.HYBRID
    assert kind.needs is None
    assert [s.label for s in kind.sources] == ["cache run at 0%", "cache run at 90%"]
    assert kind.note is not None
    assert "a floor" in kind.note
    size = fit.estimate("cache size")
    assert size.sources[0].label == "cache run at 0%"
    assert [e.name for e in fit.estimates][4:7] == ["cache kind", "spare (of logical)", "GC class"]


def test_one_fill_level_names_the_run_to_add() -> None:
    fit = fit_model(FitInputs((cliff_at(2, 0.0),), target="/dev/nvme1n1"))
    kind = fit.estimate("cache kind")
    assert kind.value is None
    assert kind.needs == (
        "ssdlab run cache /dev/nvme1n1 --destroy-data --prefill 90% --prefill-idle 300"
    )
    fuller = fit_model(FitInputs((cliff_at(2, 0.9),), target="/dev/nvme1n1"))
    assert fuller.estimate("cache kind").needs == (
        "ssdlab run cache /dev/nvme1n1 --destroy-data --prefill 0% --prefill-idle 300"
    )


def test_a_run_without_a_fill_level_is_not_used_for_the_kind() -> None:
    unknown = cliff_at(2, 0.0)
    unknown = CliffInput(Source(None, None, "cache run 3"), unknown.verdicts)
    fit = fit_model(FitInputs((unknown,), target="/dev/sdb"))
    kind = fit.estimate("cache kind")
    assert kind.value is None
    assert kind.sources == ()
    assert kind.note is not None
    assert "cache run 3: no fill level recorded (run without --prefill)" in kind.note
    assert kind.needs is not None
    assert "--prefill 90%" in kind.needs


def _point(fill: float, mb: float) -> CliffAtFill:
    value = mb * 1e6
    return CliffAtFill(fill, value, value * 0.99, value * 1.01, f"run at {fill:.0%}")


def test_a_cliff_that_grows_with_fill_is_no_kind() -> None:
    found = fit_cache_kind([_point(0.0, 10.0), _point(0.5, 20.0)])
    assert found.kind == CacheKind.INCONCLUSIVE
    assert "grows" in found.evidence


def test_no_cliff_at_any_fill_is_no_cache() -> None:
    none = CliffAtFill(0.0, 0.0, 0.0, 0.0, "a")
    assert fit_cache_kind([none, CliffAtFill(0.5, 0.0, 0.0, 0.0, "b")]).kind == CacheKind.NONE


def test_a_cliff_gone_on_the_fuller_drive_is_dynamic() -> None:
    gone = CliffAtFill(0.5, 0.0, 0.0, 0.0, "b")
    assert fit_cache_kind([_point(0.0, 20.0), gone]).kind == CacheKind.DYNAMIC


def test_the_kind_reads_the_spare_value_within_two_points_inside_its_interval() -> None:
    spare = Estimate("spare (of logical)", 0.30, 0.29, 0.36, "", ())
    assert kind_alpha(spare) == pytest.approx((1.29, 1.32))
    assert kind_alpha(Estimate("spare (of logical)", None, None, None, "", ())) is None
