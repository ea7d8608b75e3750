"""Endurance analysis: iterations, stop decisions, safety checks and the live status."""

import dataclasses
from pathlib import Path

import pytest

from ssdlab.analysis.endurance import (
    Iteration,
    decide_stop,
    endurance_status,
    iterations_of,
    safety_problem,
)
from ssdlab.analysis.wear import analyse_series
from ssdlab.model.health import HealthSample
from ssdlab.model.result import DirectionMetrics
from ssdlab.model.step import StepResult
from ssdlab.system.health_replay import HealthReplay
from tests.replay_logs import Snapshot, wear_series, write_log
from tests.unit.analysis.endurance_settings import endurance_settings
from tests.unit.analysis.health_samples import hv, make_sample


def _step(index: int, seconds: float, written: int, capture: int | None = None) -> StepResult:
    write = DirectionMetrics(written, written // 4096, seconds, written / seconds, 1.0, None,
                             None, None, None, None)  # fmt: skip
    return StepResult("iteration", "it", "write", index, False, written / seconds, 1.0, None,
                      None, write, capture_id=capture)  # fmt: skip


def _it(index: int, seconds: float, written: int) -> Iteration:
    return Iteration(index, None, None, seconds, written, written / seconds)


def test_iterations_in_order_with_wall_times_and_slow_ones_flagged() -> None:
    steps = [_step(2, 10.0, 10**9, 7), _step(1, 10.0, 10**9, 5), _step(3, 25.0, 10**9, 9)]
    found = iterations_of(steps, {5: (100.0, 111.0), 7: (111.0, 122.0)})
    assert [i.index for i in found] == [1, 2, 3]
    assert (found[0].started_at_s, found[0].ended_at_s) == (100.0, 111.0)
    assert found[2].started_at_s is None  # no capture time known: None, not 0
    assert found[2].outlier is not None
    assert "2.5" in found[2].outlier
    assert found[0].outlier is None
    assert found[1].outlier is None


def test_a_time_bound_iteration_that_wrote_slowly_is_flagged() -> None:
    steps = [_step(1, 10.0, 10**9), _step(2, 10.0, 10**9), _step(3, 10.0, 4 * 10**8)]
    assert iterations_of(steps, {})[2].outlier == "wrote at 0.4× the median speed"


def test_stop_conditions_first_reached_stops() -> None:
    its = [_it(1, 60.0, 5 * 10**9), _it(2, 60.0, 5 * 10**9)]
    assert not decide_stop(endurance_settings(for_time=121.0), its, []).stop
    decision = decide_stop(endurance_settings(for_time=120.0, until_written=10**12), its, [])
    assert decision.stop
    assert decision.reason is not None
    assert "--for" in decision.reason
    assert [p.fraction for p in decision.progress] == [1.0, 0.01]
    written = decide_stop(endurance_settings(until_written=10**10), its, [])
    assert written.stop
    assert "10 GB" in (written.reason or "")
    assert not decide_stop(endurance_settings(), its, []).stop  # no condition: runs until stopped


def test_wear_stop_counts_from_the_runs_first_sample() -> None:
    samples = [make_sample(0, wear=5), make_sample(10, wear=7), make_sample(20, wear=8)]
    assert decide_stop(endurance_settings(until_wear=3.0), [], samples).stop
    assert not decide_stop(endurance_settings(until_wear=3.5), [], samples).stop
    unknown = decide_stop(endurance_settings(until_wear=1.0), [], [make_sample(0)])
    (progress,) = unknown.progress
    assert not unknown.stop
    assert progress.done is None
    assert "no wear" in (progress.reason or "")


def _hot(sample: HealthSample, **values: float) -> HealthSample:
    return dataclasses.replace(sample, **{k: hv(v, 1.0) for k, v in values.items()})


@pytest.mark.parametrize(
    ("latest", "words"),
    [
        ({"temperature_c": 71.0}, "temperature 71 °C is above the limit of 70 °C"),
        ({"media_errors": 8.0}, "new media errors: 7 at the start, 8 now"),
        ({"critical_warning": 4.0}, "critical warning (0x04)"),
        ({"wear_used_pct": 100.0}, "end of life"),
    ],
)
def test_safety_problems(latest: dict[str, float], words: str) -> None:
    first = _hot(make_sample(0), media_errors=7.0, temperature_c=40.0)
    now = _hot(first, **latest)
    assert words in (safety_problem(first, now, max_temperature_c=70.0) or "")


def test_no_safety_problem_when_nothing_changed_or_unknown() -> None:
    first = _hot(make_sample(0), media_errors=7.0, temperature_c=70.0)
    assert safety_problem(first, first, max_temperature_c=70.0) is None
    assert safety_problem(None, make_sample(1), max_temperature_c=70.0) is None
    failed = dataclasses.replace(make_sample(1), verdict="FAILED")
    assert (
        safety_problem(None, failed, max_temperature_c=70.0) == "SMART overall health says FAILED"
    )


def _replayed(tmp_path: Path, snapshots: list[Snapshot]) -> list[HealthSample]:
    replay = HealthReplay(str(write_log(tmp_path / "log.txt", snapshots)))
    samples = []
    for _ in snapshots:
        sample = replay().sample
        assert sample is not None
        samples.append(sample)
    return samples


def test_status_projects_life_from_replayed_samples(tmp_path: Path) -> None:
    # one point of wear an hour from 5 %, 100 GB an hour at WAF 3, replayed through the parser
    samples = _replayed(tmp_path, wear_series(6))
    assert all("replay of" in s.sources[-1] for s in samples)
    its = [_it(i, 3600.0, 100 * 10**9) for i in range(1, 6)]
    settings = endurance_settings(last_hours=2.0, health_replay="log.txt", until_wear=5.0)
    status = endurance_status(settings, its, samples)
    series = status.series
    assert series is not None
    assert series.overall is not None
    assert series.overall.waf.waf == pytest.approx(3.0, rel=1e-6)
    assert series.recent is not None
    assert series.recent.end_s - series.recent.start_s == 7200
    assert series.wear_fit.pct_per_day == pytest.approx(24.0)  # 1 point an hour
    # from 10 % at 24 %/day: 90 / 24 days; the drive's host counter: 100 GB an hour
    assert series.projection.days_to_eol == pytest.approx(90 / 24)
    assert status.drive_host_written_bytes == pytest.approx(5 * 100e9)
    assert status.drive_nand_written_bytes == pytest.approx(3 * 5 * 100e9, rel=1e-6)
    assert status.stop.stop
    assert "wear rose by 5" in (status.stop.reason or "")
    assert status.replayed_from == "log.txt"
    assert any("REPLAYED" in n for n in status.notes)
    assert [(s.from_value, s.to_value) for s in status.wear_steps] == [
        (5.0 + i, 6.0 + i) for i in range(5)
    ]
    # the same answer as the offline analysis of the same samples (ssdlab health --import)
    offline = analyse_series(samples, last_hours=2.0)
    assert offline.projection == series.projection


def test_status_without_health_says_so() -> None:
    status = endurance_status(endurance_settings(), [_it(1, 10.0, 10**9)], [])
    assert status.series is None
    assert status.drive_nand_written_bytes is None
    assert status.mean_write_bytes_per_s == 10**8
    assert "no health samples" in status.notes[0]
