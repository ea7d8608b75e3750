"""The OCP thermal requirements and the drive's counters against replayed series."""

from dataclasses import replace

from ssdlab.analysis.thermal import ThermalPoint, find_throttling
from ssdlab.analysis.thermal_checks import (
    counter_checks,
    exit_check,
    identify_checks,
    lifetime_share_check,
    onset_check,
    thermal_checks,
    warning_time_check,
)
from ssdlab.analysis.verdict_state import State
from ssdlab.model.thermal import ThermalCounters, ThermalLimits
from tests.unit.analysis.thermal_series import drive_series, flat_series

OCP_LIMITS = ThermalLimits(0x15E, 0x166, "nvme id-ctrl")


def test_a_drive_that_throttles_at_77_and_leaves_below_75_passes() -> None:
    series = find_throttling(drive_series(4))
    assert onset_check(series).state is State.YES
    assert exit_check(series).state is State.YES


def test_a_drive_that_throttles_early_fails() -> None:
    series = find_throttling(drive_series(4, onset_c=72.0, exit_c=70.0, cools_to_c=55.0))
    onset = onset_check(series)
    assert onset.state is State.NO
    assert "72 °C" in onset.evidence
    assert exit_check(series).state is State.YES


def test_a_drive_that_leaves_throttle_too_warm_fails_the_exit() -> None:
    series = find_throttling(drive_series(4, onset_c=79.0, exit_c=77.0))
    assert onset_check(series).state is State.YES
    assert exit_check(series).state is State.NO


def test_no_throttling_is_inconclusive_with_the_highest_reading() -> None:
    series = find_throttling(flat_series(0))
    check = onset_check(series)
    assert check.state is State.INCONCLUSIVE
    assert "highest reading 80 °C" in check.evidence
    assert exit_check(series).state is State.INCONCLUSIVE


def test_identify_thresholds() -> None:
    wctemp, cctemp = identify_checks(OCP_LIMITS)
    assert (wctemp.requirement, wctemp.state) == ("TTHROTTLE-9", State.YES)
    assert (cctemp.requirement, cctemp.state) == ("TTHROTTLE-10", State.YES)
    # QEMU's emulated controller: WCTEMP 0157h (343 K), CCTEMP 0175h (373 K)
    wctemp, cctemp = identify_checks(ThermalLimits(0x157, 0x175, "nvme id-ctrl"))
    assert wctemp.state is State.NO
    assert "0157h" in wctemp.evidence
    assert cctemp.state is State.NO


def test_identify_thresholds_not_reported_cannot_be_checked() -> None:
    for check in identify_checks(ThermalLimits(None, None, "smartctl temperature")):
        assert not check.checked
        assert check.evidence.startswith("cannot be checked on this drive")
    assert not any(c.checked for c in identify_checks(None))


def _hot(seconds: int, hot_from: int, hot_for: int) -> list[ThermalPoint]:
    return [
        ThermalPoint(float(i), 78.0 if hot_from <= i < hot_from + hot_for else 70.0, 1e9)
        for i in range(seconds)
    ]


def test_warning_time_advances_once_a_minute_at_wctemp() -> None:
    points = _hot(600, 100, 250)  # 250 s at 78 °C: 4 or 5 minutes, or one more after
    series = find_throttling(points)
    before = ThermalCounters(warning_temp_time_min=10)
    for moved, state in ((4, State.YES), (5, State.YES), (6, State.YES), (0, State.NO)):
        after = ThermalCounters(warning_temp_time_min=10 + moved)
        check = warning_time_check(points, series, OCP_LIMITS, before, after)
        assert check.state is state, (moved, check.evidence)


def test_warning_time_is_not_exercised_below_wctemp() -> None:
    points = _hot(600, 0, 0)
    counters = ThermalCounters(warning_temp_time_min=3)
    check = warning_time_check(points, find_throttling(points), OCP_LIMITS, counters, counters)
    assert check.state is State.INCONCLUSIVE
    unknown = warning_time_check(points, find_throttling(points), None, counters, counters)
    assert not unknown.checked


def test_lifetime_share_above_wctemp() -> None:
    assert lifetime_share_check(ThermalCounters(0, power_on_hours=10147)).state is State.YES
    assert lifetime_share_check(ThermalCounters(600, power_on_hours=100)).state is State.NO
    assert lifetime_share_check(ThermalCounters(6, power_on_hours=10)).state is State.INCONCLUSIVE
    qemu = lifetime_share_check(ThermalCounters(0, power_on_hours=0))
    assert not qemu.checked


def test_counters_agree_with_the_series() -> None:
    series = find_throttling(drive_series(4))
    episodes = len(series.thermal_episodes)
    before = ThermalCounters(ocp_throttling_events=3, thm_temp1_trans_count=0)
    after = replace(before, ocp_throttling_events=3 + episodes)
    ocp, thm = counter_checks(series, before, after)
    assert ocp.consistent is True
    assert thm.consistent is False
    assert "did not increase" in thm.evidence
    assert "host-controlled" in thm.evidence


def test_a_count_without_a_throttle_in_the_series_is_said() -> None:
    series = find_throttling(flat_series(1))
    before = ThermalCounters(ocp_throttling_events=3)
    ocp, thm = counter_checks(series, before, replace(before, ocp_throttling_events=4))
    assert ocp.consistent is False
    assert "shows no throttling" in ocp.evidence
    assert thm.consistent is None


def test_every_requirement_is_answered() -> None:
    points = drive_series(4)
    series = find_throttling(points)
    checks = thermal_checks(points, series, None, None, None)
    assert [c.requirement for c in checks] == [
        "TTHROTTLE-5",
        "TTHROTTLE-7",
        "TTHROTTLE-9",
        "TTHROTTLE-10",
        "TTHROTTLE-11",
        "REL-5",
    ]
    assert [c.checked for c in checks] == [True, True, False, False, False, False]
