"""One reading of a drive's temperatures while a pass runs: `nvme smart-log` JSON for an NVMe
drive (when nvme-cli is installed), else `smartctl -A -j`; one subprocess with a short time
limit, its raw output kept in the capture.

`temperature_source` says which reading a target's drive gets, or why it gets none (a file on a
virtual disk, a loop device, no tool): a run without temperatures is never a failed run.
"""

import json
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ssdlab.errors import ToolError
from ssdlab.model.run import Capture
from ssdlab.model.target import DeviceIdentity
from ssdlab.model.thermal import ThermalCounters, ThermalLimits
from ssdlab.parse.temperature_reading import (
    Temperatures,
    nvme_temperatures,
    smartctl_temperatures,
)
from ssdlab.parse.thermal_facts import (
    counters_from_nvme_smart_log,
    counters_from_smartctl,
    limits_from_id_ctrl,
    limits_from_smartctl,
)
from ssdlab.plan.purge import BROADCAST_NSID
from ssdlab.system.health import smartctl_timeout_s
from ssdlab.system.process import ProcessRunner

# one reading a second: a drive (or a bridge) that takes longer than this gives no reading
# that second rather than a late one; smartctl and nvme-cli answer a real drive in milliseconds
READ_TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class TemperatureSource:
    """How a drive's temperatures are read: the tool, its argv, and the readers of its JSON;
    and, once per run, the call that gives its temperature thresholds (WCTEMP, CCTEMP)."""

    tool: str
    argv: tuple[str, ...]
    temperatures: Callable[[Mapping[str, Any]], Temperatures | None]
    counters: Callable[[Mapping[str, Any]], ThermalCounters]
    limits_argv: tuple[str, ...]
    limits: Callable[[Mapping[str, Any]], ThermalLimits]

    @property
    def text(self) -> str:
        return " ".join(self.argv)


@dataclass(frozen=True, slots=True)
class TemperatureRead:
    """One reading: the temperatures (None: none read, `problem` says why), the drive's thermal
    counters at that moment, and the capture of the call (None when it could not start)."""

    temperatures: Temperatures | None
    counters: ThermalCounters | None
    capture: Capture | None
    problem: str = ""


def _on_loop(device: DeviceIdentity) -> bool:
    return device.transport == "loop" or device.name.startswith("loop")


def temperature_source(
    device: DeviceIdentity | None, which: Callable[[str], str | None] = shutil.which
) -> TemperatureSource | str:
    """The reading of `device`'s temperatures, or why there is none."""
    if device is None:
        return "the target is on no block device ssdlab can name: no temperature to read"
    if _on_loop(device):
        return "a loop device has no temperature"
    if device.name.startswith("nvme") and which("nvme") is not None:
        argv = ("nvme", "smart-log", device.path, f"--namespace-id={BROADCAST_NSID}", "-o", "json")
        return TemperatureSource(
            "nvme",
            argv,
            nvme_temperatures,
            counters_from_nvme_smart_log,
            ("nvme", "id-ctrl", device.path, "-o", "json"),
            limits_from_id_ctrl,
        )
    if which("smartctl") is None:
        return "neither nvme-cli nor smartctl is installed (apt-get install smartmontools)"
    bridge = ("-d", "sat") if device.transport == "usb" else ()
    return TemperatureSource(
        "smartctl",
        ("smartctl", "-A", "-j", *bridge, device.path),
        smartctl_temperatures,
        counters_from_smartctl,
        ("smartctl", "-x", "-j", *bridge, device.path),
        limits_from_smartctl,
    )


def read_temperatures(
    source: TemperatureSource, processes: ProcessRunner, timeout_s: float = READ_TIMEOUT_S
) -> TemperatureRead:
    """One reading through `processes` (a runner of the reading's own: never fio's)."""
    try:
        capture = processes.run(list(source.argv), tool=source.tool, timeout_s=timeout_s)
    except ToolError as error:
        return TemperatureRead(None, None, None, str(error))
    return reading_of(source, capture)


def _json_object(capture: Capture) -> dict[str, Any] | None:
    try:
        doc = json.loads(capture.stdout)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def read_limits(
    source: TemperatureSource, processes: ProcessRunner
) -> tuple[ThermalLimits | None, Capture | None]:
    """The drive's temperature thresholds, read once (None when the call gave no JSON)."""
    try:
        capture = processes.run(
            list(source.limits_argv), tool=source.tool, timeout_s=smartctl_timeout_s()
        )
    except ToolError:
        return None, None
    return limits_of(source, capture), capture


def limits_of(source: TemperatureSource, capture: Capture) -> ThermalLimits | None:
    """What a captured call of `source.limits_argv` says (pure)."""
    doc = _json_object(capture)
    return None if doc is None else source.limits(doc)


def reading_of(source: TemperatureSource, capture: Capture) -> TemperatureRead:
    """What a captured call of `source` says (pure: tests replay captured outputs)."""
    doc = _json_object(capture)
    if doc is None:
        why = capture.stderr.strip().splitlines()[-1:] or ["no output"]
        return TemperatureRead(None, None, capture, f"{source.tool} printed no JSON: {why[0]}")
    found = source.temperatures(doc)
    if found is None:
        return TemperatureRead(
            None, None, capture, f"{source.tool} reports no temperature for this drive"
        )
    return TemperatureRead(found, source.counters(doc), capture)
