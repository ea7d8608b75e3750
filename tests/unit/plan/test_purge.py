"""Choosing a PTS purge: the drive's own purge first, fallbacks labelled, requests checked."""

import pytest

from ssdlab.errors import SafetyRefusal, UsageError
from ssdlab.model.profile import StepRole
from ssdlab.model.target import PurgeSupport
from ssdlab.plan.purge import choose_purge, purge_steps, whole_drive_device
from tests.unit.plan.profile_golden import DEVICE_TARGET

NVME = PurgeSupport("nvme", nvme_format_erase=True, discard=True)
SATA_FROZEN = PurgeSupport("sata", ata_security_erase=False, discard=True)
LOOP = PurgeSupport("loop", False, False, False, discard=True)
NOTHING = PurgeSupport("usb", None, None, None, discard=False)


def test_auto_prefers_the_drives_own_purge() -> None:
    choice = choose_purge("auto", NVME)
    assert (choice.method, choice.conformant) == ("nvme-format", True)
    assert choose_purge("auto", PurgeSupport("sata", ata_security_erase=True)).method == (
        "ata-secure-erase"
    )
    assert choose_purge("auto", PurgeSupport("sas", scsi_format=True)).method == "scsi-format"


def test_auto_falls_back_to_trim_then_zero_and_says_it_is_not_a_purge() -> None:
    trim = choose_purge("auto", SATA_FROZEN)
    assert (trim.method, trim.conformant) == ("trim", False)
    assert "discarded" in trim.reason
    zero = choose_purge("auto", NOTHING)
    assert (zero.method, zero.conformant) == ("zero", False)


def test_a_requested_method_the_drive_lacks_or_hides_is_refused() -> None:
    with pytest.raises(UsageError, match="does not offer it"):
        choose_purge("ata-secure-erase", SATA_FROZEN)
    with pytest.raises(UsageError, match="cannot tell"):
        choose_purge("nvme-format", NOTHING)
    with pytest.raises(UsageError, match="must be one of"):
        choose_purge("shred", NVME)
    assert choose_purge("none", NVME) == choose_purge("none", LOOP)
    assert not choose_purge("none", NVME).conformant


def test_steps_name_the_device_and_never_go_through_a_shell() -> None:
    nvme = purge_steps(choose_purge("auto", NVME), DEVICE_TARGET)
    assert [s.command for s in nvme] == [
        ("nvme", "format", DEVICE_TARGET.path, "--ses=1", "--force")
    ]
    ata = purge_steps(
        choose_purge("auto", PurgeSupport("sata", ata_security_erase=True)), DEVICE_TARGET
    )
    assert [s.key for s in ata] == ["purge-set-password", "purge"]
    assert all(s.role is StepRole.COMMAND and s.command[-1] == DEVICE_TARGET.path for s in ata)


def test_fallbacks_are_fio_jobs_over_the_whole_device() -> None:
    (trim,) = purge_steps(choose_purge("trim", LOOP), DEVICE_TARGET)
    assert trim.job is not None
    assert trim.direction == "trim"
    options = dict(trim.job.global_options)
    assert options["filename"] == DEVICE_TARGET.path
    assert int(options["size"]) == DEVICE_TARGET.capacity_bytes == trim.expected_bytes
    assert "not a PTS purge" in trim.label
    (zero,) = purge_steps(choose_purge("zero", LOOP), DEVICE_TARGET)
    assert zero.job is not None
    assert "zero_buffers" in dict(zero.job.global_options)
    assert purge_steps(choose_purge("none", LOOP), DEVICE_TARGET) == ()


# A partition of a drive whose own purge is available: the purge would erase all of the drive.
NVME_PART = PurgeSupport("nvme", nvme_format_erase=True, discard=True, whole_drive="nvme0n1")
REFUSED_NVME = (
    "--purge nvme-format erases all of /dev/nvme0n1, but the target is its partition "
    "/dev/nvme0n1p1; name the whole drive (target /dev/nvme0n1 with --destroy-data "
    "/dev/nvme0n1) or use --purge trim"
)


