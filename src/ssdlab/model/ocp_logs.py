"""The OCP Datacenter NVMe SSD log pages, decoded: the SMART / Health Information Extended log
(C0h) and the Latency Monitor log (C3h).

Every field carries its unit in its name (`_bytes`, `_pct`, `_s`) or is a plain count. A field
the page does not carry — its log page version is older than the field, or the nvme-cli that
printed it did not print it — is None, never 0. The requirement IDs (SMART-n, LMDATA-n) are those
of the OCP Datacenter NVMe SSD Specification v2.0; docs/ocp.md lists each field with its offset.
"""

from dataclasses import dataclass
from typing import Generic, TypeVar

_T = TypeVar("_T")

THROTTLING_STATES: dict[int, str] = {
    0: "unthrottled",
    1: "first level throttle",
    2: "second level throttle",
    3: "third level throttle",
}
"""SMART-12, byte 97: Current Throttling Status (04h-FFh reserved)."""


@dataclass(frozen=True, slots=True)
class DssdVersion:
    """SMART-13, bytes 103:98: the version of the OCP DSSD specification the drive conforms to."""

    major: int
    minor: int
    point: int
    errata: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.point} (errata {self.errata})"


@dataclass(frozen=True, slots=True)
class OcpSmartLog:
    """C0h, 512 bytes. `log_page_guid` is written as nvme-cli prints it (the 16 bytes read as one
    little-endian 128-bit number, in hex). `endurance_estimate` is kept as the drive reports it:
    the specification calls it bytes and also "equivalent to" the Endurance Group log's estimate,
    which counts 10^9 bytes, and drives answer both ways, so ssdlab does not convert it."""

    log_page_version: int  # SMART-30
    log_page_guid: str  # SMART-31
    physical_media_written_bytes: int | None = None  # SMART-1
    physical_media_read_bytes: int | None = None  # SMART-2
    bad_user_nand_blocks: int | None = None  # SMART-3 raw
    bad_user_nand_blocks_normalized_pct: int | None = None  # SMART-3 normalized
    bad_system_nand_blocks: int | None = None  # SMART-4 raw
    bad_system_nand_blocks_normalized_pct: int | None = None  # SMART-4 normalized
    xor_recoveries: int | None = None  # SMART-5
    uncorrectable_read_errors: int | None = None  # SMART-6
    soft_ecc_errors: int | None = None  # SMART-7
    end_to_end_detected_errors: int | None = None  # SMART-8
    end_to_end_corrected_errors: int | None = None  # SMART-8
    system_data_used_pct: int | None = None  # SMART-9
    refreshes: int | None = None  # SMART-10
    max_user_erase_count: int | None = None  # SMART-11
    min_user_erase_count: int | None = None  # SMART-11
    thermal_throttling_events: int | None = None  # SMART-12, byte 96
    thermal_throttling_status: int | None = None  # SMART-12, byte 97 (THROTTLING_STATES)
    dssd_version: DssdVersion | None = None  # SMART-13
    pcie_correctable_errors: int | None = None  # SMART-14
    incomplete_shutdowns: int | None = None  # SMART-15
    free_blocks_pct: int | None = None  # SMART-17
    capacitor_health_pct: int | None = None  # SMART-19 (None when FFFFh: no PLP)
    has_power_loss_protection: bool | None = None  # SMART-19: FFFFh means none
    nvme_base_errata: int | None = None  # SMART-20 (an ASCII letter's code, 0 for none)
    unaligned_ios: int | None = None  # SMART-22
    security_version: int | None = None  # SMART-23
    total_nuse_blocks: int | None = None  # SMART-24 (logical blocks, as Identify NUSE)
    plp_starts: int | None = None  # SMART-25
    endurance_estimate: int | None = None  # SMART-26 (as reported; see above)
    pcie_link_retrains: int | None = None  # SMART-27
    power_state_changes: int | None = None  # SMART-28
    lowest_permitted_firmware: int | None = None  # version >= 4, bytes 215:208
    total_media_dies: int | None = None  # version >= 5, bytes 217:216
    die_failure_tolerance: int | None = None  # version >= 5, bytes 219:218
    media_dies_offline: int | None = None  # version >= 5, bytes 221:220
    max_temperature_recorded: int | None = None  # version >= 5, byte 222 (unit not stated)
    nand_avg_erase_count: int | None = None  # version >= 5, bytes 231:224
    command_timeouts: int | None = None  # version >= 5, bytes 235:232
    notes: tuple[str, ...] = ()

    @property
    def thermal_throttling_state(self) -> str | None:
        """SMART-12's status in words, None when unknown."""
        if self.thermal_throttling_status is None:
            return None
        return THROTTLING_STATES.get(
            self.thermal_throttling_status, f"reserved ({self.thermal_throttling_status:#04x})"
        )


@dataclass(frozen=True, slots=True)
class PerCommand(Generic[_T]):
    """One value per command type a latency monitor bucket counts."""

    read: _T
    write: _T
    deallocate: _T


@dataclass(frozen=True, slots=True)
class LatencyBucket:
    """One of the four buckets of the Latency Monitor log (C3h), active and static (the active
    values copied when the Active Bucket Timer reached its threshold).

    Counts are commands whose latency passed the bucket's threshold (LMDATA-12…15, 20…23);
    measured latencies (LMDATA-17, 25) are in seconds, None when the drive marks them invalid
    (0000h); stamps (LMDATA-16, 24) are milliseconds as the drive keeps them — since the Unix
    epoch when the stamp units bit says they come from the NVMe Timestamp, otherwise from
    power-on time (LMDATA-18, 26) — None when invalid (all ones)."""

    active_counts: PerCommand[int]
    static_counts: PerCommand[int]
    active_measured_latency_s: PerCommand[float | None]
    static_measured_latency_s: PerCommand[float | None]
    active_stamps_ms: PerCommand[int | None]
    static_stamps_ms: PerCommand[int | None]


@dataclass(frozen=True, slots=True)
class LatencyMonitorLog:
    """C3h, 512 bytes: the drive's own count of commands slower than thresholds A-D, for
    telling whether host-side outliers come from the drive. Times are in seconds, converted
    once from the page's 5-minute, 5 ms and 100 ms units."""

    log_page_version: int  # LMDATA-35
    log_page_guid: str  # LMDATA-36, as nvme-cli prints it
    feature_status: int  # LMDATA-1: bit 0 enabled, 1 mode 1 supported, 2 measured latency
    active_bucket_timer_s: int  # LMDATA-3
    active_bucket_timer_threshold_s: int  # LMDATA-4
    thresholds_s: tuple[float, float, float, float]  # LMDATA-5…8, A-D
    active_latency_config: int | None  # LMDATA-9, a bit per bucket and command
    active_latency_min_window_s: float  # LMDATA-10
    buckets: tuple[LatencyBucket, LatencyBucket, LatencyBucket, LatencyBucket]
    active_stamp_units: int  # LMDATA-18
    static_stamp_units: int  # LMDATA-26
    notes: tuple[str, ...] = ()

    @property
    def enabled(self) -> bool:
        return bool(self.feature_status & 0x01)
