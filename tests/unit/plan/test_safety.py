"""plan/safety.py: why a block device may not be written, and the --destroy-data rule."""

import pytest

from ssdlab.errors import SafetyRefusal
from ssdlab.model.target import DeviceUsage
from ssdlab.plan.safety import check_write_allowed, refusal_reasons

UNUSED = DeviceUsage(name="loop3")


def test_an_unused_device_has_no_reasons() -> None:
    assert refusal_reasons(UNUSED) == ()


def test_each_use_gives_one_sentence_naming_device_and_thing() -> None:
    usage = DeviceUsage(
        name="sdb",
        mounts=(("sdb", "/mnt/x"), ("sdb3", "/srv/data dir")),
        swaps=("sdb1",),
        holders=(("sdb2", "dm-0"),),
        backs_root=("sdb3",),
        holds_database=("sdb3",),
    )
    assert refusal_reasons(usage) == (
        "/dev/sdb is mounted at /mnt/x — unmount it first",
        "/dev/sdb3 (partition of /dev/sdb) is mounted at /srv/data dir — unmount it first",
        "/dev/sdb1 (partition of /dev/sdb) is active swap — swapoff it first",
        "/dev/sdb2 (partition of /dev/sdb) is held by dm-0 (device-mapper/LVM/md/bcache) — "
        "remove the holder first",
        "/dev/sdb3 (partition of /dev/sdb) backs / (the running system) — choose another device",
        "/dev/sdb3 (partition of /dev/sdb) holds the ssdlab database — use --db elsewhere",
    )


def test_the_database_sentence_names_the_database_when_given() -> None:
    usage = DeviceUsage(name="sdc", holds_database=("sdc",))
    assert refusal_reasons(usage, database_path="/home/u/.local/share/ssdlab/ssdlab.db") == (
        "/dev/sdc holds the ssdlab database (/home/u/.local/share/ssdlab/ssdlab.db) — "
        "use --db elsewhere",
    )


def test_kernel_names_with_a_slash_map_to_their_device_node() -> None:
    usage = DeviceUsage(name="cciss!c0d0", swaps=("cciss!c0d0p1",))
    assert refusal_reasons(usage) == (
        "/dev/cciss/c0d0p1 (partition of /dev/cciss/c0d0) is active swap — swapoff it first",
    )


def test_without_destroy_data_the_refusal_says_how_to_allow_it() -> None:
    with pytest.raises(SafetyRefusal) as refused:
        check_write_allowed("/dev/loop3", None, None, UNUSED)
    assert str(refused.value) == (
        "writing to /dev/loop3 destroys its data; to allow it, repeat the device: "
        "--destroy-data /dev/loop3"
    )
    assert refused.value.exit_code == 3


def test_destroy_data_naming_the_same_device_allows_the_write() -> None:
    check_write_allowed("/dev/loop3", "/dev/loop3", "/dev/loop3", UNUSED)


def test_destroy_data_through_a_symlink_is_compared_resolved() -> None:
    by_id = "/dev/disk/by-id/ata-Samsung_SSD_860_EVO_500GB_S3Z1NB0K000000X"
    check_write_allowed("/dev/sdb", by_id, "/dev/sdb", DeviceUsage(name="sdb"))


def test_destroy_data_naming_another_device_is_refused() -> None:
    with pytest.raises(SafetyRefusal) as refused:
        check_write_allowed("/dev/loop3", "/dev/disk/by-id/x", "/dev/sda", UNUSED)
    message = str(refused.value)
    assert "--destroy-data names /dev/disk/by-id/x (= /dev/sda), but the target is /dev/loop3" in (
        message
    )
    assert message.endswith("repeat that device: --destroy-data /dev/loop3")


def test_destroy_data_naming_a_partition_of_the_target_is_refused() -> None:
    with pytest.raises(SafetyRefusal, match="names /dev/sdb1, but the target is /dev/sdb"):
        check_write_allowed("/dev/sdb", "/dev/sdb1", "/dev/sdb1", DeviceUsage(name="sdb"))


def test_destroy_data_naming_nothing_that_exists_is_refused() -> None:
    with pytest.raises(SafetyRefusal, match="--destroy-data /dev/sdz does not name an existing"):
        check_write_allowed("/dev/loop3", "/dev/sdz", None, UNUSED)


def test_a_used_device_is_refused_even_with_destroy_data() -> None:
    usage = DeviceUsage(name="loop3", mounts=(("loop3", "/mnt/x"),), swaps=("loop3",))
    with pytest.raises(SafetyRefusal) as refused:
        check_write_allowed("/dev/loop3", "/dev/loop3", "/dev/loop3", usage)
    assert str(refused.value) == (
        "refusing to write to /dev/loop3: /dev/loop3 is mounted at /mnt/x — unmount it first; "
        "/dev/loop3 is active swap — swapoff it first."
    )


def test_a_used_device_is_refused_first_without_destroy_data() -> None:
    usage = DeviceUsage(name="sda", backs_root=("sda",))
    with pytest.raises(SafetyRefusal, match=r"/dev/sda backs / \(the running system\)"):
        check_write_allowed("/dev/sda", None, None, usage)


def test_a_device_node_not_named_like_the_kernel_device_confirms_itself() -> None:
    # A node made by hand (or by a container runtime) keeps the kernel's device number but not
    # its name; naming the same node again is still a confirmation.
    check_write_allowed("/dev/ssd-a", "/dev/ssd-a", "/dev/ssd-a", DeviceUsage(name="sdb"))
    check_write_allowed("/dev/ssd-a", "/dev/sdb", "/dev/sdb", DeviceUsage(name="sdb"))
