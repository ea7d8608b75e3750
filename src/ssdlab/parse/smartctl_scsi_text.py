"""smartctl's text output for SCSI/SAS drives, read into the keys ``smartctl -j`` prints.

The lines are those of smartmontools' ``scsiprint.cpp``, unchanged in wording from 5.41 to 8.0
(RELEASE_5_41 ``smartmontools/scsiprint.cpp``; HEAD ``src/scsiprint.cpp``), and the JSON keys
those smartctl 7.4+ writes for them:

* information: ``Vendor:`` / ``Product:`` / ``Revision:`` (``scsi_vendor``, ``scsi_product``,
  ``scsi_model_name`` = vendor and product, ``scsi_revision``), ``Compliance:``
  (``scsi_version``), ``Logical block size:`` / ``Physical block size:``, ``Serial number:``,
  ``Device type:``, ``Transport protocol:``; ``User Capacity:``, ``Rotation Rate:`` and the
  others the ATA text shares are read by smartctl_text;
* ``SMART Health Status: OK`` (``smart_status.passed``; anything else is an informational
  exception, not passed);
* ``Current Drive Temperature:     33 C``, ``Drive Trip Temperature:`` (``temperature``), and the
  environmental reports' ``Current temperature = 25`` (``scsi_environmental_reports``);
* ``Percentage used endurance indicator: 1%``
  (``scsi_percentage_used_endurance_indicator``, ``endurance_used.current_percent``);
* the start-stop cycle counter page: ``Manufactured in week 32 of year 2021``,
  ``Accumulated start-stop cycles:  892``, ``Accumulated load-unload cycles:`` and the
  specified counts (``scsi_start_stop_cycle_counter``);
* ``Elements in grown defect list: 0`` (``scsi_grown_defect_list``);
* the error counter log's rows ``read:`` / ``write:`` / ``verify:``, seven columns, the sixth
  "Gigabytes processed [10^9 bytes]" printed ``%12.3f`` in the locale's decimal separator
  (``scsi_error_counter_log.<row>.gigabytes_processed`` as smartctl's ``"%.3f"`` string);
* power-on time: ``Accumulated power on time, hours:minutes 146:02`` (exact) or the
  Seagate/Hitachi factory page's ``number of hours powered up = 40678.25`` (hours, 2 decimals).
"""

import re
from collections.abc import Callable
from typing import Any

from ssdlab.errors import ParseError

ERROR_COUNTER_TITLE = re.compile(r"Error counter log:")
_ERROR_ROW = re.compile(
    r"(?P<name>read|write|verify):\s+"
    r"(?P<fast>\d+)\s+(?P<delayed>\d+)\s+(?P<rewrites>\d+)\s+(?P<corrected>\d+)\s+"
    r"(?P<invocations>\d+)\s+(?P<gb>\d+[.,]\d{3})\s+(?P<uncorrected>\d+)"
)
_ERROR_ROW_START = re.compile(r"(read|write|verify):")

_CYCLE_KEYS = {
    "Specified cycle count over device lifetime": "specified_cycle_count_over_device_lifetime",
    "Accumulated start-stop cycles": "accumulated_start_stop_cycles",
    "Specified load-unload count over device lifetime": (
        "specified_load_unload_count_over_device_lifetime"
    ),
    "Accumulated load-unload cycles": "accumulated_load_unload_cycles",
}
_CYCLES = re.compile(rf"(?P<label>{'|'.join(map(re.escape, _CYCLE_KEYS))}):\s+(?P<count>\d+)")
_TEMPERATURE = re.compile(r"Current Drive Temperature:\s+(?P<c>-?\d+) C")
_TRIP = re.compile(r"Drive Trip Temperature:\s+(?P<c>-?\d+) C")
_ENV_TEMPERATURE = re.compile(r"Current temperature = (?P<c>-?\d+)")
_ENDURANCE = re.compile(r"Percentage used endurance indicator:\s+(?P<pct>\d+)%")
_MANUFACTURED = re.compile(r"Manufactured in week (?P<week>\d+) of year (?P<year>\d+)")
_DEFECTS = re.compile(r"Elements in grown defect list:\s+(?P<count>\d+)(?:\s+#.*)?")
_POWER_ON = re.compile(r"Accumulated power on time, hours:minutes (?P<h>\d+):(?P<m>\d{2})\b.*")
_FACTORY_HOURS = re.compile(r"number of hours powered up = (?P<h>\d+)[.,](?P<f>\d{2})")
_HEALTH = re.compile(r"SMART Health Status: (?P<status>.+)")


def _set_str(key: str) -> Callable[[dict[str, Any], str], None]:
    def handle(doc: dict[str, Any], value: str) -> None:
        doc[key] = value

    return handle


def _named(key: str) -> Callable[[dict[str, Any], str], None]:
    def handle(doc: dict[str, Any], value: str) -> None:
        doc[key] = {"name": value}

    return handle


def _block_size(key: str) -> Callable[[dict[str, Any], str], None]:
    def handle(doc: dict[str, Any], value: str) -> None:
        size = re.fullmatch(r"(\d+) bytes", value)
        if size is not None:
            doc[key] = int(size.group(1))

    return handle


def _vendor(doc: dict[str, Any], value: str) -> None:
    doc["scsi_vendor"] = value
    _model_name(doc)


