"""Exclusive claims on a run's target, held from the first write to the end of the run.

A destructive run on a block device holds it open with O_EXCL: while it lasts the kernel
refuses a mount, `swapon`, `mkfs` and any other exclusive open (fio itself opens without
O_EXCL, so it is not hindered), and an flock on the same descriptor tells a second ssdlab that
another ssdlab run, not some other user, holds the device. A run on a test file holds an flock
on the file, so a second run on a kept test file is refused instead of writing into it.
"""

import errno
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager

from ssdlab.errors import SafetyRefusal, TargetError
from ssdlab.model.target import Target, TargetKind


def _ssdlab_holds(path: str) -> bool:
    """Whether another ssdlab run holds its claim on `path` (its flock cannot be shared)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def device_busy_refusal(path: str) -> SafetyRefusal:
    """The refusal for a device the kernel will not open exclusively."""
    if _ssdlab_holds(path):
        return SafetyRefusal(
            f"another ssdlab run is writing to {path} (it holds the device for its whole run); "
            "wait for it to finish ('ssdlab runs' in its store shows it)"
        )
    return SafetyRefusal(
        f"{path} is in use by something (the kernel refuses an exclusive open: a filesystem, "
        "RAID, ZFS pool, swap or another program holds it); stop that user first"
    )


@contextmanager
def claim_device(path: str) -> Iterator[None]:
    """Hold the block device exclusively (O_EXCL) and flocked until the block ends."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_EXCL | os.O_CLOEXEC)
    except OSError as error:
        if error.errno == errno.EBUSY:
            raise device_busy_refusal(path) from error
        raise TargetError(f"cannot open {path}: {error.strerror}") from error
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as error:
            raise device_busy_refusal(path) from error
        yield
    finally:
        os.close(fd)


@contextmanager
def claim_test_file(path: str) -> Iterator[None]:
    """Hold an exclusive flock on ssdlab's test file until the block ends."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as error:
        raise TargetError(f"cannot open the test file {path}: {error.strerror}") from error
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as error:
            raise TargetError(
                f"another ssdlab run is using the test file {path}; wait for it to finish, "
                "or give a directory for a new test file"
            ) from error
        yield
    finally:
        os.close(fd)


@contextmanager
def claim_target(target: Target, *, destructive: bool) -> Iterator[None]:
    """The claim a run holds on its target: the device when the run writes to it, the test
    file when ssdlab created or reuses one; nothing for a read-only run on a device or on a
    user's own file."""
    if target.kind is TargetKind.DEVICE and destructive:
        with claim_device(target.path):
            yield
    elif target.kind is TargetKind.FILE and (target.created_file or target.reuses_test_file):
        with claim_test_file(target.path):
            yield
    else:
        yield
