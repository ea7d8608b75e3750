"""May ssdlab write to this block device? Pure judgement of a DeviceUsage; no I/O.

A write is allowed only when the user named the same device again with --destroy-data and
nothing uses the device or any of its partitions.
"""

from ssdlab.errors import SafetyRefusal
from ssdlab.model.target import DeviceUsage, LoopBacking


def _node(name: str) -> str:
    return "/dev/" + name.replace("!", "/")


def _kernel_name(device_path: str) -> str:
    """sdb from /dev/sdb, cciss!c0d0 from /dev/cciss/c0d0 (the inverse of _node)."""
    return device_path.removeprefix("/dev/").replace("/", "!")


def _described(device: str, disk: str) -> str:
    if device == disk:
        return _node(device)
    return f"{_node(device)} (partition of {_node(disk)})"


def _detach_advice(backing: LoopBacking) -> str:
    """What to run before writing: unmount the stack's filesystems, then detach its loop
    devices from the top down (a busy loop device is only detached once nothing uses it)."""
    loops = (backing.loop, *backing.above)
    commands = [f"umount {mount_point}" for _, mount_point in reversed(backing.mounts)]
    commands.append("losetup -d " + " ".join(_node(loop) for loop in reversed(loops)))
    verb = "unmount and detach" if backing.mounts else "detach"
    what = "them" if backing.above or backing.mounts else "it"
    return f"{verb} {what} first: " + "; ".join(commands)


def _stack_text(backing: LoopBacking) -> str:
    """/dev/loop8 (with /dev/loop9 stacked on it) (/dev/loop9 is mounted at /mnt/x)."""
    text = _node(backing.loop)
    if backing.above:
        stacked = ", ".join(_node(loop) for loop in backing.above)
        text += f" (with {stacked} stacked on it)"
    if backing.mounts:
        text += (
            " ("
            + "; ".join(
                f"{_node(device)} is mounted at {mount_point}"
                for device, mount_point in backing.mounts
            )
            + ")"
        )
    return text


def _loop_reasons(usage: DeviceUsage) -> list[str]:
    disk = usage.name
    reasons = []
    for backing in usage.backs_loops:
        device = _described(backing.device, disk)
        if backing.through is None:
            where = f"{device} is the backing file of {_stack_text(backing)}"
        else:
            where = (
                f"{device} lies within {_node(backing.through)}, the backing file of "
                f"{_stack_text(backing)}"
            )
        reasons.append(f"{where} — {_detach_advice(backing)}")
    for backing in usage.shares_backing:
        reasons.append(
            f"{_node(backing.device)} and {_stack_text(backing)} are attached to the same file "
            f"({backing.backing_path}) — writing to one rewrites the other; "
            f"{_detach_advice(backing)}"
        )
    if usage.backing is not None and usage.backing_usage is not None:
        loop, device = usage.backing
        for reason in refusal_reasons(usage.backing_usage):
            reasons.append(
                f"{_node(loop)} writes through to its backing file {_node(device)}, which is in "
                f"use: {reason}"
            )
    return reasons


def refusal_reasons(usage: DeviceUsage, *, database_path: str | None = None) -> tuple[str, ...]:
    """One plain sentence for every use of the device that forbids writing to it; () when
    nothing does. ``database_path`` only makes the database sentence more precise.

    A loop target is judged through what it is attached to: a block device in use (its own
    reasons, each introduced as such), or a file another loop device shows too.
    """
    disk = usage.name
    reasons = []
    for device, mount_point in usage.mounts:
        reasons.append(f"{_described(device, disk)} is mounted at {mount_point} — unmount it first")
    for device in usage.swaps:
        reasons.append(f"{_described(device, disk)} is active swap — swapoff it first")
    for device, holder in usage.holders:
        reasons.append(
            f"{_described(device, disk)} is held by {holder} (device-mapper/LVM/md/bcache) — "
            "remove the holder first"
        )
    for device in usage.backs_root:
        reasons.append(
            f"{_described(device, disk)} backs / (the running system) — choose another device"
        )
    where = f" ({database_path})" if database_path else ""
    for device in usage.holds_database:
        reasons.append(
            f"{_described(device, disk)} holds the ssdlab database{where} — use --db elsewhere"
        )
    reasons.extend(_loop_reasons(usage))
    return tuple(reasons)


def check_write_allowed(
    device_path: str,
    destroy_data: str | None,
    destroy_data_resolved: str | None,
    usage: DeviceUsage,
    *,
    database_path: str | None = None,
) -> None:
    """Raise SafetyRefusal unless writing to ``device_path`` is explicitly allowed and safe.

    ``device_path`` is the resolved device node of the target, ``destroy_data`` what the user
    gave to --destroy-data (None when the option was absent) and ``destroy_data_resolved``
    that value with symlinks resolved (None when it names nothing that exists). Devices are
    compared resolved, or by kernel name (``usage.name``), so /dev/disk/by-id/... and /dev/sdb
    confirm each other.
    """
    reasons = refusal_reasons(usage, database_path=database_path)
    if reasons:
        raise SafetyRefusal(f"refusing to write to {device_path}: " + "; ".join(reasons) + ".")
    repeat = f"--destroy-data {device_path}"
    if destroy_data is None:
        raise SafetyRefusal(
            f"writing to {device_path} destroys its data; to allow it, repeat the device: {repeat}"
        )
    if destroy_data_resolved is None:
        raise SafetyRefusal(
            f"--destroy-data {destroy_data} does not name an existing device; to allow "
            f"writing to {device_path}, repeat the device: {repeat}"
        )
    if destroy_data_resolved != device_path and _kernel_name(destroy_data_resolved) != usage.name:
        named = (
            destroy_data
            if destroy_data == destroy_data_resolved
            else f"{destroy_data} (= {destroy_data_resolved})"
        )
        raise SafetyRefusal(
            f"--destroy-data names {named}, but the target is {device_path}; nothing was "
            f"written. To allow writing to {device_path}, repeat that device: {repeat}"
        )
