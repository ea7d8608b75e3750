"""smartd's attribute log (``smartd -A PREFIX``, ``MODEL-SERIAL.ata.csv`` and the like).

smartd appends one line per check (smartmontools ``src/smartd.cpp``, ``write_dev_attrlog`` and
``write_{ata,scsi,nvme}_attrlog``): the local time as ``YYYY-MM-DD HH:MM:SS;`` (no zone), then
TAB-separated fields, each ending in ``;``:

* ATA: ``ID;NORMALIZED;RAW;`` per attribute (the raw value as the 48-bit integer, no name);
* SCSI: ``read-gb-processed;12.345;`` and the other error counter log fields, ``temperature;N;``;
* NVMe: ``data-units-written;N;`` and the other health log fields, named as in ``smartctl -j``
  with ``-`` for ``_`` (``temperature`` already in °C).

Each line becomes a document shaped like ``smartctl -j`` output. The file holds no model (it is
in the file's name), so vendor-map entries need ``--model``; attribute names are not logged, so
only the vendor map and the generic entries (power-on hours, temperature, ...) read ATA values.
The time has no zone: it is taken as UTC and marked as assumed.
"""

import re
from typing import Any

from ssdlab.errors import ParseError
from ssdlab.parse.number_bounds import refuse_long_digit_runs
from ssdlab.parse.smartctl_log import LogSnapshot
from ssdlab.parse.smartctl_text import MODEL_OVERRIDE_KEY, SOURCE_LABEL_KEY
from ssdlab.parse.timestamps import parse_timestamp

_LINE = re.compile(r"(?P<time>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2});(?P<fields>.*)")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_NVME_KEYS = frozenset(
    (
        "critical_warning",
        "temperature",
        "available_spare",
        "available_spare_threshold",
        "percentage_used",
        "data_units_read",
        "data_units_written",
        "host_reads",
        "host_writes",
        "controller_busy_time",
        "power_cycles",
        "power_on_hours",
        "unsafe_shutdowns",
        "media_errors",
        "num_err_log_entries",
    )
)
_SCSI_FIELDS = {
    "corr-by-ecc-fast": "errors_corrected_by_eccfast",
    "corr-by-ecc-delayed": "errors_corrected_by_eccdelayed",
    "corr-by-retry": "errors_corrected_by_rereads_rewrites",
    "total-err-corrected": "total_errors_corrected",
    "corr-algorithm-invocations": "correction_algorithm_invocations",
    "gb-processed": "gigabytes_processed",
    "total-unc-errors": "total_uncorrected_errors",
}
LABEL = "smartd attribute log"


def looks_like_smartd_attrlog(text: str) -> bool:
    first = next((line.strip() for line in text.split("\n") if line.strip()), "")
    return _LINE.fullmatch(first) is not None


def read_smartd_attrlog(text: str, *, model: str | None = None) -> list[LogSnapshot]:
    """One snapshot per line; ParseError naming the line when one is not smartd's layout."""
    refuse_long_digit_runs(text, LABEL)
    snapshots: list[LogSnapshot] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        match = _LINE.fullmatch(line)
        if match is None:
            raise ParseError(
                f"line {number}: not a smartd attribute log line (YYYY-MM-DD HH:MM:SS; then "
                f"fields): {line[:60]!r}"
            )
        parts = [p.strip() for p in match.group("fields").split(";")]
        if parts and parts[-1] == "":
            parts.pop()
        doc = _doc(parts, number)
        if model is not None:
            doc["model_name"] = model
            doc[MODEL_OVERRIDE_KEY] = True
        stamp = parse_timestamp(match.group("time"))
        taken, assumed = (None, False) if stamp is None else stamp
        snapshots.append(LogSnapshot(taken, doc, number, assumed, "date line"))
    if not snapshots:
        raise ParseError("no smartd attribute log lines found")
    return snapshots


def _doc(parts: list[str], number: int) -> dict[str, Any]:
    base: dict[str, Any] = {SOURCE_LABEL_KEY: LABEL}
    if parts and parts[0].isdigit():
        return base | _ata(parts, number)
    pairs = _pairs(parts, number)
    if any(
        name != "temperature" and "_" not in name and name.replace("-", "_") in _NVME_KEYS
        for name in pairs
    ):
        log = {name.replace("-", "_"): _int(value, number) for name, value in pairs.items()}
        unknown = sorted(set(log) - _NVME_KEYS)
        if unknown:
            raise ParseError(f"line {number}: unknown NVMe fields {', '.join(unknown)}")
        return base | {"device": {"protocol": "NVMe"}, "nvme_smart_health_information_log": log}
    return base | _scsi(pairs, number)


def _ata(parts: list[str], number: int) -> dict[str, Any]:
    if len(parts) % 3:
        raise ParseError(f"line {number}: ATA fields come in ID;NORMALIZED;RAW; triples")
    table = []
    for index in range(0, len(parts), 3):
        ident, norm, raw = (_int(p, number) for p in parts[index : index + 3])
        if not 1 <= ident <= 255 or not 0 <= norm <= 255 or raw < 0:
            raise ParseError(f"line {number}: attribute {ident};{norm};{raw} is out of range")
        table.append(
            {"id": ident, "name": "", "value": norm, "raw": {"value": raw, "string": str(raw)}}
        )
    return {"device": {"protocol": "ATA"}, "ata_smart_attributes": {"table": table}}


def _pairs(parts: list[str], number: int) -> dict[str, str]:
    if len(parts) % 2:
        raise ParseError(f"line {number}: SCSI and NVMe fields come in NAME;VALUE; pairs")
    return {parts[i]: parts[i + 1] for i in range(0, len(parts), 2)}


def _scsi(pairs: dict[str, str], number: int) -> dict[str, Any]:
    doc: dict[str, Any] = {"device": {"protocol": "SCSI"}}
    for name, value in pairs.items():
        if name == "temperature":
            doc["temperature"] = {"current": _int(value, number)}
            continue
        if name == "non-medium-errors":
            doc["scsi_nonmedium_error_count"] = _int(value, number)
            continue
        page, _, what = name.partition("-")
        key = _SCSI_FIELDS.get(what)
        if page not in ("read", "write", "verify") or key is None:
            raise ParseError(f"line {number}: unknown field {name!r}")
        if _NUMBER.fullmatch(value) is None:
            raise ParseError(f"line {number}: {name} = {value!r} is not a number")
        counters = doc.setdefault("scsi_error_counter_log", {}).setdefault(page, {})
        counters[key] = value if key == "gigabytes_processed" else _int(value, number)
    return doc


def _int(text: str, number: int) -> int:
    if re.fullmatch(r"-?\d{1,20}", text) is None:
        raise ParseError(f"line {number}: {text!r} is not a whole number")
    return int(text)
