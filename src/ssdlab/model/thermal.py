"""What a drive says about its own temperature limits and thermal history.

`ThermalLimits`: the thresholds from the drive's Identify data (NVMe WCTEMP and CCTEMP, in
Kelvin as the controller reports them). `ThermalCounters`: the counters of the SMART / Health
log (and the OCP C0h page) that count time hot and throttling transitions, read once before and
once after a run. Every field is None when the drive or the tool did not report it.
"""

from dataclasses import dataclass

KELVIN_OFFSET = 273
"""Kelvin to °C as smartctl and nvme-cli convert (whole degrees)."""


@dataclass(frozen=True, slots=True)
class ThermalLimits:
    """Identify Controller's temperature thresholds, in Kelvin; `source` names the input."""

    wctemp_k: int | None = None  # Warning Composite Temperature Threshold
    cctemp_k: int | None = None  # Critical Composite Temperature Threshold
    source: str = ""

    @property
    def wctemp_c(self) -> float | None:
        return None if self.wctemp_k is None else float(self.wctemp_k - KELVIN_OFFSET)

    @property
    def cctemp_c(self) -> float | None:
        return None if self.cctemp_k is None else float(self.cctemp_k - KELVIN_OFFSET)


@dataclass(frozen=True, slots=True)
class ThermalCounters:
    """The drive's thermal counters at one moment."""

    warning_temp_time_min: int | None = None  # minutes at or above WCTEMP, lifetime
    critical_comp_time_min: int | None = None  # minutes at or above CCTEMP, lifetime
    thm_temp1_trans_count: int | None = None  # host-controlled thermal management level 1
    thm_temp2_trans_count: int | None = None  # … level 2
    thm_temp1_total_time_s: int | None = None
    thm_temp2_total_time_s: int | None = None
    ocp_throttling_events: int | None = None  # OCP C0h SMART-12 thermal throttling count
    power_on_hours: int | None = None
    source: str = ""


@dataclass(frozen=True, slots=True)
class TemperatureSample:
    """One reading taken while a pass ran: seconds from the pass's start (the middle of the
    reading's call), the composite temperature and the drive's temperature sensors 1-8 as it
    reports them (°C; () when it reports none)."""

    elapsed_s: float
    composite_c: float
    sensors_c: tuple[float, ...] = ()
