"""Normalised drive health: one sample of SMART / NVMe telemetry, every value with provenance.

Units are in the field names; a value the drive does not expose is None (never 0), and every
known value says where it came from (attribute or log field, raw value, unit, resolution).
"""

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a normalised value came from.

    `source`: e.g. "ata_smart_attributes[241] Total_LBAs_Written",
    "nvme_smart_health_information_log.data_units_written", "ata_device_statistics[1].0x018".
    `raw`: the raw value as the tool reported it (number or string).
    `unit`: what one raw count means, e.g. "512-byte LBA", "32 MiB", "GiB", "512,000-byte data
    unit", "%", "°C", "hours".
    `resolution`: the smallest change the counter can show, in the value's own unit (bytes for
    byte counters): 33554432 for a 32 MiB counter. None when not a counter.
    """

    source: str
    raw: str | int | float | None
    unit: str
    resolution: float | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class HealthValue:
    value: float | None
    provenance: Provenance | None = None


UNKNOWN = HealthValue(None, None)


@dataclass(frozen=True, slots=True)
class SourceChoice:
    """Two sources gave one metric different values and one was judged implausible: which
    source the sample uses, which it set aside, and why (e.g. SCT status 0 °C beside attribute
    194's 36 °C; Device Statistics truncated to 32 bits beside the full attribute)."""

    metric: str
    chosen: str  # the source used (a Provenance.source)
    rejected: str  # the source set aside
    rejected_value: float | None
    reason: str


@dataclass(frozen=True, slots=True)
class DriveIdentity:
    protocol: str | None  # ATA, NVMe, SCSI
    model: str | None
    serial: str | None
    firmware: str | None
    capacity_bytes: int | None
    model_family: str | None = None  # smartctl's drive-database family, when known
    device_path: str | None = None


@dataclass(frozen=True, slots=True)
class HealthSample:
    """One normalised health sample of one drive."""

    taken_at_s: float | None  # Unix time; None when the input had no time
    identity: DriveIdentity
    power_on_hours: HealthValue = UNKNOWN
    power_cycles: HealthValue = UNKNOWN
    unsafe_shutdowns: HealthValue = UNKNOWN
    host_written_bytes: HealthValue = UNKNOWN
    host_read_bytes: HealthValue = UNKNOWN
    nand_written_bytes: HealthValue = UNKNOWN
    slc_nand_written_bytes: HealthValue = UNKNOWN  # SLC-cache NAND writes, where separate
    wear_used_pct: HealthValue = UNKNOWN  # 0 new … 100 rated end of life (may exceed 100)
    erase_count_avg: HealthValue = UNKNOWN
    erase_count_max: HealthValue = UNKNOWN
    erase_count_min: HealthValue = UNKNOWN
    rated_pe_cycles: HealthValue = UNKNOWN
    available_spare_pct: HealthValue = UNKNOWN
    media_errors: HealthValue = UNKNOWN
    reallocated_sectors: HealthValue = UNKNOWN
    pending_sectors: HealthValue = UNKNOWN
    uncorrectable_errors: HealthValue = UNKNOWN
    temperature_c: HealthValue = UNKNOWN
    critical_warning: HealthValue = UNKNOWN  # NVMe critical warning bit field
    available_spare_threshold_pct: HealthValue = UNKNOWN  # NVMe: spare below this warns
    error_log_entries: HealthValue = UNKNOWN  # NVMe: error information log entries, lifetime
    temperature_warning_c: HealthValue = UNKNOWN  # the drive's own warning limit (SCT, NVMe)
    verdict: str | None = None  # "PASSED" / "FAILED" / None (unknown)
    exit_status: int | None = None  # smartctl's exit status bitmask
    exit_findings: tuple[str, ...] = ()  # the meaning of each set bit
    flags: tuple[str, ...] = ()  # sanity-check findings: wraps, NAND < host, inconsistencies
    sources: tuple[str, ...] = field(default=())  # which inputs were merged (smartctl, nvme-cli)
    choices: tuple[SourceChoice, ...] = ()  # where a plausible source was preferred, and why


HEALTH_METRICS: tuple[str, ...] = (
    "power_on_hours",
    "power_cycles",
    "unsafe_shutdowns",
    "host_written_bytes",
    "host_read_bytes",
    "nand_written_bytes",
    "slc_nand_written_bytes",
    "wear_used_pct",
    "erase_count_avg",
    "erase_count_max",
    "erase_count_min",
    "rated_pe_cycles",
    "available_spare_pct",
    "media_errors",
    "reallocated_sectors",
    "pending_sectors",
    "uncorrectable_errors",
    "temperature_c",
    "critical_warning",
    "available_spare_threshold_pct",
    "error_log_entries",
    "temperature_warning_c",
)
