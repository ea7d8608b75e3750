"""Read a drive's health through smartctl (and nvme-cli for NVMe), keeping every raw capture.

Nothing here is fatal: a VM disk without SMART, a USB bridge without SAT pass-through or a
missing tool gives notes, not errors, so benchmarks never fail for want of health data.
"""

import dataclasses
import json
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ssdlab.errors import ParseError, ToolError
from ssdlab.model.health import HealthSample, HealthValue
from ssdlab.model.run import Capture
from ssdlab.parse.nvme_json import (
    merge_samples,
    normalise_nvme_smart_log,
    parse_intel_smart_log_add,
    parse_ocp_c0_hex_dump,
    parse_ocp_smart_add_log,
)
from ssdlab.parse.smart_vendors import VendorMap
from ssdlab.parse.smartctl_json import normalise_smartctl
from ssdlab.plan.purge import BROADCAST_NSID
from ssdlab.system.nvme_nodes import controller_capacity_bytes, nvme_controller_of
from ssdlab.system.process import ProcessRunner

SMARTCTL_TIMEOUT_S = 60.0
# A drive that hangs smartctl must not hang a run: override the limit (seconds) for slow USB
# bridges, or to test the limit itself.
TIMEOUT_ENV = "SSDLAB_SMARTCTL_TIMEOUT_S"


NO_SMART_NOTE = "no SMART data (a virtual disk, or a USB bridge without SMART pass-through)"


def smartctl_timeout_s() -> float:
    """The time limit for one smartctl or nvme-cli call ($SSDLAB_SMARTCTL_TIMEOUT_S, else 60)."""
    text = os.environ.get(TIMEOUT_ENV, "")
    try:
        value = float(text)
    except ValueError:
        return SMARTCTL_TIMEOUT_S
    return value if 0 < value < 86400 else SMARTCTL_TIMEOUT_S


# smartctl exit-status bits 0-2 mean the command itself failed; 3-7 report the disk's health.
COMMAND_FAILURE_BITS = 0b111


@dataclass(frozen=True, slots=True)
class HealthReading:
    sample: HealthSample | None  # None: no usable health data
    captures: tuple[Capture, ...]
    notes: tuple[str, ...]
    standby: bool = False  # --no-wake: the drive slept and was left asleep (no sample)


# smartctl -n standby: leave a sleeping drive asleep (exit status 2, "Device is in STANDBY mode").
NO_WAKE_OPTION = ("-n", "standby")
STANDBY_WORDS = ("STANDBY", "SLEEP", "IDLE")


def smartctl_attempts(
    smartctl: str, device_path: str, *, usb: bool = False, no_wake: bool = False
) -> list[list[str]]:
    """smartctl's argv for each attempt: -x -j, then -d sat on a USB bridge; with `no_wake`,
    each with -n standby."""
    wake = list(NO_WAKE_OPTION) if no_wake else []
    attempts = [[smartctl, "-x", "-j", *wake, device_path]]
    if usb:
        attempts.append([smartctl, "-x", "-j", *wake, "-d", "sat", device_path])
    return attempts


def _in_standby(capture: Capture, doc: dict[str, object] | None) -> bool:
    """smartctl -n standby skipped the drive: exit status 2 and a low-power mode named."""
    text = capture.stdout + capture.stderr + (_smartctl_messages(doc) if doc else "")
    return capture.exit_code == 2 and any(word in text.upper() for word in STANDBY_WORDS)


def _decode_json(capture: Capture) -> dict[str, object] | None:
    try:
        doc = json.loads(capture.stdout)
    except json.JSONDecodeError:
        return None
    return doc if isinstance(doc, dict) else None


def _smartctl_messages(doc: dict[str, object]) -> str:
    smartctl = doc.get("smartctl")
    if not isinstance(smartctl, dict):
        return ""
    messages = smartctl.get("messages")
    if not isinstance(messages, list):
        return ""
    return "; ".join(str(m.get("string")) for m in messages if isinstance(m, dict))


def _run(processes: ProcessRunner, argv: list[str], tool: str, notes: list[str]) -> Capture | None:
    try:
        return processes.run(argv, tool=tool, timeout_s=smartctl_timeout_s())
    except ToolError as error:
        notes.append(str(error))
        return None


def read_health(
    device_path: str,
    processes: ProcessRunner,
    *,
    vendor_map: VendorMap | None = None,
    usb: bool = False,
    no_wake: bool = False,
) -> HealthReading:
    """smartctl -x -j (retried with -d sat on USB bridges), plus nvme smart-log for NVMe.
    `no_wake`: smartctl -n standby, and a sleeping drive gives no sample (`standby`), not a
    woken one; nvme-cli is not asked then either."""
    captures: list[Capture] = []
    notes: list[str] = []
    smartctl = shutil.which("smartctl")
    if smartctl is None:
        notes.append("smartctl is not installed (apt-get install smartmontools): no health data")
        return HealthReading(None, (), tuple(notes))
    attempts = smartctl_attempts(smartctl, device_path, usb=usb, no_wake=no_wake)
    sample: HealthSample | None = None
    for argv in attempts:
        capture = _run(processes, argv, "smartctl", notes)
        if capture is None:
            break
        captures.append(capture)
        doc = _decode_json(capture)
        if no_wake and _in_standby(capture, doc):
            notes.append(f"{device_path} is asleep: sample skipped (--no-wake leaves it asleep)")
            return HealthReading(None, tuple(captures), tuple(notes), standby=True)
        if doc is None:
            notes.append(f"smartctl printed no JSON for {device_path}: {capture.stderr.strip()}")
            continue
        failed = (capture.exit_code or 0) & COMMAND_FAILURE_BITS
        if failed and "model_name" not in doc and "device" not in doc:
            notes.append(
                f"smartctl could not read {device_path} (exit status {capture.exit_code}): "
                f"{_smartctl_messages(doc) or 'no message'}"
            )
            continue
        try:
            sample = normalise_smartctl(doc, taken_at_s=capture.ended_at_s, vendor_map=vendor_map)
        except ParseError as error:
            notes.append(f"smartctl's JSON could not be read ({error}); the raw output is stored")
            continue
        if failed:
            notes.append(
                f"smartctl reported a problem (exit status {capture.exit_code}): "
                f"{_smartctl_messages(doc) or 'see the stored capture'}"
            )
        break
    if sample is None:
        notes.append(NO_SMART_NOTE)
        return HealthReading(None, tuple(captures), tuple(notes))
    if sample.identity.protocol == "NVMe" and shutil.which("nvme"):
        sample = _add_nvme_logs(device_path, processes, sample, captures, notes)
    return HealthReading(
        _with_controller_capacity(sample, device_path), tuple(captures), tuple(notes)
    )


