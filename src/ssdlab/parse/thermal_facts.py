"""A drive's temperature limits and thermal counters from smartctl JSON and nvme-cli JSON.

* ``nvme id-ctrl DEV -o json``: ``wctemp`` and ``cctemp`` in Kelvin (0: not reported).
* ``smartctl -x -j`` on NVMe: ``temperature.op_limit_max`` (WCTEMP) and
  ``temperature.critical_limit_max`` (CCTEMP) in °C, converted back to the Kelvin the
  controller reports (smartctl subtracts 273); the SMART / Health log's ``warning_temp_time``,
  ``critical_comp_time``, ``power_on_hours`` and (smartctl 8.0) the
  ``thermal_mgmt_temperature_{1,2}_{transition_count,total_time}``.
* the OCP C0h page (``parse/ocp_smart.py``): SMART-12's thermal throttling event count.
* ``nvme smart-log DEV -o json``: ``warning_temp_time``, ``critical_comp_time``,
  ``thm_temp{1,2}_trans_count``, ``thm_temp{1,2}_total_time``, ``power_on_hours``.
"""

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ssdlab.model.ocp_logs import OcpSmartLog
from ssdlab.model.thermal import KELVIN_OFFSET, ThermalCounters, ThermalLimits
from ssdlab.parse.json_values import mapping, to_count


def _kelvin(raw: object) -> int | None:
    count = to_count(raw)
    return count if count else None  # 0 K: the controller does not report the threshold


def _celsius_as_kelvin(raw: object) -> int | None:
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return None
    return round(raw) + KELVIN_OFFSET


def limits_from_id_ctrl(doc: Mapping[str, Any]) -> ThermalLimits:
    """WCTEMP and CCTEMP from ``nvme id-ctrl -o json``."""
    return ThermalLimits(_kelvin(doc.get("wctemp")), _kelvin(doc.get("cctemp")), "nvme id-ctrl")


def limits_from_smartctl(doc: Mapping[str, Any]) -> ThermalLimits:
    """WCTEMP and CCTEMP from smartctl's ``temperature`` object (NVMe drives)."""
    temperature = mapping(doc.get("temperature"))
    return ThermalLimits(
        _celsius_as_kelvin(temperature.get("op_limit_max")),
        _celsius_as_kelvin(temperature.get("critical_limit_max")),
        "smartctl temperature",
    )


_FIELDS = (
    "warning_temp_time_min",
    "critical_comp_time_min",
    "thm_temp1_trans_count",
    "thm_temp2_trans_count",
    "thm_temp1_total_time_s",
    "thm_temp2_total_time_s",
    "power_on_hours",
)
_SMARTCTL_KEYS = (
    "warning_temp_time",
    "critical_comp_time",
    "thermal_mgmt_temperature_1_transition_count",
    "thermal_mgmt_temperature_2_transition_count",
    "thermal_mgmt_temperature_1_total_time",
    "thermal_mgmt_temperature_2_total_time",
    "power_on_hours",
)
_NVME_CLI_KEYS = (
    "warning_temp_time",
    "critical_comp_time",
    "thm_temp1_trans_count",
    "thm_temp2_trans_count",
    "thm_temp1_total_time",
    "thm_temp2_total_time",
    "power_on_hours",
)


def _counters(log: Mapping[str, Any], keys: tuple[str, ...], source: str) -> ThermalCounters:
    values = {field: to_count(log.get(key)) for field, key in zip(_FIELDS, keys, strict=True)}
    return ThermalCounters(**values, source=source)


def counters_from_smartctl(doc: Mapping[str, Any]) -> ThermalCounters:
    """The thermal counters of smartctl's ``nvme_smart_health_information_log``."""
    log = mapping(doc.get("nvme_smart_health_information_log"))
    return _counters(log, _SMARTCTL_KEYS, "smartctl nvme_smart_health_information_log")


def counters_from_nvme_smart_log(doc: Mapping[str, Any]) -> ThermalCounters:
    """The thermal counters of ``nvme smart-log -o json`` (nvme-cli 1.x and 2.x)."""
    return _counters(doc, _NVME_CLI_KEYS, "nvme smart-log")


def with_ocp_throttling(counters: ThermalCounters, log: OcpSmartLog) -> ThermalCounters:
    """`counters` with the OCP C0h page's thermal throttling event count (SMART-12)."""
    return replace(counters, ocp_throttling_events=log.thermal_throttling_events)