def test_auto_on_a_partition_never_chooses_a_whole_drive_purge() -> None:
    trim = choose_purge("auto", NVME_PART, "/dev/nvme0n1p1")
    assert (trim.method, trim.conformant) == ("trim", False)
    assert trim.reason == (
        "a drive purge would erase all of /dev/nvme0n1, not just this partition; every block "
        "is discarded instead"
    )
    every = PurgeSupport("sata", None, True, True, discard=False, whole_drive="sda")
    zero = choose_purge("auto", every, "/dev/sda2")
    assert (zero.method, zero.conformant) == ("zero", False)
    assert "erase all of /dev/sda" in zero.reason
    assert "zeros" in zero.reason


def test_a_whole_drive_purge_asked_for_on_a_partition_is_refused() -> None:
    with pytest.raises(SafetyRefusal) as refused:
        choose_purge("nvme-format", NVME_PART, "/dev/nvme0n1p1")
    assert str(refused.value) == REFUSED_NVME
    no_discard = PurgeSupport("sata", ata_security_erase=True, discard=False, whole_drive="sdb")
    for method in ("ata-secure-erase", "scsi-format"):
        with pytest.raises(SafetyRefusal, match=f"--purge {method} erases all of /dev/sdb, but"):
            choose_purge(method, no_discard, "/dev/sdb1")
    with pytest.raises(SafetyRefusal, match=r"or use --purge zero$"):
        choose_purge("ata-secure-erase", no_discard, "/dev/sdb1")
    # refused whatever the drive offers: a loop partition has no format, the rule is the same
    loop_part = PurgeSupport("loop", False, False, False, discard=True, whole_drive="loop3")
    with pytest.raises(SafetyRefusal, match="erases all of /dev/loop3, but the target is its "):
        choose_purge("nvme-format", loop_part, "/dev/loop3p1")


def test_partition_fallbacks_stay_within_the_partition() -> None:
    for method in ("trim", "zero", "none"):
        assert choose_purge(method, NVME_PART, "/dev/nvme0n1p1").method == method
    assert choose_purge("auto", NVME).method == "nvme-format"  # the whole drive: unchanged


def test_whole_drive_commands_are_recognised_and_nothing_else() -> None:
    ata = purge_steps(
        choose_purge("auto", PurgeSupport("sata", ata_security_erase=True)), DEVICE_TARGET
    )
    for step in ata:
        assert whole_drive_device(step.command) == DEVICE_TARGET.path
    (nvme,) = purge_steps(choose_purge("auto", NVME), DEVICE_TARGET)
    assert whole_drive_device(nvme.command) == DEVICE_TARGET.path
    scsi = purge_steps(choose_purge("auto", PurgeSupport("sas", scsi_format=True)), DEVICE_TARGET)
    assert whole_drive_device(scsi[0].command) == DEVICE_TARGET.path
    assert whole_drive_device(("fstrim", "-v", "/mnt")) is None
    assert whole_drive_device(("hdparm", "-I", "/dev/sda")) is None
    assert whole_drive_device(("nvme", "id-ctrl", "/dev/nvme0")) is None
    assert whole_drive_device(()) is None


def test_a_format_that_erases_other_namespaces_is_never_chosen_nor_allowed() -> None:
    shared = PurgeSupport(
        "nvme", nvme_format_erase=True, discard=True, nvme_other_namespaces=("nvme0n2",)
    )
    auto = choose_purge("auto", shared, "/dev/nvme0n1")
    assert (auto.method, auto.conformant) == ("trim", False)
    assert "other namespaces" in auto.reason
    with pytest.raises(SafetyRefusal) as refused:
        choose_purge("nvme-format", shared, "/dev/nvme0n1")
    assert str(refused.value) == (
        "--purge nvme-format erases every namespace of the controller, /dev/nvme0n2 as well as "
        "/dev/nvme0n1 (its Format NVM Attributes apply a format to all namespaces, or do not "
        "say); use --purge trim"
    )
