"""The SNIA PTS plans: goldens pinning loop order and parameters, and the conformance rules."""

import json
from dataclasses import replace

import pytest

from ssdlab.errors import SafetyRefusal, UsageError
from ssdlab.model.profile import ProfilePlan, ProfileStep
from ssdlab.model.target import PurgeSupport
from ssdlab.model.units import GiB, KiB, MiB
from ssdlab.plan.pts import (
    plan_pts_hir,
    plan_pts_iops,
    plan_pts_lat,
    plan_pts_tp,
    plan_pts_wsat,
    plan_pts_xsr,
)
from tests.conftest import ROOT
from tests.unit.plan.profile_golden import DEVICE_TARGET, FILE_TARGET, check_golden

NVME = replace(
    DEVICE_TARGET,
    transport="nvme",
    purge_support=PurgeSupport("nvme", nvme_format_erase=True, discard=True),
)
PLANNERS = {
    "iops": plan_pts_iops,
    "tp": plan_pts_tp,
    "lat": plan_pts_lat,
    "wsat": plan_pts_wsat,
    "hir": plan_pts_hir,
    "xsr": plan_pts_xsr,
}
MIXES = (100, 95, 65, 50, 35, 5, 0)
SIZES = (1024 * KiB, 128 * KiB, 64 * KiB, 32 * KiB, 16 * KiB, 8 * KiB, 4 * KiB, 512)


def _options(step: ProfileStep) -> dict[str, str]:
    assert step.job is not None
    return dict(step.job.global_options) | dict(step.job.sections[0][1])


@pytest.mark.parametrize("name", sorted(PLANNERS))
def test_golden_on_an_nvme_drive(name: str, update_golden: bool) -> None:
    check_golden(f"pts-{name}__device", PLANNERS[name]({}, NVME), update_golden)


def test_golden_client_class_and_a_trial_on_a_file(update_golden: bool) -> None:
    check_golden("pts-iops__client", plan_pts_iops({"device_class": "client"}, NVME), update_golden)
    trial = plan_pts_iops(
        {"round_seconds": 0.5, "block_sizes": (4 * KiB,), "mixes": (0,), "wipc_multiple": 0.5},
        FILE_TARGET,
    )
    check_golden("pts-iops__file", trial, update_golden)


def test_iops_round_is_mix_outer_block_size_inner_in_spec_order() -> None:
    plan = plan_pts_iops({}, NVME)
    (loop,) = plan.loops
    order = [(s.param("rwmix_read_pct"), s.param("block_size_bytes")) for s in loop.steps]
    assert order == [(mix, size) for mix in MIXES for size in SIZES]
    assert (loop.min_rounds, loop.max_rounds) == (5, 25)
    tracked = {s.param("tracks") for s in loop.steps} - {None}
    assert tracked == {"iops 0/100 4KiB", "iops 65/35 64KiB", "iops 100/0 1024KiB"}
    for step in loop.steps:
        options = _options(step)
        assert options["runtime"] == "60"
        assert "time_based" in options
        assert options["randseed"] == "20201001"
        assert "refill_buffers" in options
        assert (options["numjobs"], options["iodepth"]) == ("4", "32")  # PTS-E TC4/QD32
        assert options["size"] == str(4 * GiB)  # ActiveRange 100 %


def test_purge_then_wipc_of_twice_the_active_range_with_one_job() -> None:
    plan = plan_pts_iops({}, NVME)
    assert plan.steps[0].command[:2] == ("nvme", "set-feature")  # PTS-E: write cache off
    assert plan.steps[0].command[-1] == "--value=0"
    # Volatile Write Cache is the controller's feature: through the namespace node it goes
    # with the broadcast NSID, else a controller following the spec refuses it (0x410f, seen
    # on QEMU's NVMe in the device tier)
    assert "--namespace-id=0xffffffff" in plan.steps[0].command
    purge, wipc = plan.loops[0].before
    assert purge.command == ("nvme", "format", "/dev/nvme0n1", "--ses=1", "--force")
    options = _options(wipc)
    assert (options["rw"], options["bs"], options["numjobs"]) == ("write", str(128 * KiB), "1")
    assert int(options["io_size"]) == 2 * 4 * GiB == wipc.expected_bytes
    assert plan.param("purge_method") == "nvme-format"
    assert plan.param("purge_conformant")
    assert plan.param("deviations") == ""  # an unchanged run on a whole purged NVMe drive


def test_client_class_uses_75_percent_and_its_tc_qd() -> None:
    plan = plan_pts_iops({"device_class": "client"}, NVME)
    element = plan.loops[0].steps[0]
    options = _options(element)
    assert options["size"] == str(3 * GiB)
    assert (options["numjobs"], options["iodepth"]) == ("2", "16")
    assert plan.steps[0].command[-1] == "--value=1"  # PTS-C: write cache on


def test_throughput_has_a_purge_and_wipc_per_block_size() -> None:
    plan = plan_pts_tp({}, NVME)
    assert [loop.name for loop in plan.loops] == ["128kib", "1024kib"]
    for loop, size in zip(plan.loops, (128 * KiB, MiB), strict=True):
        purge, wipc = loop.before
        assert purge.key.startswith("purge")
        assert _options(wipc)["bs"] == str(size)
        assert [_options(s)["rw"] for s in loop.steps] == ["read", "write"]
        assert {s.param("tracks") for s in loop.steps} - {None} == {
            f"bw_bytes_per_s 0/100 {size // KiB}KiB"
        }
    keys = [s.key for s in plan.all_steps]
    assert len(keys) == len(set(keys)), "step keys are unique across loops"


