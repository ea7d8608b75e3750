"""A served drive's counters as a drive reports them: the NVMe SMART / Health log as
``nvme smart-log -o json`` prints it, the OCP C0h log as ``nvme ocp smart-add-log -o json``
prints it (output format version 1), and the exact counters beside them.

ssdlab reads the first two through the parsers it reads real drives with, so a virtual drive's
health has a real drive's units and resolution (host writes in 512,000-byte data units,
rounded up as the NVMe specification says; NAND writes in bytes, OCP SMART-1). The exact
counters are there for checking the drive against the simulator. Pure.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from ssdlab.model.virtual_drive import HEALTH_FORMAT
from ssdlab.sim.virtual_drive import DriveCounters

DATA_UNIT_BYTES = 512_000  # one NVMe data unit: 1000 × 512 B
C0_GUID = "0xafd514c97c6f4f9ca4f2bfea2810afc5"  # the OCP C0h log page GUID as nvme-cli prints it
C0_VERSION = 5  # the first with the average erase count
MODEL = "ssdlab virtual drive"


@dataclass(frozen=True, slots=True)
class DriveLabel:
    """What the drive says it is: its serial (from the served configuration's digest, so two
    configurations are two drives), firmware (the ssdlab version), capacity and rated P/E."""

    serial: str
    firmware: str
    capacity_bytes: int
    rated_pe_cycles: float
    config_sha256: str  # the configuration's digest: what a hidden configuration shows


def _data_units(nbytes: int) -> int:
    """Thousands of 512-byte units, rounded up (NVMe base specification, Data Units Written)."""
    return math.ceil(nbytes / DATA_UNIT_BYTES)


def percent_used(counters: DriveCounters, rated_pe_cycles: float) -> int:
    """Percentage Used as a drive computes it: average erase count over the rated P/E cycles,
    rounded up, capped at 255."""
    if rated_pe_cycles <= 0:
        return 0
    return min(255, math.ceil(100 * counters.erase_count_avg / rated_pe_cycles))


def smart_log(counters: DriveCounters, label: DriveLabel, power_on_s: float) -> dict[str, Any]:
    """``nvme smart-log -o json``: temperature 0 K (the model has none: read as unknown)."""
    return {
        "critical_warning": 0,
        "temperature": 0,
        "avail_spare": 100,
        "spare_thresh": 10,
        "percent_used": percent_used(counters, label.rated_pe_cycles),
        "endurance_grp_critical_warning_summary": 0,
        "data_units_read": _data_units(counters.host_read_bytes),
        "data_units_written": _data_units(counters.host_write_bytes),
        "host_read_commands": counters.host_read_commands,
        "host_write_commands": counters.host_write_commands,
        "controller_busy_time": math.floor(counters.model_time_s / 60),
        "power_cycles": 1,
        "power_on_hours": math.floor(power_on_s / 3600),
        "unsafe_shutdowns": 0,
        "media_errors": 0,
        "num_err_log_entries": 0,
    }


def _hi_lo(value: int) -> dict[str, int]:
    return {"hi": value >> 64, "lo": value & ((1 << 64) - 1)}


def ocp_smart_add_log(counters: DriveCounters) -> dict[str, Any]:
    """``nvme ocp smart-add-log -o json`` (C0h, output format version 1): NAND bytes written
    and read, the user-data erase counts (maximum, minimum, average rounded down), the share of
    free blocks."""
    free_pct = math.floor(100 * counters.free_blocks / max(counters.total_blocks, 1))
    return {
        "Physical media units written": _hi_lo(counters.nand_write_bytes),
        "Physical media units read": _hi_lo(counters.nand_read_bytes),
        "Bad user nand blocks - Raw": 0,
        "Bad system nand blocks - Raw": 0,
        "Max User data erase counts": counters.erase_count_max,
        "Min User data erase counts": counters.erase_count_min,
        "Percent free blocks": free_pct,
        "NAND avg erase count": math.floor(counters.erase_count_avg),
        "Log page version": C0_VERSION,
        "Log page GUID": C0_GUID,
    }


def health_document(
    counters: DriveCounters,
    label: DriveLabel,
    power_on_s: float,
    taken_at_s: float,
    *,
    c0: bool = True,
) -> dict[str, Any]:
    """The document the served drive's health file holds, read whole at each reading; without
    the OCP C0h log (`c0` False) as a drive that reports no NAND writes (most consumer drives):
    the exact counters stay, for checking, but no reader takes NAND bytes from them."""
    document = {
        "format": HEALTH_FORMAT,
        "format_version": 1,
        "taken_at_s": taken_at_s,
        "identity": {
            "model": MODEL,
            "serial": label.serial,
            "firmware": label.firmware,
            "capacity_bytes": label.capacity_bytes,
            "rated_pe_cycles": label.rated_pe_cycles,
            "config_sha256": label.config_sha256,
        },
        "smart_log": smart_log(counters, label, power_on_s),
        "ocp_smart_add_log": ocp_smart_add_log(counters),
        "counters": {**asdict(counters), "waf": counters.waf},
    }
    if not c0:
        del document["ocp_smart_add_log"]
    return document
