"""Where the time between samples comes from: timestamps, else ΔPower_On_Hours, else given.

Expected values are worked by hand from the inputs in each test.
"""

import dataclasses

import pytest

from ssdlab.analysis.endurance import endurance_status
from ssdlab.analysis.wear import (
    POWER_ON_HOURS_RESOLUTION_S,
    analyse_series,
    compare_samples,
    elapsed_between,
    timeline,
)
from ssdlab.model.health import HealthSample
from ssdlab.model.units import TB
from tests.unit.analysis.endurance_settings import endurance_settings
from tests.unit.analysis.health_samples import hv, make_sample

HOUR = 3600.0
DAY = 86_400.0


def sample(
    t_s: float | None, power_on_h: float | None, *, wear: float, host: float
) -> HealthSample:
    made = make_sample(t_s, wear=wear, host=host, host_res=512.0)
    return dataclasses.replace(made, power_on_hours=hv(power_on_h, 1.0))


# The MX300 case of issue #17: 97 power-on hours apart, wear 0 → 3 %, no timestamps.
BEFORE = sample(None, 1000, wear=0.0, host=1.0 * TB)
AFTER = sample(None, 1097, wear=3.0, host=4.0 * TB)


def test_untimed_samples_take_the_elapsed_time_from_power_on_hours() -> None:
    elapsed = elapsed_between(BEFORE, AFTER)
    assert elapsed.source == "power_on_hours"
    assert elapsed.elapsed_s == 97 * HOUR
    assert elapsed.resolution_s == POWER_ON_HOURS_RESOLUTION_S == HOUR
    assert elapsed.uncertainty_pct == pytest.approx(100 / 97)
    assert elapsed.note is not None
    assert "Power_On_Hours" in elapsed.note
    assert "±1 h" in elapsed.note
    assert "power-on time" in elapsed.note


def test_the_mx300_window_gives_days_to_end_of_life() -> None:
    report = compare_samples(BEFORE, AFTER)
    assert report.elapsed_source == "power_on_hours"
    assert report.elapsed_s == 97 * HOUR
    assert report.elapsed_uncertainty_pct == pytest.approx(100 / 97)
    assert (report.before_power_on_hours, report.after_power_on_hours) == (1000, 1097)
    # 3 % in 97 h = 3 / (97 / 24) %/day; 97 % left ⇒ 97 / that = 97 × 97 / 3 / 24 days
    assert report.wear_rate.pct_per_day == pytest.approx(3 / (97 / 24))
    assert report.projection.days_to_eol == pytest.approx(97 * 97 / 3 / 24)  # 130.68 days
    # 3 % per 3 TB ⇒ 1 %/TB; 97 % left ⇒ 97 TB more on top of the 4 TB written so far
    assert report.projection.host_written_at_eol_bytes == pytest.approx(101 * TB)
    assert report.host_written_bytes_per_day == pytest.approx(3 * TB / (97 / 24))
    assert any("Power_On_Hours" in n for n in report.notes)
    days_note = next(n for n in report.notes if n.startswith("days to end of life"))
    assert "±33.3 %" in days_note
    assert "±1.03 %" in days_note


def test_a_given_elapsed_time_overrides_power_on_hours_and_timestamps() -> None:
    report = compare_samples(BEFORE, AFTER, elapsed_s=200 * HOUR)
    assert report.elapsed_source == "given"
    assert report.elapsed_s == 200 * HOUR
    assert report.elapsed_uncertainty_pct is None
    assert report.projection.days_to_eol == pytest.approx(97 / (3 / (200 / 24)))
    timed = compare_samples(
        sample(0.0, 1000, wear=0.0, host=0.0), sample(DAY, 1001, wear=3.0, host=TB),
        elapsed_s=2 * DAY,
    )  # fmt: skip
    assert timed.elapsed_source == "given"
    assert timed.wear_rate.pct_per_day == pytest.approx(1.5)


def test_timestamps_win_over_power_on_hours() -> None:
    report = compare_samples(
        sample(0.0, 1000, wear=0.0, host=0.0), sample(3 * DAY, 1097, wear=3.0, host=TB)
    )
    assert report.elapsed_source == "timestamps"
    assert report.elapsed_s == 3 * DAY
    assert report.elapsed_uncertainty_pct is None
    assert report.projection.days_to_eol == pytest.approx(97.0)


