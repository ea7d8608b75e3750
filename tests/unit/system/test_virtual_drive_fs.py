"""The served drive's clock (system/virtual_drive_fs.py): one request at a time, each for its
model time times the scale; a fake clock, so nothing here is timed."""

import pytest

from ssdlab.system.virtual_drive_fs import DriveClock


def test_the_drive_clock_serves_one_request_at_a_time_at_the_scaled_model_time() -> None:
    now = [100.0]
    clock = DriveClock(10.0, clock=lambda: now[0])
    assert clock.reserve(0.001) == pytest.approx(100.01)
    assert clock.reserve(0.002) == pytest.approx(100.03)  # queued behind the first
    now[0] = 200.0
    assert clock.reserve(0.0) == 200.0  # idle since: starts at once


def test_the_drive_clock_says_how_long_the_drive_was_idle_in_model_time() -> None:
    now = [100.0]
    clock = DriveClock(10.0, clock=lambda: now[0])
    assert clock.idle_s() == 0.0
    done = clock.reserve(0.5)  # busy until 105
    now[0] = 103.0
    assert clock.idle_s() == 0.0  # still working on the request
    now[0] = done + 2.0
    assert clock.idle_s() == pytest.approx(0.2)  # 2 wall seconds since it finished, ÷ 10
    now[0] += 1.0
    assert clock.idle_s() == pytest.approx(0.1)  # only what passed since it was last asked
    assert DriveClock(0.0, clock=lambda: now[0]).idle_s() == 0.0
    unscaled = DriveClock(0.0, clock=lambda: now[0])
    now[0] += 1.0
    assert unscaled.idle_s() == float("inf")  # no waits: any pause is long enough