def _with_controller_capacity(sample: HealthSample, device_path: str) -> HealthSample:
    """Read through an NVMe controller (/dev/nvme0), smartctl names no capacity (it reports a
    namespace's, and asks none): the drive's is its namespaces' together, from sysfs, so the
    controller and its only namespace read as the same drive."""
    if sample.identity.capacity_bytes is not None:
        return sample
    controller = nvme_controller_of(device_path)
    if controller is None:
        return sample
    capacity = controller_capacity_bytes(controller)
    if capacity is None:
        return sample
    identity = dataclasses.replace(sample.identity, capacity_bytes=capacity)
    return dataclasses.replace(sample, identity=identity)


# Vendor logs that count NAND writes, tried in turn until one answers (smart.md §3.2-3.3).
_NAND_LOGS: tuple[tuple[str, tuple[str, ...], Callable[[Mapping[str, Any]], HealthValue]], ...] = (
    ("OCP C0", ("ocp", "smart-add-log"), parse_ocp_smart_add_log),
    ("Intel/Solidigm CA", ("intel", "smart-log-add"), parse_intel_smart_log_add),
)


def _add_nvme_logs(
    device_path: str,
    processes: ProcessRunner,
    sample: HealthSample,
    captures: list[Capture],
    notes: list[str],
) -> HealthSample:
    """nvme smart-log, then the NAND-writes logs the drive offers; a log it lacks is skipped.
    The SMART/Health log is asked for with the broadcast NSID: the whole controller's, the same
    through a namespace node as through the controller (a controller that keeps per-namespace
    logs, as QEMU's does, answers a namespace's NSID with that namespace's counters alone)."""
    argv = ["nvme", "smart-log", device_path, f"--namespace-id={BROADCAST_NSID}", "-o", "json"]
    capture = _run(processes, argv, "nvme", notes)
    if capture is not None:
        captures.append(capture)
        doc = _decode_json(capture)
        if capture.exit_code == 0 and doc is not None:
            try:
                extra = normalise_nvme_smart_log(
                    doc, identity=sample.identity, taken_at_s=capture.ended_at_s
                )
                sample = merge_samples(sample, extra)
            except ParseError as error:
                notes.append(f"nvme smart-log output could not be read: {error}")
        else:
            notes.append(f"nvme smart-log failed: {capture.stderr.strip()}")
    for label, command, parse in _NAND_LOGS:
        if sample.nand_written_bytes.value is not None:
            break
        capture = _run(processes, ["nvme", *command, device_path, "-o", "json"], "nvme", notes)
        if capture is None:
            return sample  # nvme-cli is not there to ask
        captures.append(capture)
        doc = _decode_json(capture)
        if capture.exit_code != 0 or doc is None:
            continue  # the drive has no such log: not an error
        try:
            nand = parse(doc)
        except ParseError:
            continue
        if nand.value is not None:
            sample = dataclasses.replace(
                sample, nand_written_bytes=nand, sources=(*sample.sources, f"nvme-cli {label}")
            )
    if sample.nand_written_bytes.value is None:
        sample = _add_ocp_c0_page(device_path, processes, sample, captures, notes)
    return sample


def _add_ocp_c0_page(
    device_path: str,
    processes: ProcessRunner,
    sample: HealthSample,
    captures: list[Capture],
    notes: list[str],
) -> HealthSample:
    """The OCP C0h page read with get-log when no NAND log answered: nvme-cli 1.x (Ubuntu 22.04
    ships 1.16) has no `nvme ocp` plugin but reads any log page. The page comes as nvme-cli's hex
    dump, text like every stored output; a drive whose C0h is not the OCP page, or that has no
    C0h, is skipped."""
    argv = ["nvme", "get-log", device_path, "--log-id=0xc0", "--log-len=512"]
    capture = _run(processes, argv, "nvme", notes)
    if capture is None:
        return sample
    captures.append(capture)
    if capture.exit_code != 0:
        return sample
    try:
        nand = parse_ocp_c0_hex_dump(capture.stdout)
    except ParseError:
        return sample  # not the OCP page: a vendor's own C0h, or no page at all
    sources = (*sample.sources, "nvme-cli get-log OCP C0")
    return dataclasses.replace(sample, nand_written_bytes=nand, sources=sources)
