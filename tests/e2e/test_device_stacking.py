"""Loop devices stacked on a target, and partitions of a target, on real loop devices.

A loop device registers no holder and claims nothing exclusively, so a device under one (a
loop on a loop, two loops on one image, a loop on a partition) used to be written as if it
were free. Every refusal here is checked by hashing the bytes a write would change, and the
file systems above by fsck. Every loop device, partition and mount is this test's own and is
undone in the fixture's teardown.
"""

import subprocess
from pathlib import Path

import pytest

from ssdlab.model.profile import ProfilePlan, ProfileStep, StepRole
from ssdlab.model.run import RunStatus
from ssdlab.model.target import Target, TargetKind
from ssdlab.plan.safety import refusal_reasons
from ssdlab.runner.profile import ProfileRunner
from ssdlab.store.db import open_store
from ssdlab.system.environment import collect_environment
from ssdlab.system.fio import find_fio
from ssdlab.system.process import ProcessRunner
from ssdlab.system.purge import whole_drive_refusal
from ssdlab.system.usage import read_device_usage
from tests.conftest import needs_fio
from tests.e2e.conftest import FAST, Loop, StackLab, need, needs_loop, run, run_ssdlab, sha256_of

pytestmark = [needs_fio, needs_loop, pytest.mark.loop]
SIZE = 32 * 2**20
OWNED = 4 * 2**20  # a mounted file system owns only these first bytes (the kernel writes there)
WRITE = [*FAST, "--mode", "write"]


def refused_quick(target: str, tmp_path: Path, watched: str, offset: int = OWNED) -> str:
    """`quick TARGET --destroy-data TARGET --mode write` exits 3 and `watched` is unchanged
    from `offset` on (any write of ssdlab's 8 MiB test region would change it)."""
    before = sha256_of(watched, SIZE - offset, offset=offset)
    result = run_ssdlab(
        "quick", target, *WRITE, "--destroy-data", target, "--db", str(tmp_path / "db")
    )
    assert result.code == 3, result.stderr
    assert "Traceback" not in result.stderr
    assert sha256_of(watched, SIZE - offset, offset=offset) == before
    return " ".join(result.stderr.split())  # the message is wrapped for the terminal