def _product(doc: dict[str, Any], value: str) -> None:
    doc["scsi_product"] = value
    _model_name(doc)


def _model_name(doc: dict[str, Any]) -> None:
    parts = [doc.get("scsi_vendor"), doc.get("scsi_product")]
    doc["scsi_model_name"] = " ".join(p for p in parts if p)


SCSI_INFO: dict[str, Callable[[dict[str, Any], str], None]] = {
    "Vendor": _vendor,
    "Product": _product,
    "Revision": _set_str("scsi_revision"),
    "Compliance": _set_str("scsi_version"),
    "Serial number": _set_str("serial_number"),
    "Logical block size": _block_size("logical_block_size"),
    "Physical block size": _block_size("physical_block_size"),
    "Device type": _named("device_type"),
    "Transport protocol": _named("scsi_transport_protocol"),
    "Logical Unit id": _set_str("scsi_lu_id"),
}
"""INFORMATION-section labels only SCSI devices print -> their reader."""


def read_scsi_line(doc: dict[str, Any], line: str) -> bool:
    """Read one of the SCSI data lines (module docstring) into `doc`; False when `line` is none
    of them."""
    return any(reader(doc, line) for reader in _READERS)


def _health(doc: dict[str, Any], line: str) -> bool:
    """``OK``, or the informational exception and ``[asc=.., ascq=..]`` (not passed); a status
    that is neither (a note pasted after it, say) is left unread rather than taken as failed."""
    match = _HEALTH.fullmatch(line)
    if match is None:
        return False
    status = match.group("status")
    if status == "OK" or status.startswith(("OK ", "OK\t")):
        doc.setdefault("smart_status", {})["passed"] = True
    elif "[asc=" in status:
        doc.setdefault("smart_status", {})["passed"] = False
    return True


def _temperatures(doc: dict[str, Any], line: str) -> bool:
    for pattern, key in ((_TEMPERATURE, "current"), (_TRIP, "drive_trip")):
        match = pattern.fullmatch(line)
        if match is not None:
            doc.setdefault("temperature", {})[key] = int(match.group("c"))
            return True
    match = _ENV_TEMPERATURE.fullmatch(line)
    if match is None:
        return False
    reports = doc.setdefault("scsi_environmental_reports", {})
    number = 1 + sum(1 for key in reports if key.startswith("temperature_"))
    reports[f"temperature_{number}"] = {"current": int(match.group("c"))}
    return True


def _endurance(doc: dict[str, Any], line: str) -> bool:
    match = _ENDURANCE.fullmatch(line)
    if match is None:
        return False
    used = int(match.group("pct"))
    doc["scsi_percentage_used_endurance_indicator"] = used
    doc.setdefault("endurance_used", {})["current_percent"] = used
    return True


def _cycles(doc: dict[str, Any], line: str) -> bool:
    match = _CYCLES.fullmatch(line)
    if match is not None:
        counter = doc.setdefault("scsi_start_stop_cycle_counter", {})
        counter[_CYCLE_KEYS[match.group("label")]] = int(match.group("count"))
        return True
    made = _MANUFACTURED.fullmatch(line)
    if made is None:
        return False
    counter = doc.setdefault("scsi_start_stop_cycle_counter", {})
    counter["year_of_manufacture"] = made.group("year")
    counter["week_of_manufacture"] = made.group("week")
    return True


def _defects(doc: dict[str, Any], line: str) -> bool:
    match = _DEFECTS.fullmatch(line)
    if match is None:
        return False
    doc["scsi_grown_defect_list"] = int(match.group("count"))
    return True


def _power_on(doc: dict[str, Any], line: str) -> bool:
    exact = _POWER_ON.fullmatch(line)
    if exact is not None:
        doc["power_on_time"] = {"hours": int(exact.group("h")), "minutes": int(exact.group("m"))}
        return True
    factory = _FACTORY_HOURS.fullmatch(line)
    if factory is None:
        return False
    if "minutes" not in doc.get("power_on_time", {}):  # the background scan page is exact
        doc["power_on_time"] = {"hours": int(factory.group("h"))}
    return True


_READERS: tuple[Callable[[dict[str, Any], str], bool], ...] = (
    _health,
    _temperatures,
    _endurance,
    _cycles,
    _defects,
    _power_on,
)


def is_error_counter_row(line: str) -> bool:
    return _ERROR_ROW_START.match(line) is not None


def read_error_counter_row(doc: dict[str, Any], line: str, where: str) -> None:
    """One ``read:``/``write:``/``verify:`` row of the error counter log; ParseError when the
    row does not have smartctl's seven columns."""
    match = _ERROR_ROW.fullmatch(line)
    if match is None:
        raise ParseError(f"{where}: not an error counter log row: {line!r}")
    log = doc.setdefault("scsi_error_counter_log", {})
    log[match.group("name")] = {
        "errors_corrected_by_eccfast": int(match.group("fast")),
        "errors_corrected_by_eccdelayed": int(match.group("delayed")),
        "errors_corrected_by_rereads_rewrites": int(match.group("rewrites")),
        "total_errors_corrected": int(match.group("corrected")),
        "correction_algorithm_invocations": int(match.group("invocations")),
        "gigabytes_processed": match.group("gb").replace(",", "."),
        "total_uncorrected_errors": int(match.group("uncorrected")),
    }
