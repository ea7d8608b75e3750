"""Choose how to purge a device before a PTS test, and plan it as steps.

A PTS purge returns every flash block to the never-written state through the drive itself
(pts.md §1.1): NVMe Format with User Data Erase (or Sanitize), ATA SECURITY ERASE UNIT, SCSI
FORMAT UNIT. A discard of every block (TRIM) or a zero fill is *not* a purge; ssdlab offers
them only as fallbacks, and a run that used one is never marked conformant.

The choice is a pure function of what the drive says it supports (`PurgeSupport`, read by
system/purge.py); the steps are system tools (COMMAND steps) or fio jobs (the fallbacks).
"""

from dataclasses import dataclass

from ssdlab.errors import SafetyRefusal, UsageError
from ssdlab.model.plan import FioJob
from ssdlab.model.profile import PlanTarget, ProfileStep, StepRole
from ssdlab.model.target import PURGE_METHODS, PurgeSupport
from ssdlab.model.units import MiB
from ssdlab.plan.profile import DEFAULT_IOENGINE

METHODS = PURGE_METHODS
CONFORMANT = frozenset({"nvme-format", "ata-secure-erase", "scsi-format"})
WHOLE_DRIVE = CONFORMANT  # the drive's own purges act on all of it, whatever node is named
ATA_PASSWORD = "ssdlab"  # set and used at once by the erase; the drive clears it afterwards
# NSID FFFFFFFFh: "all namespaces", the NSID of a command meant for the controller (a feature or
# log page that is not a namespace's) when it is sent through a namespace node
BROADCAST_NSID = "0xffffffff"


@dataclass(frozen=True, slots=True)
class PurgeChoice:
    method: str
    conformant: bool
    reason: str


def _node(name: str) -> str:
    return "/dev/" + name.replace("!", "/")


def _partition_refusal(requested: str, support: PurgeSupport, device: str | None) -> str:
    disk = _node(support.whole_drive or "")
    target = device or "a partition"
    instead = "trim" if support.discard else "zero"
    return (
        f"--purge {requested} erases all of {disk}, but the target is its partition {target}; "
        f"name the whole drive (target {disk} with --destroy-data {disk}) or use "
        f"--purge {instead}"
    )


def _namespaces_refusal(support: PurgeSupport, device: str | None) -> str:
    others = ", ".join(_node(name) for name in support.nvme_other_namespaces)
    instead = "trim" if support.discard else "zero"
    return (
        f"--purge nvme-format erases every namespace of the controller, {others} as well as "
        f"{device or 'the target'} (its Format NVM Attributes apply a format to all "
        f"namespaces, or do not say); use --purge {instead}"
    )


def choose_purge(requested: str, support: PurgeSupport, device: str | None = None) -> PurgeChoice:
    """The purge method to use: the requested one (checked), or with 'auto' the drive's own
    purge when available, else TRIM, else a zero fill — each fallback labelled.

    A drive's own purge erases the whole drive. On a partition (``support.whole_drive`` set)
    'auto' never chooses one — the fallbacks stay within the partition's range — and asking
    for one is refused (SafetyRefusal): the other partitions were never named. A Format NVM
    that erases the controller's other namespaces (``support.nvme_other_namespaces``) is
    treated the same way. ``device`` is the target's node, for the refusal's sentence.
    """
    if requested not in METHODS:
        raise UsageError(f"--purge must be one of {', '.join(METHODS)} (got {requested})")
    partition = support.whole_drive is not None
    if partition and requested in WHOLE_DRIVE:
        raise SafetyRefusal(_partition_refusal(requested, support, device))
    if requested == "nvme-format" and support.nvme_other_namespaces:
        raise SafetyRefusal(_namespaces_refusal(support, device))
    available = {
        "nvme-format": support.nvme_format_erase,
        "ata-secure-erase": support.ata_security_erase,
        "scsi-format": support.scsi_format,
        "trim": support.discard,
        "zero": True,
        "none": True,
    }
    if requested != "auto":
        return _requested_purge(requested, available[requested])
    if partition:
        return _partition_purge(support)
    if support.nvme_other_namespaces:
        available["nvme-format"] = False
    return _auto_purge(support, available)