def fs_is_intact(device: str, mount_point: Path) -> None:
    """Unmount, fsck (no changes) clean, and mount again (the lab unmounts it at the end)."""
    need("e2fsck")
    run("umount", str(mount_point))
    check = subprocess.run(["e2fsck", "-fn", device], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    run("mount", device, str(mount_point))


def test_loop_on_loop_with_the_upper_mounted_is_refused(
    tmp_path: Path, stack_lab: StackLab
) -> None:
    """The reported case: LA over an image, LB over LA, ext4 on LB mounted; writing LA would
    ruin LB's file system."""
    lower = stack_lab.loop(SIZE, pattern=b"lower loop")
    upper = stack_lab.loop_over(lower.path)
    mount_point = stack_lab.mount_new_ext4(upper.path, OWNED)
    stderr = refused_quick(lower.path, tmp_path, str(lower.image))
    assert (
        f"{lower.path} is the backing file of {upper.path} ({upper.path} is mounted at "
        f"{mount_point}) — unmount and detach them first: umount {mount_point}; "
        f"losetup -d {upper.path}"
    ) in stderr
    fs_is_intact(upper.path, mount_point)


def test_loop_on_loop_attached_but_not_mounted_is_refused(
    tmp_path: Path, stack_lab: StackLab
) -> None:
    lower = stack_lab.loop(SIZE, pattern=b"lower loop")
    upper = stack_lab.loop_over(lower.path)
    stderr = refused_quick(lower.path, tmp_path, str(lower.image), offset=0)
    assert (
        f"{lower.path} is the backing file of {upper.path} — detach it first: "
        f"losetup -d {upper.path}"
    ) in stderr
    # writing the upper one writes through to the lower, which nothing else uses: allowed
    assert refusal_reasons(read_device_usage(upper.name, None)) == ()


def test_two_loops_on_one_image_refuse_each_other(tmp_path: Path, stack_lab: StackLab) -> None:
    first = stack_lab.loop(SIZE, pattern=b"one image")
    second = stack_lab.loop_over(str(first.image))
    image = first.image.resolve()
    for target, other in ((first, second), (second, first)):
        stderr = refused_quick(target.path, tmp_path, str(image), offset=0)
        assert (
            f"{target.path} and {other.path} are attached to the same file ({image}) — writing "
            f"to one rewrites the other; detach it first: losetup -d {other.path}"
        ) in stderr


def test_a_three_level_stack_is_refused_at_every_level(tmp_path: Path, stack_lab: StackLab) -> None:
    bottom = stack_lab.loop(SIZE, pattern=b"three levels")
    middle = stack_lab.loop_over(bottom.path)
    top = stack_lab.loop_over(middle.path)
    mount_point = stack_lab.mount_new_ext4(top.path, OWNED)
    stderr = refused_quick(bottom.path, tmp_path, str(bottom.image))
    assert (
        f"{bottom.path} is the backing file of {middle.path} (with {top.path} stacked on it) "
        f"({top.path} is mounted at {mount_point}) — unmount and detach them first: "
        f"umount {mount_point}; losetup -d {top.path} {middle.path}"
    ) in stderr
    stderr = refused_quick(middle.path, tmp_path, str(bottom.image))
    assert f"{middle.path} is the backing file of {top.path} ({top.path} is mounted" in stderr
    stderr = refused_quick(top.path, tmp_path, str(bottom.image))
    assert f"{top.path} is mounted at {mount_point}" in stderr
    fs_is_intact(top.path, mount_point)


def test_a_loop_on_a_mounted_device_is_refused_as_writing_through_to_it(
    tmp_path: Path, stack_lab: StackLab
) -> None:
    lower = stack_lab.loop(SIZE, pattern=b"mounted below")
    mount_point = stack_lab.mount_new_ext4(lower.path, OWNED)
    upper = stack_lab.loop_over(lower.path)
    stderr = refused_quick(upper.path, tmp_path, str(lower.image))
    assert (
        f"{upper.path} writes through to its backing file {lower.path}, which is in use: "
        f"{lower.path} is mounted at {mount_point} — unmount it first"
    ) in stderr
    fs_is_intact(lower.path, mount_point)


def test_a_loop_whose_image_lives_on_the_target_is_covered_by_the_mount(
    tmp_path: Path, stack_lab: StackLab
) -> None:
    """Writing the disk under a file system that holds another loop's image: refused because
    the file system is mounted (no loop rule is needed, and none is reported)."""
    disk = stack_lab.loop(SIZE, pattern=b"holds an image")
    mount_point = stack_lab.mount_new_ext4(disk.path, OWNED)
    image = mount_point / "inner.img"
    image.write_bytes(b"\0" * 2**20)
    stack_lab.loop_over(str(image))
    stderr = refused_quick(disk.path, tmp_path, str(disk.image))
    assert f"{disk.path} is mounted at {mount_point}" in stderr
    assert "backing file" not in stderr


def test_a_lazily_unmounted_file_system_kept_alive_by_a_loop_is_refused(
    tmp_path: Path, stack_lab: StackLab
) -> None:
    """umount -l while a loop device still has an image open on it: mountinfo no longer
    shows the file system, but it still holds the device, and the exclusive open sees it."""
    disk = stack_lab.loop(SIZE, pattern=b"lazy unmount")
    mount_point = stack_lab.mount_new_ext4(disk.path, OWNED)
    image = mount_point / "inner.img"
    image.write_bytes(b"\0" * 2**20)
    stack_lab.loop_over(str(image))
    run("umount", "-l", str(mount_point))
    assert read_device_usage(disk.name, None).mounts == ()
    stderr = refused_quick(disk.path, tmp_path, str(disk.image))
    assert "in use" in stderr


def _partitioned(stack_lab: StackLab) -> tuple[Loop, str, str]:
    """A loop device with p1 over [1 MiB, 13 MiB) and p2 over [13 MiB, 31 MiB)."""
    disk = stack_lab.disk(SIZE, pattern=b"partitioned disk")
    first = stack_lab.partition(disk, 1, 2048, 24576)
    second = stack_lab.partition(disk, 2, 26624, 36864)
    return disk, first, second


P2_START = 26624 * 512


def test_a_whole_drive_with_a_mounted_partition_is_refused(
    tmp_path: Path, stack_lab: StackLab
) -> None:
    disk, _, second = _partitioned(stack_lab)
    mount_point = stack_lab.mount_new_ext4(second, OWNED)
    stderr = refused_quick(disk.path, tmp_path, str(disk.image), offset=P2_START + OWNED)
    assert f"{second} (partition of {disk.path}) is mounted at {mount_point}" in stderr


def test_a_loop_on_a_partition_refuses_the_partition_and_the_drive(
    tmp_path: Path, stack_lab: StackLab
) -> None:
    disk, first, _ = _partitioned(stack_lab)
    upper = stack_lab.loop_over(first)
    stderr = refused_quick(first, tmp_path, str(disk.image), offset=0)
    assert f"{first} is the backing file of {upper.path} — detach it first" in stderr
    stderr = refused_quick(disk.path, tmp_path, str(disk.image), offset=0)
    assert f"{first} (partition of {disk.path}) is the backing file of {upper.path}" in stderr


def test_a_loop_over_a_partitions_bytes_of_the_whole_drive_refuses_that_partition(
    tmp_path: Path, stack_lab: StackLab
) -> None:
    """losetup --offset over the drive at p2's start shows p2's bytes: p2 is refused, p1 is
    not (its bytes are outside the loop's range)."""
    disk, first, second = _partitioned(stack_lab)
    upper = stack_lab.loop_over(disk.path, offset=P2_START, sizelimit=36864 * 512)
    stderr = refused_quick(second, tmp_path, str(disk.image), offset=0)
    assert (
        f"{second} lies within {disk.path}, the backing file of {upper.path} — detach it first"
    ) in stderr
    assert refusal_reasons(read_device_usage(Path(first).name, None)) == ()


def test_a_whole_drive_purge_on_a_partition_is_refused_before_anything_runs(
    tmp_path: Path, stack_lab: StackLab
) -> None:
    """`run pts-iops P1 --destroy-data P1 --purge nvme-format` with P2 mounted: refused at
    planning (a loop device offers no Format NVM; the unit tests show the same rule on a
    drive that claims it); `plan` refuses it the same way."""
    disk, first, second = _partitioned(stack_lab)
    mount_point = stack_lab.mount_new_ext4(second, OWNED)
    before = sha256_of(str(disk.image), P2_START)
    rest = sha256_of(str(disk.image), SIZE - P2_START - OWNED, offset=P2_START + OWNED)
    options = ["--purge", "nvme-format", "--round-seconds", "0.2", "--db", str(tmp_path / "db")]
    for command in (
        ["run", "pts-iops", first, "--destroy-data", first],
        ["plan", "pts-iops", first],
    ):
        result = run_ssdlab(*command, *options)
        assert result.code == 3, result.stderr
        assert (
            f"--purge nvme-format erases all of {disk.path}, but the target is its partition "
            f"{first}; name the whole drive (target {disk.path} with --destroy-data "
            f"{disk.path}) or use --purge trim"
        ) in " ".join(result.stderr.split())
    assert sha256_of(str(disk.image), P2_START) == before
    assert sha256_of(str(disk.image), SIZE - P2_START - OWNED, offset=P2_START + OWNED) == rest
    fs_is_intact(second, mount_point)


class _NoTools(ProcessRunner):
    """Fails the test if the runner starts any tool."""

    def run(self, argv: object, **_kwargs: object) -> object:  # type: ignore[override]
        raise AssertionError(f"the runner started {argv}")


def test_a_stored_whole_drive_purge_on_a_partition_never_runs(
    tmp_path: Path, stack_lab: StackLab
) -> None:
    """A plan that already holds `nvme format P1` (say, stored by an older ssdlab and
    resumed): the runner checks the node again and fails the step without running it."""
    disk, first, _ = _partitioned(stack_lab)
    assert whole_drive_refusal(("nvme", "format", first, "--ses=1", "--force")) == (
        f"refusing to run nvme on {first}: it erases all of {disk.path}, not just the "
        "partition the run was given; nothing was erased"
    )
    assert whole_drive_refusal(("nvme", "format", disk.path, "--ses=1", "--force")) is None
    assert whole_drive_refusal(("hdparm", "--security-erase", "x", first)) is not None
    purge = ProfileStep(
        "purge", "purge (nvme-format)", StepRole.COMMAND, "command",
        command=("nvme", "format", first, "--ses=1", "--force"), log_interval_ms=None,
    )  # fmt: skip
    plan = ProfilePlan(
        profile="demo", profile_version=1, settings=(), target_path=first, target_kind="file",
        destructive=False, steps=(purge,),
    )  # fmt: skip
    before = sha256_of(str(disk.image), SIZE)
    runner = ProfileRunner(
        open_store(tmp_path / "db"), find_fio(ProcessRunner()), lambda _event: None, _NoTools()
    )
    outcome = runner.execute(
        plan, Target(TargetKind.FILE, first, 2**20, first), collect_environment(None),
        device_id=None, keep_file=True,
    )  # fmt: skip
    assert outcome.status is RunStatus.FAILED
    assert outcome.reason is not None
    assert f"refusing to run nvme on {first}" in outcome.reason
    assert sha256_of(str(disk.image), SIZE) == before
