"""A drive's temperatures from one reading taken while a pass runs (runner/thermal_watch.py):
the composite temperature and the temperature sensors, in °C.

* ``nvme smart-log DEV -o json``: ``temperature`` and ``temperature_sensor_1`` … ``_8`` in
  Kelvin (whole degrees; nvme-cli prints a sensor only when the drive reports it, 0 K is not
  reported), converted as nvme-cli and smartctl do: °C = K − 273.
* ``smartctl -A -j DEV``: ``temperature.current`` in °C, and on NVMe the health log's
  ``temperature_sensors`` (°C). A current temperature of 0 °C is an unset sensor
  (parse/smart_plausible.py), not a reading.
"""

from collections.abc import Mapping
from typing import Any

from ssdlab.model.thermal import KELVIN_OFFSET
from ssdlab.parse.json_values import mapping, signed_number, to_count
from ssdlab.parse.nvme_json import MIN_PLAUSIBLE_KELVIN

NVME_SENSORS = 8  # the SMART / Health log has eight temperature sensor fields
Temperatures = tuple[float, tuple[float, ...]]  # (composite °C, sensors °C)


def _celsius_of_kelvin(raw: object) -> float | None:
    count = to_count(raw)
    if count is None or count < MIN_PLAUSIBLE_KELVIN:
        return None  # 0 K: not reported; below: not a Kelvin value
    return float(count - KELVIN_OFFSET)


def nvme_temperatures(doc: Mapping[str, Any]) -> Temperatures | None:
    """From nvme-cli's smart-log JSON; None when it holds no composite temperature."""
    composite = _celsius_of_kelvin(doc.get("temperature"))
    if composite is None:
        return None
    sensors = (_celsius_of_kelvin(doc.get(f"temperature_sensor_{i}")) for i in range(1, 9))
    return composite, tuple(s for s in sensors if s is not None)


def smartctl_temperatures(doc: Mapping[str, Any]) -> Temperatures | None:
    """From smartctl's JSON (``-A -j``, ``-x -j``); None when it holds no current temperature."""
    current = signed_number(mapping(doc.get("temperature")).get("current"))
    if current is None or current == 0:
        return None
    listed = mapping(doc.get("nvme_smart_health_information_log")).get("temperature_sensors")
    sensors = listed if isinstance(listed, list) else []
    found = (signed_number(s) for s in sensors[:NVME_SENSORS])
    return current, tuple(s for s in found if s is not None)