def _requested_purge(requested: str, offered: bool | None) -> PurgeChoice:
    """The method named with --purge, when the device offers it."""
    if offered is False:
        raise UsageError(f"--purge {requested}: this device does not offer it")
    if offered is None:
        raise UsageError(
            f"--purge {requested}: ssdlab cannot tell whether this device offers it; "
            "choose another method or 'auto'"
        )
    return PurgeChoice(requested, requested in CONFORMANT, "chosen with --purge")


def _partition_purge(support: PurgeSupport) -> PurgeChoice:
    """'auto' on a partition: never a drive purge, which would erase the other partitions."""
    why = (
        f"a drive purge would erase all of {_node(support.whole_drive or '')}, not just "
        "this partition"
    )
    if support.discard:
        return PurgeChoice("trim", False, f"{why}; every block is discarded instead")
    return PurgeChoice(
        "zero", False, f"{why} and it offers no discard; it is filled with zeros instead"
    )


def _auto_purge(support: PurgeSupport, available: dict[str, bool | None]) -> PurgeChoice:
    """'auto' on a whole drive: its own purge, else TRIM, else a zero fill."""
    for method in ("nvme-format", "ata-secure-erase", "scsi-format"):
        if available[method]:
            return PurgeChoice(method, True, "the drive's own purge")
    if support.nvme_other_namespaces and support.discard:
        return PurgeChoice(
            "trim",
            False,
            "a Format NVM would erase the controller's other namespaces too; every block is "
            "discarded instead",
        )
    if support.discard:
        return PurgeChoice(
            "trim", False, "no drive purge is available; every block is discarded instead"
        )
    return PurgeChoice(
        "zero", False, "no drive purge and no discard; the device is filled with zeros instead"
    )


def whole_drive_device(command: tuple[str, ...]) -> str | None:
    """The device a planned command erases as a whole drive (nvme format, hdparm's security
    commands, sg_format), or None for any other command."""
    if len(command) < 2:
        return None
    tool, device = command[0], command[-1]
    if tool == "nvme" and command[1] == "format":
        return command[2] if len(command) > 2 else None
    if tool == "hdparm" and any(arg.startswith("--security-") for arg in command):
        return device
    if tool == "sg_format":
        return device
    return None


def purge_steps(choice: PurgeChoice, target: PlanTarget) -> tuple[ProfileStep, ...]:
    """The steps that carry out the purge (none for 'none')."""
    device = target.path
    label = f"purge ({choice.method}{'' if choice.conformant else ', not a PTS purge'})"
    if choice.method == "nvme-format":
        return (_command("purge", label, ("nvme", "format", device, "--ses=1", "--force")),)
    if choice.method == "ata-secure-erase":
        return (
            _command(
                "purge-set-password",
                "purge: set a temporary ATA security password",
                ("hdparm", "--user-master", "u", "--security-set-pass", ATA_PASSWORD, device),
            ),
            _command(
                "purge",
                label,
                ("hdparm", "--user-master", "u", "--security-erase", ATA_PASSWORD, device),
            ),
        )
    if choice.method == "scsi-format":
        return (_command("purge", label, ("sg_format", "--format", device)),)
    if choice.method in ("trim", "zero"):
        return (_fio_purge(choice.method, label, target),)
    return ()


def _command(key: str, label: str, argv: tuple[str, ...]) -> ProfileStep:
    return ProfileStep(key, label, StepRole.COMMAND, "command", command=argv, log_interval_ms=None)


def _fio_purge(method: str, label: str, target: PlanTarget) -> ProfileStep:
    size = target.capacity_bytes or target.size_bytes
    options: tuple[tuple[str, str], ...] = (
        ("filename", target.path),
        ("ioengine", DEFAULT_IOENGINE),
        ("direct", "1"),
        ("size", str(size)),
    )
    if method == "zero":
        options += (("zero_buffers", ""),)
    section = (
        ("rw", "trim" if method == "trim" else "write"),
        ("bs", str(MiB)),
        ("iodepth", "8" if method == "trim" else "32"),
        ("numjobs", "1"),
    )
    return ProfileStep(
        key="purge",
        label=label,
        role=StepRole.PREPARE,
        direction="trim" if method == "trim" else "write",
        job=FioJob(global_options=options, sections=(("purge", section),)),
        log_interval_ms=None,
        expected_bytes=size,
    )
