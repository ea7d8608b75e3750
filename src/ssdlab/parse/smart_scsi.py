"""SCSI/SAS health from ``smartctl -j`` keys (or their rebuild from text by
smartctl_scsi_text): bytes read and written from the error counter log's "Gigabytes processed",
uncorrected errors, the grown defect list, the percentage used endurance indicator, start-stop
cycles and the environmental reports' temperature."""

import contextlib
import decimal
from collections.abc import Mapping
from typing import Any

from ssdlab.model.health import HealthValue, Provenance
from ssdlab.model.units import GB
from ssdlab.parse.json_values import decimal_number, mapping, raw_value, signed_number, to_count
from ssdlab.parse.smart_candidates import PRIORITY_LOG, PRIORITY_SMARTCTL, Candidate


def scsi_temperature_missing(doc: Mapping[str, Any]) -> bool:
    """smartctl 7.3 on a SCSI disk without a Temperature or Informational Exceptions log page
    (QEMU's emulated disk) prints ``temperature.current`` 0 with ``scsi_temperature.drive_trip``
    0: the values it started from, not a reading. A temperature of 0 °C with a trip point of
    0 °C is that, and is unknown."""
    if mapping(doc.get("device")).get("protocol") != "SCSI":
        return False
    current = mapping(doc.get("temperature")).get("current")
    trip = mapping(doc.get("scsi_temperature")).get("drive_trip")
    return current == 0 and trip in (0, None)


def scsi_candidates(doc: Mapping[str, Any]) -> list[Candidate]:
    found: list[Candidate] = []
    counters = mapping(doc.get("scsi_error_counter_log"))
    for metric, direction in (("host_written_bytes", "write"), ("host_read_bytes", "read")):
        raw = mapping(counters.get(direction)).get("gigabytes_processed")
        processed = bytes_from_gigabytes(raw)
        if processed is not None:
            found.append(
                Candidate(
                    metric,
                    HealthValue(
                        processed,
                        Provenance(
                            f"scsi_error_counter_log.{direction}.gigabytes_processed",
                            raw_value(raw),
                            "GB (10^9 bytes)",
                            1e6,
                        ),
                    ),
                    PRIORITY_LOG,
                    "log",
                )
            )
    uncorrected = [
        to_count(mapping(counters.get(d)).get("total_uncorrected_errors"))
        for d in ("read", "write", "verify")
    ]
    known = [u for u in uncorrected if u is not None]
    if known:
        found.append(
            Candidate(
                "uncorrectable_errors",
                HealthValue(
                    float(sum(known)),
                    Provenance(
                        "scsi_error_counter_log.*.total_uncorrected_errors", sum(known), "count", 1
                    ),
                ),
                PRIORITY_LOG,
                "log",
            )
        )
    defects = to_count(doc.get("scsi_grown_defect_list"))
    if defects is not None:
        found.append(
            Candidate(
                "reallocated_sectors",
                HealthValue(
                    float(defects), Provenance("scsi_grown_defect_list", defects, "count", 1)
                ),
                PRIORITY_LOG,
                "log",
            )
        )
    found += _scsi_cycles_and_temperature(doc)
    indicator = doc.get("scsi_percentage_used_endurance_indicator")
    if isinstance(indicator, Mapping):
        indicator = indicator.get("percentage_used_endurance_indicator", indicator.get("value"))
    used = to_count(indicator)
    if used is not None:
        found.append(
            Candidate(
                "wear_used_pct",
                HealthValue(
                    float(used),
                    Provenance("scsi_percentage_used_endurance_indicator", used, "%", 1),
                ),
                PRIORITY_LOG,
                "log",
            )
        )
    return found


_START_STOP_KEYS = ("accumulated_start_stop_cycles", "Accumulated start-stop cycles")


def _scsi_cycles_and_temperature(doc: Mapping[str, Any]) -> list[Candidate]:
    """SCSI start-stop cycles (as power cycles) and the environmental-report temperature."""
    found: list[Candidate] = []
    counter = mapping(doc.get("scsi_start_stop_cycle_counter"))
    for key in _START_STOP_KEYS:
        cycles = to_count(counter.get(key))
        if cycles is None:
            continue
        provenance = Provenance(
            f"scsi_start_stop_cycle_counter.{key}",
            cycles,
            "count",
            1,
            "SCSI start-stop cycle counter log page (0Eh): one start-stop cycle per power-on "
            "of the unit (read as power cycles, as smartctl_exporter does)",
        )
        found.append(
            Candidate("power_cycles", HealthValue(float(cycles), provenance), PRIORITY_LOG, "log")
        )
        break
    reports = mapping(doc.get("scsi_environmental_reports"))
    sensor = mapping(reports.get("temperature_1")).get("current")
    celsius = signed_number(sensor)
    if celsius is not None:
        provenance = Provenance(
            "scsi_environmental_reports.temperature_1.current", raw_value(sensor), "°C", None
        )
        found.append(
            Candidate(
                "temperature_c", HealthValue(celsius, provenance), PRIORITY_SMARTCTL - 1, "log"
            )
        )
    return found


# --- ATA attributes, Device Statistics and the vendor map ---------------------------------


def bytes_from_gigabytes(value: object) -> float | None:
    """smartctl's "%.3f" gigabytes as bytes, exactly ("16772.475" is 16,772,475,000,000, which
    16772.475 * 10^9 in binary floating point misses by a fraction)."""
    number = decimal_number(value)
    if number is None:
        return None
    if isinstance(value, str):
        with contextlib.suppress(ArithmeticError):
            return float(int(decimal.Decimal(value.replace(",", "")) * GB))
    return float(round(number * GB))
