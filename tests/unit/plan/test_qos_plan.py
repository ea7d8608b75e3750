"""The `qos` profile's plan: a job per direction at its rate per TB, the default duration the
deepest percentile needs, trims only on a device, and the targets files it accepts."""

import pytest

from ssdlab.errors import UsageError
from ssdlab.model.qos_targets import parse_qos_targets
from ssdlab.plan.qos import plan_qos
from ssdlab.profiles.qos import shipped_targets
from tests.unit.plan.profile_golden import DEVICE_TARGET, FILE_TARGET, check_golden

GOOD = """
[workload.mine]
source = "a buyer"
read_mib_s_per_tb = 100
[[workload.mine.target]]
direction = "read"
percentile = 99
limit_us = 500
source = "our contract, clause 4"
"""


@pytest.mark.parametrize("kind", ["file", "device"])
def test_golden(kind: str, update_golden: bool) -> None:
    target = FILE_TARGET if kind == "file" else DEVICE_TARGET
    check_golden(f"qos__{kind}", plan_qos({"duration": 600.0}, target), update_golden)


def _rates(plan_sections: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]) -> dict[str, int]:
    return {name: int(dict(options)["rate"]) for name, options in plan_sections}


def test_rates_scale_with_the_target_and_trims_run_only_on_a_device() -> None:
    device = plan_qos({"duration": 60.0}, DEVICE_TARGET).step_named("qos")
    assert device is not None
    assert device.job is not None
    tb = DEVICE_TARGET.capacity_bytes / 1e12  # type: ignore[operator]
    assert _rates(device.job.sections) == {
        "qos-read": round(68 * 2**20 * tb),
        "qos-write": round(72 * 2**20 * tb),
        "qos-trim": round(117 * 2**20 * tb),
    }
    on_file = plan_qos({"duration": 60.0}, FILE_TARGET)
    step = on_file.step_named("qos")
    assert step is not None
    assert step.job is not None
    assert set(_rates(step.job.sections)) == {"qos-read", "qos-write"}
    assert "trims left out" in on_file.notes[0]


def test_the_default_duration_gives_the_deepest_percentile_ten_ios_above_it() -> None:
    step = plan_qos({}, DEVICE_TARGET).step_named("qos")
    assert step is not None
    assert step.job is not None
    duration = float(step.param("duration_s"))  # type: ignore[arg-type]
    reads_per_s = _rates(step.job.sections)["qos-read"] / 4096
    writes_per_s = _rates(step.job.sections)["qos-write"] / 4096
    assert min(reads_per_s, writes_per_s) * duration >= 10**7  # p99.9999: 10^7 I/Os
    assert min(reads_per_s, writes_per_s) * (duration - 1) < 10**7


def test_the_shipped_targets_are_ocp_appendix_a21_as_written() -> None:
    workload, _cto, _trim = parse_qos_targets(shipped_targets(), "shipped")
    assert workload.name == "4K_L2R6DWPD_wTRIM"
    assert dict(workload.rates_mib_s_per_tb) == {"read": 68, "write": 72, "trim": 117}
    assert {(t.direction, t.check): t.limit_ns / 1000 for t in workload.targets} == {
        ("read", "p99"): 2000,
        ("read", "p99.99"): 5000,
        ("read", "p99.9999"): 8500,
        ("read", "max"): 15000,
        ("write", "p99.99"): 15000,
        ("write", "p99.9999"): 25000,
        ("write", "max"): 30000,
    }
    assert all("A.2.1" in t.source for t in workload.targets)


def test_a_buyers_targets_file_is_taken() -> None:
    plan = plan_qos({"targets": "mine.toml", "targets_text": GOOD}, FILE_TARGET)
    step = plan.step_named("qos")
    assert step is not None
    assert step.param("workload") == "mine"
    assert step.job is not None
    assert [n for n, _ in step.job.sections] == ["qos-read"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("not = [toml", "is not TOML"),
        ("[other]\n", "no [workload.NAME] table"),
        (GOOD.replace("percentile = 99", "percentile = 100"), "percentile must be"),
        (GOOD.replace('direction = "read"', 'direction = "write"'), "no write rate"),
        (GOOD.replace('source = "our contract, clause 4"', ""), "names its source"),
        (GOOD.replace("limit_us = 500", "limit_us = -1"), "limit_us must be"),
        (GOOD.replace("read_mib", "reed_mib"), "unknown key reed_mib_s_per_tb"),
    ],
)
def test_a_bad_targets_file_is_one_clear_line(text: str, says: str) -> None:
    with pytest.raises(UsageError) as raised:
        plan_qos({"targets": "mine.toml", "targets_text": text}, FILE_TARGET)
    message = str(raised.value)
    assert says in message
    assert "mine.toml" in message
    assert "\n" not in message


def test_a_workload_the_file_lacks_is_named() -> None:
    with pytest.raises(UsageError, match="has no workload nope"):
        plan_qos({"workload": "nope"}, FILE_TARGET)


def test_cto3_is_an_hour_of_qd1_reads_and_writes_unthrottled() -> None:
    plan = plan_qos({"workload": "CTO-3"}, DEVICE_TARGET)
    step = plan.step_named("qos")
    assert step is not None
    assert step.job is not None
    assert step.param("duration_s") == 3600.0
    sections = dict(step.job.sections)
    assert set(sections) == {"qos-read", "qos-write"}
    for options in sections.values():
        assert dict(options)["iodepth"] == "1"
        assert "rate" not in dict(options)
    (_ocp, cto, _trim) = parse_qos_targets(shipped_targets(), "shipped")
    assert {(t.direction, t.limit_ns, t.at_most, t.window_s) for t in cto.targets} == {
        ("all", 8e9, 0, None),
        ("all", 2e9, 7, 3600.0),
    }


def test_trim6_7_reads_alone_with_trims_and_after_a_burst_on_written_blocks() -> None:
    plan = plan_qos({"workload": "TRIM-6-7", "duration": 30.0}, DEVICE_TARGET)
    assert [s.key for s in plan.steps] == [
        "fill",
        "qos",
        "qos-trim",
        "qos-burst",
        "qos-after-burst",
    ]
    half = str(DEVICE_TARGET.size_bytes // 2)
    with_trims = plan.step_named("qos-trim")
    assert with_trims is not None
    assert with_trims.job is not None
    sections = {name: dict(options) for name, options in with_trims.job.sections}
    assert sections["qos-read"]["size"] == half  # reads on the first half ...
    assert (sections["qos-trim"]["offset"], sections["qos-trim"]["size"]) == (half, half)
    alone = plan.step_named("qos")
    assert alone is not None
    assert alone.job is not None
    assert [name for name, _ in alone.job.sections] == ["qos-read"]  # no trims in the baseline
    on_file = plan_qos({"workload": "TRIM-6-7", "duration": 30.0}, FILE_TARGET)
    assert "qos-trim" not in [s.key for s in on_file.steps]
    assert any("trims running left out" in note for note in on_file.notes)


def test_the_shipped_trim6_7_targets_name_their_requirements() -> None:
    *_, trim = parse_qos_targets(shipped_targets(), "shipped")
    assert {(t.phase, t.percentile, t.change_pct) for t in trim.targets} == {
        ("trim", 50.0, 5.0),
        ("trim", 99.0, 5.0),
        ("burst", 50.0, 5.0),
        ("burst", 99.0, 5.0),
    }
    assert {t.source.split(":")[0][-6:] for t in trim.targets} == {"TRIM-6", "TRIM-7"}
