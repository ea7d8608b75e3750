"""analysis/alerts.py: edge-triggered thresholds, rising error counters and critical warning
bits, judged sample by sample as `ssdlab watch` does, with the state carried between calls."""

import json
from collections.abc import Sequence

import pytest

from ssdlab.analysis.alerts import (
    ERROR_COUNTERS,
    AlertState,
    DriveLimits,
    Thresholds,
    baseline_state,
    drive_limits,
    judge,
    resolve_thresholds,
    state_from_json,
)
from ssdlab.model.health import DriveIdentity, HealthSample, HealthValue
from ssdlab.parse.smartctl_json import parse_smartctl_json
from tests.conftest import SHARED

IDENTITY = DriveIdentity("NVMe", "Test SSD", "S123", "FW1", 500 * 10**9)
NO_WEAR = Thresholds(min_days_left=None)


def sample(hour: int, **values: float | None) -> HealthSample:
    fields = {name: HealthValue(value) for name, value in values.items()}
    return HealthSample(taken_at_s=1.7e9 + hour * 3600.0, identity=IDENTITY, **fields)  # type: ignore[arg-type]


def run_series(
    samples: Sequence[HealthSample], thresholds: Thresholds, state: AlertState | None = None
) -> tuple[list[list[str]], AlertState | None]:
    """The alert names fired at each sample, judging the series as it grows."""
    fired = []
    for end in range(1, len(samples) + 1):
        judgement = judge(samples[:end], thresholds, state)
        state = judgement.state
        fired.append([a.name for a in judgement.alerts])
    return fired, state


def test_an_error_counter_fires_at_each_rise_not_while_it_stays() -> None:
    values = [3, 3, 4, 4, 4, 9, 9]
    samples = [sample(h, media_errors=v) for h, v in enumerate(values)]
    fired, state = run_series(samples, NO_WEAR)
    assert fired == [[], [], ["media_errors-increased"], [], [], ["media_errors-increased"], []]
    assert state is not None
    assert dict(state.counters)["media_errors"] == 9
    second = judge(samples[:6], NO_WEAR, judge(samples[:5], NO_WEAR, None).state).alerts
    assert (second[0].previous, second[0].value, second[0].severity) == (4, 9, "critical")
    assert second[0].threshold is None


def test_the_first_sample_is_the_baseline_of_every_counter() -> None:
    first = sample(0, media_errors=7, uncorrectable_errors=2, reallocated_sectors=None)
    assert baseline_state(first).counters == (("media_errors", 7.0), ("uncorrectable_errors", 2.0))
    assert judge([first], NO_WEAR, None).alerts == ()  # counters already high: the baseline


def test_every_error_counter_of_the_sample_is_watched() -> None:
    names = tuple(n for n in ERROR_COUNTERS if n in HealthSample.__dataclass_fields__)
    assert len(names) >= 4
    before = sample(0, **dict.fromkeys(names, 0.0))
    after = sample(1, **dict.fromkeys(names, 1.0))
    fired = {a.name for a in judge([before, after], NO_WEAR, None).alerts}
    assert fired == {f"{name}-increased" for name in names}


def test_a_counter_that_went_down_is_followed_down() -> None:
    values = [5, 2, 3]
    fired, _ = run_series([sample(h, pending_sectors=v) for h, v in enumerate(values)], NO_WEAR)
    assert fired == [[], [], ["pending_sectors-increased"]]


def test_temperature_fires_once_while_high_and_again_after_it_cleared() -> None:
    temperatures = [40, 70, 72, 71, 60, 75, None, 74]
    samples = [sample(h, temperature_c=t) for h, t in enumerate(temperatures)]
    fired, _ = run_series(samples, Thresholds(max_temperature_c=70, min_days_left=None))
    high = ["temperature-high"]
    assert fired == [[], high, [], [], [], high, [], []]  # unknown (None) clears nothing


def test_spare_dropping_below_the_threshold_fires_once() -> None:
    spares = [100, 50, 9, 8, 8]
    samples = [sample(h, available_spare_pct=s) for h, s in enumerate(spares)]
    fired, state = run_series(samples, Thresholds(min_spare_pct=10, min_days_left=None))
    assert fired == [[], [], ["spare-low"], [], []]
    assert state is not None
    assert state.active == ("spare-low",)
    alert = judge(samples[:3], Thresholds(min_spare_pct=10, min_days_left=None), None).alerts[0]
    assert (alert.value, alert.threshold, alert.severity) == (9, 10, "critical")


