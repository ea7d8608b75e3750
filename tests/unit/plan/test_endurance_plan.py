"""The `endurance` profile's plan: one bounded iteration in an open-ended loop, per workload."""

import dataclasses

import pytest

from ssdlab.errors import UsageError
from ssdlab.model.units import GiB, KiB, MiB
from ssdlab.plan.endurance import bssplit, mean_transfer_bytes, plan_endurance
from ssdlab.profiles.endurance import JESD219_LARGE, JESD219_SMALL
from tests.unit.plan.profile_golden import DEVICE_TARGET, FILE_TARGET, check_golden

USER_JOB = """\
; a user's own workload
[global]
rw=randwrite
bs=16k
[hot]
random_distribution=zipf:1.2
iodepth=8
"""


def test_golden(update_golden: bool) -> None:
    check_golden("endurance__file", plan_endurance({}, FILE_TARGET), update_golden)
    enterprise = plan_endurance(
        {"workload": "jesd219-enterprise", "until_written": 10**12}, DEVICE_TARGET
    )
    check_golden("endurance__jesd219_enterprise__device", enterprise, update_golden)
    client = plan_endurance(
        {"workload": "jesd219-client", "iteration_bytes": 256 * MiB}, DEVICE_TARGET
    )
    check_golden("endurance__jesd219_client__device", client, update_golden)
    user = plan_endurance(
        {"workload": "job", "job_text": USER_JOB, "iteration_time": 60.0, "for_time": 3600.0},
        FILE_TARGET,
    )
    check_golden("endurance__job__file", user, update_golden)


def _sections(plan: object) -> dict[str, dict[str, str]]:
    (loop,) = plan.loops  # type: ignore[attr-defined]
    (step,) = loop.steps
    return {name: dict(options) for name, options in step.job.sections}


def test_one_open_ended_loop_of_one_iteration_that_writes_incompressible_data() -> None:
    plan = plan_endurance({"iteration_time": 30.0}, DEVICE_TARGET)
    assert plan.destructive
    assert not plan.steps
    (loop,) = plan.loops
    assert loop.unbounded
    assert loop.min_rounds == 1
    (step,) = loop.steps
    assert step.job is not None
    assert step.expected_s == 30.0
    assert step.expected_bytes is None
    options = dict(step.job.global_options)
    assert options["runtime"] == "30"
    assert "time_based" in options
    assert "refill_buffers" in options
    assert options["randrepeat"] == "0"
    assert options["size"] == str(DEVICE_TARGET.size_bytes)


def test_jesd219_enterprise_keeps_the_io_ratio_and_the_alignment_split() -> None:
    plan = plan_endurance({"workload": "jesd219-enterprise", "iteration_bytes": GiB}, DEVICE_TARGET)
    sections = _sections(plan)
    small, large = sections["sub4k"], sections["large"]
    assert small["blockalign"] == "512"
    assert large["blockalign"] == str(4 * KiB)
    assert small["random_distribution"] == large["random_distribution"] == "zoned:50/5:30/15:20/80"
    n_small, n_large = int(small["number_ios"]), int(large["number_ios"])
    assert abs(n_small / (n_small + n_large) - 0.10) < 1e-4  # 10 % of I/Os below 4 KiB
    expected = n_small * mean_transfer_bytes(JESD219_SMALL) + n_large * mean_transfer_bytes(
        JESD219_LARGE
    )
    assert abs(expected - GiB) / GiB < 1e-3  # the iteration writes its bytes in expectation
    # every share of the JEDEC table, scaled within each job
    shares = {int(s.split("/")[0]): float(s.split("/")[1]) for s in large["bssplit"].split(":")}
    assert shares[4 * KiB] == pytest.approx(67 / 90 * 100, abs=1e-3)
    assert sum(shares.values()) == pytest.approx(100, abs=1e-3)


def test_bssplit_scales_to_one_hundred() -> None:
    assert bssplit(((4096, 1.0), (8192, 3.0))) == "4096/25:8192/75"


def test_jesd219_client_trims_only_devices() -> None:
    on_device = _sections(plan_endurance({"workload": "jesd219-client"}, DEVICE_TARGET))
    on_file = _sections(plan_endurance({"workload": "jesd219-client"}, FILE_TARGET))
    assert on_device["trims"]["rw"] == "randtrim"
    assert "trims" not in on_file
    assert "approximation" in " ".join(
        plan_endurance({"workload": "jesd219-client"}, FILE_TARGET).notes
    )


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ({"workload": "jesd219-enterprise", "iteration_time": 60.0}, "bounded by bytes"),
        ({"iteration_time": 60.0, "iteration_bytes": GiB}, "not both"),
        ({"workload": "job"}, "--job-file"),
        ({"workload": "job", "job_text": "[w]\nrw=randread\n"}, "does not write"),
        ({"workload": "job", "job_text": "[w]\nrw=write\nfilename=/dev/sda\n"}, "filename"),
        ({"workload": "job", "job_text": "[w]\nrw=write\nexec_prerun=rm -rf /\n"}, "program"),
        ({"workload": "job", "job_text": "[w]\nrw=write\nruntime=5\n"}, "bounds the job"),
    ],
)
def test_refusals_say_what_to_do(given: dict[str, object], words: str) -> None:
    with pytest.raises(UsageError, match=words):
        plan_endurance(given, FILE_TARGET)  # type: ignore[arg-type]


def test_jesd219_enterprise_needs_512_byte_blocks() -> None:
    target = dataclasses.replace(DEVICE_TARGET, logical_block_bytes=4096)
    with pytest.raises(UsageError, match="512-byte"):
        plan_endurance({"workload": "jesd219-enterprise"}, target)