def test_latency_is_tc1_qd1_with_five_nines() -> None:
    plan = plan_pts_lat({}, NVME)
    (loop,) = plan.loops
    assert len(loop.steps) == 9
    for step in loop.steps:
        options = _options(step)
        assert (options["numjobs"], options["iodepth"]) == ("1", "1")
        assert "99.999" in options["percentile_list"].split(":")


def test_wsat_has_no_wipc_and_stops_by_bytes_or_time() -> None:
    plan = plan_pts_wsat({}, NVME)
    (loop,) = plan.loops
    assert [s.key for s in loop.before] == ["purge"]
    assert loop.max_rounds == 24 * 60
    assert plan.param("stop_bytes") == 4 * 4 * GiB


def test_hir_waits_follow_preconditioning_with_a_baseline_per_state() -> None:
    plan = plan_pts_hir({"repeats": 2}, NVME)
    waits = [s.idle_s for s in plan.after if s.idle_s]
    assert waits == [5, 5, 10, 10, 15, 15, 25, 25, 50, 50]
    baselines = [s for s in plan.after if s.param("baseline")]
    assert len(baselines) == 5
    assert all(s.expected_s == 5 * 2 for s in baselines)
    assert "2 repeats per wait state instead of 360" in str(plan.param("deviations"))


def test_xsr_runs_three_access_groups_sampled_every_minute() -> None:
    plan = plan_pts_xsr({}, NVME)
    groups = [s for s in plan.steps if s.param("access_group")]
    assert [s.expected_s for s in groups] == [8 * 3600, 6 * 3600, 8 * 3600]
    assert [_options(s)["rw"] for s in groups] == ["write", "randwrite", "write"]
    assert all(s.log_interval_ms == 60_000 for s in groups)


def _deviations(plan: ProfilePlan) -> list[str]:
    return [d for d in str(plan.param("deviations")).split("\n") if d]


def test_every_change_from_the_spec_is_a_recorded_deviation() -> None:
    plan = plan_pts_iops(
        {"round_seconds": 1.0, "active_range": 50, "threads": 1, "write_cache": "keep"}, NVME
    )
    text = "\n".join(_deviations(plan))
    for part in ("element seconds 1.0", "ActiveRange % 50", "TC1/QD32", "write cache left"):
        assert part in text
    assert all(note.startswith("not conformant") for note in plan.notes)
    assert "the target is a file" in "\n".join(_deviations(plan_pts_iops({}, FILE_TARGET)))
    loop_purge = _deviations(plan_pts_iops({}, replace(NVME, transport="loop", purge_support=None)))
    assert any("purge by zero" in d for d in loop_purge)


def test_trial_filters_keep_the_tracking_elements() -> None:
    plan = plan_pts_iops({"block_sizes": (8 * KiB,), "mixes": (50,)}, NVME)
    keys = [s.key for s in plan.loops[0].steps]
    assert keys == ["rnd-1024kib-r100", "rnd-64kib-r65", "rnd-8kib-r50", "rnd-4kib-r0"]
    with pytest.raises(UsageError, match="no sub-test"):
        plan_pts_tp({"block_sizes": (4 * KiB,)}, NVME)
    with pytest.raises(UsageError, match="does not offer"):
        plan_pts_iops({"purge": "ata-secure-erase"}, replace(NVME, purge_support=PurgeSupport(
            "nvme", nvme_format_erase=True, ata_security_erase=False)))  # fmt: skip


NVME_PARTITION = replace(
    NVME,
    path="/dev/nvme0n1p1",
    purge_support=PurgeSupport("nvme", nvme_format_erase=True, discard=True, whole_drive="nvme0n1"),
)


@pytest.mark.parametrize("name", sorted(PLANNERS))
def test_a_partition_is_purged_within_its_range_only(name: str) -> None:
    """A drive that claims Format NVM support: on its partition every PTS test purges by
    TRIM over the partition, never by a format of the whole namespace, and says why."""
    plan = PLANNERS[name]({}, NVME_PARTITION)
    purges = [
        step
        for step in (*plan.steps, *(s for loop in plan.loops for s in loop.before))
        if step.key.startswith("purge")
    ]
    assert purges
    assert all(step.command == () and step.job is not None for step in purges)
    for step in purges:
        assert _options(step)["filename"] == "/dev/nvme0n1p1"
        assert step.direction == "trim"
    assert plan.param("purge_method") == "trim"
    assert not plan.param("purge_conformant")
    assert any("erase all of /dev/nvme0n1, not just this partition" in d for d in _deviations(plan))


@pytest.mark.parametrize("name", sorted(PLANNERS))
def test_a_whole_drive_purge_named_for_a_partition_is_refused(name: str) -> None:
    with pytest.raises(SafetyRefusal, match=r"^--purge nvme-format erases all of /dev/nvme0n1, "):
        PLANNERS[name]({"purge": "nvme-format"}, NVME_PARTITION)


def test_write_cache_command_is_the_one_the_controller_accepted() -> None:
    """Replayed from the device tier (tests/data/devices): through the namespace node, QEMU's
    NVMe controller refused Volatile Write Cache with the namespace's NSID (0x410f) and took it
    with the broadcast NSID; the plan sends the latter."""
    data = ROOT / "tests" / "data" / "devices"
    refused = json.loads((data / "nvme-set-feature-vwc-namespace.json").read_text())
    accepted = json.loads((data / "nvme-set-feature-vwc-broadcast.json").read_text())
    assert refused["exit_code"] == 1
    assert "0x410f" in refused["stderr"]
    assert accepted["exit_code"] == 0
    command = plan_pts_iops({}, NVME).steps[0].command
    assert list(command) == accepted["argv"]
    assert list(command) != refused["argv"]
