"""counter_step_timing: the `smartctl | uniq -c` cron job, checked against itertools.groupby."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab.analysis.steps import counter_step_timing
from ssdlab.model.health import DriveIdentity, HealthSample
from ssdlab.model.units import GiB
from tests.unit.analysis.health_samples import hv

HOUR = 3600.0
IDENTITY = DriveIdentity("ATA", "model", "S1", "fw", None)


def sample(
    t_s: float | None, erase: float | None, host: float | None = None, nand: float | None = None
) -> HealthSample:
    return HealthSample(
        taken_at_s=t_s,
        identity=IDENTITY,
        erase_count_avg=hv(erase, 1.0),
        host_written_bytes=hv(host, GiB),
        nand_written_bytes=hv(nand, GiB),
    )


def test_steps_bounds_midpoints_and_bytes_by_hand() -> None:
    erases = [5, 5, 5, 6, 6, 7, 7, 7, 7]
    samples = [
        sample(i * HOUR, float(e), host=i * 10 * GiB, nand=i * 25 * GiB)
        for i, e in enumerate(erases)
    ]
    first, second = counter_step_timing(samples, "erase_count_avg")
    assert (first.from_value, first.to_value, first.step) == (5, 6, 1)
    assert (first.last_before_s, first.first_after_s) == (2 * HOUR, 3 * HOUR)
    assert first.midpoint_s == 2.5 * HOUR
    assert first.uncertainty_s == 0.5 * HOUR
    assert first.samples_at_from_value == 3
    assert first.since_previous_step_s is None
    assert first.host_written_bytes is None
    assert first.reason is not None
    assert "first step" in first.reason

    assert (second.last_before_s, second.first_after_s) == (4 * HOUR, 5 * HOUR)
    assert second.samples_at_from_value == 2
    assert second.since_previous_step_s == 2 * HOUR  # midpoints 2.5 h -> 4.5 h
    assert second.since_previous_min_s == 1 * HOUR  # stepped right after 3 h, right before 4 h
    assert second.since_previous_max_s == 3 * HOUR  # stepped right after 2 h, at 5 h
    assert second.host_written_bytes == 20 * GiB  # samples at 3 h and 5 h
    assert second.nand_written_bytes == 50 * GiB
    assert second.reason is None


def test_unordered_untimed_and_missing_samples() -> None:
    samples = [
        sample(3 * HOUR, 2.0),
        sample(None, 9.0),  # no time: bounds nothing
        sample(0.0, 1.0),
        sample(1 * HOUR, None),  # counter missing: skipped
        sample(2 * HOUR, 1.0),
        sample(4 * HOUR, 4.0),
    ]
    steps = counter_step_timing(samples, "erase_count_avg")
    assert [(s.from_value, s.to_value) for s in steps] == [(1, 2), (2, 4)]
    assert (steps[0].last_before_s, steps[0].first_after_s) == (2 * HOUR, 3 * HOUR)
    assert steps[1].step == 2  # a jump of two is one observed change
    assert steps[1].host_written_bytes is None
    assert "host_written_bytes is unknown" in (steps[1].reason or "")


def test_a_reset_breaks_the_chain() -> None:
    values = [10.0, 11.0, 0.0, 0.0, 1.0]
    samples = [sample(i * HOUR, v, host=i * GiB) for i, v in enumerate(values)]
    steps = counter_step_timing(samples, "erase_count_avg")
    assert [(s.from_value, s.to_value) for s in steps] == [(10, 11), (0, 1)]
    assert steps[1].since_previous_step_s is None
    assert "went down" in (steps[1].reason or "")
    assert steps[1].samples_at_from_value == 2


def test_unknown_metric_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown health metric"):
        counter_step_timing([], "erase_count")


@given(st.lists(st.integers(min_value=0, max_value=3), min_size=1, max_size=40))
def test_matches_uniq_c_on_monotonic_counters(increments: list[int]) -> None:
    values = list(itertools.accumulate(increments))
    samples = [sample(i * 60.0, float(v), host=i * GiB) for i, v in enumerate(values)]
    steps = counter_step_timing(samples, "erase_count_avg")
    runs = [(v, len(list(g))) for v, g in itertools.groupby(values)]  # uniq -c
    assert [(s.from_value, s.samples_at_from_value) for s in steps] == runs[:-1]
    assert [s.to_value for s in steps] == [v for v, _ in runs[1:]]
    assert sum(s.step for s in steps) == values[-1] - values[0]
    for s in steps:
        assert s.last_before_s < s.first_after_s
        assert s.step > 0
    for previous, s in itertools.pairwise(steps):
        assert s.since_previous_step_s is not None
        assert s.since_previous_step_s > 0
        assert s.since_previous_min_s is not None
        assert s.since_previous_max_s is not None
        assert 0 <= s.since_previous_min_s <= s.since_previous_step_s <= s.since_previous_max_s
        assert (
            s.host_written_bytes
            == s.first_after_s / 60.0 * GiB - previous.first_after_s / 60.0 * GiB
        )