def test_critical_warning_bits_fire_when_newly_set() -> None:
    bits = [0, 1, 1, 5, 4, 5]
    samples = [sample(h, critical_warning=b) for h, b in enumerate(bits)]
    fired, _ = run_series(samples, NO_WEAR)
    assert fired == [[], ["critical-warning"], [], ["critical-warning"], [], ["critical-warning"]]
    alert = judge(samples[:4], NO_WEAR, judge(samples[:3], NO_WEAR, None).state).alerts[0]
    assert alert.previous == 1
    assert "reliability" in alert.message  # bit 2 is new, bit 0 was already set
    assert "spare" not in alert.message


def test_days_left_and_waf_come_from_the_wear_analysis() -> None:
    # one point of wear a day from 50 %: 50 days left; NAND = 4 × host over every window
    samples = [
        sample(
            24 * d,
            wear_used_pct=50 + d,
            host_written_bytes=(1000 + 100 * d) * 10**9,
            nand_written_bytes=(4000 + 400 * d) * 10**9,
        )
        for d in range(5)
    ]
    judgement = judge(samples, Thresholds(min_days_left=180, max_waf=3.0), None)
    by_name = {a.name: a for a in judgement.alerts}
    assert set(by_name) == {"days-left-low", "waf-high"}
    assert by_name["days-left-low"].value == pytest.approx(46, abs=1)
    assert by_name["waf-high"].value == pytest.approx(4.0)
    quiet = judge(samples, Thresholds(min_days_left=10, max_waf=5.0), None)
    assert quiet.alerts == ()


def test_days_left_is_unknown_from_one_sample() -> None:
    judgement = judge([sample(0, wear_used_pct=99)], Thresholds(min_days_left=180), None)
    assert judgement.alerts == ()
    assert judgement.state.active == ()


def test_a_stored_state_resumes_without_refiring() -> None:
    samples = [sample(h, media_errors=v, temperature_c=t) for h, (v, t) in
               enumerate([(0, 40), (1, 80), (1, 81)])]  # fmt: skip
    thresholds = Thresholds(max_temperature_c=70, min_days_left=None)
    first = judge(samples[:2], thresholds, None)
    assert {a.name for a in first.alerts} == {"media_errors-increased", "temperature-high"}
    stored = json.loads(json.dumps({"active": list(first.state.active),
                                    "counters": [list(c) for c in first.state.counters],
                                    "warning_bits": first.state.warning_bits}))  # fmt: skip
    resumed = state_from_json(stored)
    assert resumed == first.state
    assert judge(samples, thresholds, resumed).alerts == ()
    assert state_from_json({"active": "x"}) is None


def test_the_drives_own_limits_are_the_defaults() -> None:
    limits = drive_limits(sample(0, temperature_warning_c=70, available_spare_threshold_pct=10))
    assert limits == DriveLimits(70.0, 10.0)
    assert drive_limits(sample(0, temperature_warning_c=0)) == DriveLimits()
    given = Thresholds(max_temperature_c=60, min_spare_pct=None)
    resolved = resolve_thresholds(given, limits)
    assert (resolved.max_temperature_c, resolved.min_spare_pct) == (60, 10.0)
    assert resolve_thresholds(Thresholds(), DriveLimits()).max_temperature_c is None


@pytest.mark.parametrize(
    ("name", "temperature", "spare"),
    [
        ("samsung-970evo-500GB-nvme-x.json", None, 10.0),
        ("samsung-860evo-500GB-sata-x.json", 70.0, None),
    ],
)
def test_limits_of_real_captures(name: str, temperature: float | None, spare: float | None) -> None:
    path = SHARED / "testdata" / "smart" / name
    if not path.exists():
        pytest.skip(f"{path} is not present")
    limits = drive_limits(parse_smartctl_json(path.read_text()))
    assert limits == DriveLimits(temperature, spare)


def test_an_empty_series_judges_nothing() -> None:
    assert judge([], Thresholds(), None).alerts == ()
