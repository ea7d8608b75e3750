"""The `cache` profile's plan: a size-bound write with a bandwidth log, and the probe."""

from dataclasses import replace

import pytest

from ssdlab.errors import UsageError
from ssdlab.model.units import KiB, MiB
from ssdlab.plan.cache import plan_cache
from tests.unit.plan.profile_golden import DEVICE_TARGET, FILE_TARGET, check_golden


def test_golden(update_golden: bool) -> None:
    check_golden("cache__file", plan_cache({}, FILE_TARGET), update_golden)
    probe = plan_cache({"recovery_idle": 300.0, "recovery_size": 256 * MiB}, DEVICE_TARGET)
    check_golden("cache__device", probe, update_golden)


def test_the_whole_region_is_written_once_by_size_not_time() -> None:
    plan = plan_cache({}, DEVICE_TARGET)
    (write,) = plan.steps
    assert write.job is not None
    assert plan.destructive
    options = dict(write.job.global_options) | dict(write.job.sections[0][1])
    assert int(options["size"]) == DEVICE_TARGET.size_bytes == write.expected_bytes
    assert "time_based" not in options
    assert write.expected_s is None
    assert options["write_bw_log"] == "write"
    assert options["log_avg_msec"] == "1000"
    assert "refill_buffers" in options  # incompressible: no compression can fake a cache
    assert (options["rw"], options["bs"]) == ("write", str(MiB))


def test_random_pattern_and_probe() -> None:
    plan = plan_cache({"pattern": "rand", "log_interval": 0.25, "recovery_idle": 60.0}, FILE_TARGET)
    write, idle, probe = plan.steps
    assert write.job is not None
    assert probe.job is not None
    section = dict(write.job.sections[0][1])
    assert (section["rw"], section["bs"]) == ("randwrite", str(4 * KiB))
    assert dict(write.job.global_options)["log_avg_msec"] == "250"
    assert idle.idle_s == 60.0
    assert idle.job is None
    assert probe.expected_bytes == FILE_TARGET.size_bytes  # default: the region again
    assert not plan.destructive
    assert plan.notes


def test_rate_caps_both_writes_so_the_log_has_a_known_length() -> None:
    plan = plan_cache({"rate": 16 * MiB, "recovery_idle": 1.0}, FILE_TARGET)
    write, _, probe = plan.steps
    for step in (write, probe):
        assert step.job is not None
        assert dict(step.job.sections[0][1])["rate"] == str(16 * MiB)
        assert dict(step.params)["rate_bytes_per_s"] == 16 * MiB
    assert any("fio rate=" in note for note in plan.notes)
    (uncapped,) = plan_cache({}, FILE_TARGET).steps
    assert uncapped.job is not None
    assert "rate" not in dict(uncapped.job.sections[0][1])
    assert "rate_bytes_per_s" not in dict(uncapped.params)


def test_repeated_writes_share_the_key_and_wait_the_recovery_idle() -> None:
    repeated = plan_cache({"repeat": 3, "recovery_idle": 60.0}, FILE_TARGET)
    writes = [s for s in repeated.steps if s.key == "write"]
    assert [(s.round_index, s.pause_before_s) for s in writes] == [(1, 0.0), (2, 60.0), (3, 60.0)]
    assert [s.key for s in repeated.steps][-2:] == ["idle", "probe"]
    (once,) = [s for s in plan_cache({}, FILE_TARGET).steps if s.key == "write"]
    assert once.round_index is None  # one write: the plan of old


def test_prefill_discards_then_writes_its_share_before_the_write() -> None:
    plan = plan_cache({"prefill": 50, "prefill_idle": 300.0}, DEVICE_TARGET)
    discard, prefill, idle, write = plan.steps
    assert discard.job is not None
    assert prefill.job is not None
    assert dict(discard.job.sections[0][1])["rw"] == "trim"
    assert int(dict(discard.job.global_options)["size"]) == DEVICE_TARGET.size_bytes
    half = DEVICE_TARGET.size_bytes // 2 // MiB * MiB
    assert prefill.expected_bytes == half
    assert dict(prefill.job.sections[0][1])["rw"] == "write"  # sequential, from the start
    assert dict(prefill.params)["level_pct"] == 50
    assert idle.idle_s == 300.0
    assert write.expected_bytes == DEVICE_TARGET.size_bytes  # the whole region, from 0
    assert ("prefill", 50) in plan.settings


def test_prefill_zero_only_discards() -> None:
    (discard, write) = plan_cache({"prefill": 0}, DEVICE_TARGET).steps
    assert discard.key == "discard"
    assert write.key == "write"


def test_prefill_refusals() -> None:
    no_discard = replace(DEVICE_TARGET, discard_supported=False)
    with pytest.raises(UsageError, match="--prefill needs a device that takes discards"):
        plan_cache({"prefill": 50}, no_discard)
    with pytest.raises(UsageError, match="give --prefill too"):
        plan_cache({"prefill_idle": 30.0}, DEVICE_TARGET)
    with pytest.raises(UsageError, match="at most 99"):
        plan_cache({"prefill": 100}, DEVICE_TARGET)


def test_a_region_under_64_mib_is_discarded_in_one_trim() -> None:
    """fio refuses a trim block larger than the job's size (found on a 32 MiB virtual drive)."""
    small = replace(DEVICE_TARGET, size_bytes=16 * MiB, capacity_bytes=32 * MiB)
    discard = plan_cache({"prefill": 90}, small).steps[0]
    assert discard.job is not None
    assert dict(discard.job.sections[0][1])["bs"] == str(16 * MiB)