@pytest.mark.parametrize(
    ("before_h", "after_h", "words"),
    [
        (None, 1097, "not both carry Power_On_Hours"),
        (1000, None, "not both carry Power_On_Hours"),
        (1000, 1000, "did not advance"),
        (1097, 1000, "did not advance"),
    ],
)
def test_no_elapsed_time_says_why(
    before_h: float | None, after_h: float | None, words: str
) -> None:
    report = compare_samples(
        sample(None, before_h, wear=0.0, host=0.0), sample(None, after_h, wear=3.0, host=TB)
    )
    assert report.elapsed_s is None
    assert report.elapsed_source is None
    assert report.elapsed_reason is not None
    assert words in report.elapsed_reason
    assert report.projection.days_to_eol is None
    assert report.wear_rate.pct_per_host_tb == pytest.approx(3.0)  # per TB needs no clock


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_a_given_elapsed_time_must_be_positive(bad: float) -> None:
    with pytest.raises(ValueError, match="positive"):
        elapsed_between(BEFORE, AFTER, given_s=bad)
    with pytest.raises(ValueError, match="positive"):
        timeline([BEFORE, AFTER], elapsed_s=bad)


def test_a_series_of_untimed_samples_runs_on_power_on_hours() -> None:
    middle = sample(None, 1050, wear=1.0, host=2.5 * TB)
    line = timeline([AFTER, BEFORE, middle])
    assert line.source == "power_on_hours"
    assert line.left_out == 0
    assert [s.taken_at_s for s in line.samples] == [1000 * HOUR, 1050 * HOUR, 1097 * HOUR]
    assert line.originals[0] is BEFORE
    assert line.originals[-1] is AFTER
    report = analyse_series([AFTER, BEFORE, middle])
    assert report.reason is None
    assert report.time_source == "power_on_hours"
    assert report.overall is not None
    assert report.overall.elapsed_source == "power_on_hours"
    assert report.overall.elapsed_s == 97 * HOUR
    assert report.projection.days_to_eol is not None
    assert any("Power_On_Hours" in n for n in report.notes)


def test_a_series_with_a_given_elapsed_time_is_stretched_to_it() -> None:
    middle = sample(None, 1050, wear=1.0, host=2.5 * TB)
    line = timeline([BEFORE, middle, AFTER], elapsed_s=194 * HOUR)
    assert line.source == "given"
    assert [s.taken_at_s for s in line.samples] == pytest.approx([0.0, 100 * HOUR, 194 * HOUR])
    report = analyse_series([BEFORE, AFTER], elapsed_s=200 * HOUR)
    assert report.time_source == "given"
    assert report.overall is not None
    assert report.overall.elapsed_s == pytest.approx(200 * HOUR)
    assert report.overall.projection.days_to_eol == pytest.approx(97 / (3 / (200 / 24)))


def test_two_samples_with_no_clock_at_all_take_the_given_time() -> None:
    bare = [sample(None, None, wear=0.0, host=0.0), sample(None, None, wear=3.0, host=TB)]
    assert timeline(bare).reason is not None
    line = timeline(bare, elapsed_s=4 * DAY)
    assert line.source == "given"
    assert line.reason is None
    assert [s.taken_at_s for s in line.samples] == [0.0, 4 * DAY]
    report = analyse_series(bare)
    assert report.reason is not None
    assert "Power_On_Hours" in report.reason


def test_a_timed_series_keeps_its_timestamps() -> None:
    timed = [sample(0.0, 5, wear=0.0, host=0.0), sample(3 * DAY, 6, wear=3.0, host=TB)]
    line = timeline(timed)
    assert line.source == "timestamps"
    assert line.resolution_s is None
    assert [s.taken_at_s for s in line.samples] == [0.0, 3 * DAY]


def test_the_endurance_status_reads_untimed_samples_by_power_on_hours() -> None:
    status = endurance_status(endurance_settings(), (), [BEFORE, AFTER])
    assert status.series is not None
    assert status.series.time_source == "power_on_hours"
    assert status.series.projection.days_to_eol == pytest.approx(97 * 97 / 3 / 24)
