"""Idle GC from a HIR run's rows (analysis/idle_gc.py) on drives whose truth is known: access
periods and baseline points drawn log-normally around a true IOPS (a drive that recovers by
1.5× after an idle, one that does not, one too noisy or measured too few times), the gain's
interval checked for coverage over many draws, and the idle GC estimate of the model fit."""

import random

import pytest

from ssdlab.analysis.idle_gc import (
    MARGIN,
    HirRow,
    IdleGcVerdict,
    judge_idle_gc,
    wait_state_gain,
)
from ssdlab.analysis.model_fit import FitInputs, HirInput, Source, fit_model

BASE_IOPS = 20_000.0
WAIT_STATES = (1, 2, 3, 5, 10)


def hir_rows(
    rng: random.Random,
    gain: float,
    *,
    repeats: int = 8,
    points: int = 16,
    sigma: float = 0.1,
    states: tuple[int, ...] = WAIT_STATES,
) -> tuple[HirRow, ...]:
    """A HIR run's rows: per wait state `repeats` access periods (the first follows no idle
    and writes at the baseline's rate) at `gain` × the baseline, then a baseline of `points`
    logged points (the first follows the last access period's idle: at `gain` × too); every
    value log-normal with `sigma` around its true mean (the same sigma
    on both sides, so the ratio of the true means is `gain`)."""

    def draw(mean: float) -> float:
        return mean * rng.lognormvariate(-(sigma**2) / 2, sigma)

    rows: list[HirRow] = []
    for state in states:
        for repeat in range(1, repeats + 1):
            first = repeat == 1
            rows.append(HirRow(state, False, draw(BASE_IOPS * (1.0 if first else gain)), not first))
        logged = (draw(BASE_IOPS * gain), *(draw(BASE_IOPS) for _ in range(points - 1)))
        rows.append(HirRow(state, True, sum(logged) / len(logged), True, logged))
    return tuple(rows)


def test_a_drive_that_recovers_by_half_again_is_present() -> None:
    found = judge_idle_gc(hir_rows(random.Random(1), 1.5))
    assert found.verdict is IdleGcVerdict.PRESENT
    assert [g.wait_state for g in found.gains] == list(WAIT_STATES)
    longest = found.gains[-1]
    assert longest.access_count == 7  # the first access period follows no idle: left out
    assert longest.baseline_count == 15  # the first of 16 follows an idle: left out
    assert longest.gain == pytest.approx(1.5, rel=0.1)
    assert longest.interval is not None
    assert longest.interval.low is not None
    assert longest.interval.low > 1 + MARGIN
    assert found.reason.startswith("wait state 10: gain")


def test_a_drive_without_idle_gc_is_absent() -> None:
    found = judge_idle_gc(hir_rows(random.Random(2), 1.0, repeats=21, points=20, sigma=0.05))
    assert found.verdict is IdleGcVerdict.ABSENT
    interval = found.gains[-1].interval
    assert interval is not None
    assert interval.low is not None
    assert interval.high is not None
    assert 1 - MARGIN <= interval.low <= 1.0 <= interval.high <= 1 + MARGIN


def test_a_noisy_drive_is_inconclusive() -> None:
    found = judge_idle_gc(hir_rows(random.Random(3), 1.5, repeats=3, points=3, sigma=0.6))
    assert found.verdict is IdleGcVerdict.INCONCLUSIVE
    assert "reaching past" in found.reason


def test_too_few_repeats_give_no_interval_and_no_verdict() -> None:
    # two repeats: one access period after an idle, so no spread on that side
    found = judge_idle_gc(hir_rows(random.Random(4), 1.5, repeats=2))
    assert found.verdict is IdleGcVerdict.INCONCLUSIVE
    longest = found.gains[-1]
    assert longest.interval is None
    assert longest.gain is not None  # the ratio is still given
    assert "no interval from 1 access periods after an idle and 15 baseline points" in (
        found.reason
    )


def test_a_drive_slower_after_an_idle_is_not_called_absent() -> None:
    found = judge_idle_gc(hir_rows(random.Random(5), 0.5, sigma=0.05))
    assert found.verdict is IdleGcVerdict.INCONCLUSIVE
    assert "slower after an idle" in found.reason


def test_no_rows_is_inconclusive() -> None:
    assert judge_idle_gc(()).verdict is IdleGcVerdict.INCONCLUSIVE


def test_the_access_period_after_no_idle_is_left_out() -> None:
    rows = (
        HirRow(1, False, 1e9, after_idle=False),  # follows the preconditioning: not a recovery
        HirRow(1, False, 30_000.0),
        HirRow(1, False, 30_000.0),
        HirRow(1, True, 20_000.0, logged_iops=(20_000.0, 20_000.0)),
    )
    gain = wait_state_gain(1, rows)
    assert gain.gain == pytest.approx(1.5)
    assert gain.access_count == 2


def test_the_baselines_first_point_follows_an_idle_and_is_left_out() -> None:
    """The baseline starts after the last access period's idle: a drive that cleaned in it
    writes its first point as fast as an access period. Counted as baseline, that point
    widened the interval of a drive recovering by half again to 0.9-2.5 (inconclusive)."""
    after_idle = (30_000.0, 31_000.0, 29_500.0, 30_500.0, 30_000.0)
    rows = (
        *(HirRow(1, False, v) for v in after_idle),
        HirRow(1, True, 21_000.0, logged_iops=(30_000.0, 20_000.0, 20_500.0, 19_500.0, 20_000.0)),
    )
    gain = wait_state_gain(1, rows)
    assert gain.baseline_count == 4
    assert gain.baseline_iops == pytest.approx(20_000.0)
    assert judge_idle_gc(rows).verdict is IdleGcVerdict.PRESENT


def test_a_baseline_without_logged_points_counts_once() -> None:
    rows = (HirRow(1, False, 30_000.0), HirRow(1, False, 31_000.0), HirRow(1, True, 20_000.0))
    gain = wait_state_gain(1, rows)
    assert gain.baseline_count == 1
    assert gain.interval is None


@pytest.mark.parametrize(("truth", "sigma"), [(1.5, 0.1), (1.0, 0.2), (1.2, 0.3)])
def test_the_interval_holds_the_true_gain_nineteen_times_in_twenty(
    truth: float, sigma: float
) -> None:
    rng = random.Random(int(truth * 100 + sigma * 10))
    trials = 400
    held = 0
    for _ in range(trials):
        rows = hir_rows(rng, truth, sigma=sigma, states=(10,))
        interval = wait_state_gain(10, rows).interval
        assert interval is not None
        held += interval.holds(truth)
    # 95 % nominal; ± 3 standard errors of a proportion over 400 draws (0.011)
    assert 0.91 <= held / trials <= 0.99


def test_the_present_verdict_is_reached_on_nearly_every_draw_of_a_recovering_drive() -> None:
    rng = random.Random(7)
    verdicts = [judge_idle_gc(hir_rows(rng, 1.5)).verdict for _ in range(100)]
    assert verdicts.count(IdleGcVerdict.PRESENT) >= 95
    assert IdleGcVerdict.ABSENT not in verdicts


def test_the_fit_reads_idle_gc_from_a_hir_run() -> None:
    source = Source(7, "uuid-7", "pts-hir run 7")
    hir = HirInput(source, hir_rows(random.Random(1), 1.5))
    idle = fit_model(FitInputs(target="/dev/nvme1n1", hir=hir)).estimate("idle GC")
    assert idle.value == "present"
    assert idle.sources == (source,)
    assert idle.needs is None
    assert idle.note is not None
    assert "wait state 1 " in idle.note
    assert "wait state 10 " in idle.note
    assert "margin ±10 %" in idle.note
    assert "the simulator models no idle time" in idle.note


def test_without_a_hir_run_the_fit_asks_for_one() -> None:
    idle = fit_model(FitInputs(target="/dev/nvme1n1")).estimate("idle GC")
    assert idle.value is None
    assert idle.sources == ()
    assert idle.needs == "ssdlab run pts-hir /dev/nvme1n1 --destroy-data"
    assert idle.note is not None
    assert "the simulator models no idle time" in idle.note
