"""nvme-cli JSON (and the NVMe health log inside smartctl's JSON) -> HealthSample values.

``nvme smart-log DEV -o json`` differs from smartctl: temperatures in Kelvin, ``avail_spare`` /
``percent_used`` names, and counters that are numbers (2.x), strings (2.x built against
json-c < 0.14) or floats (1.x) (smart.md §3.4). Data units are 1000 x 512 bytes = 512,000 B.

NAND-write counters are not in the standard log; the parsers below read the logs that have
them (smart.md §3.2-3.3): OCP C0 "Physical Media Units Written" (bytes), Intel/Solidigm
smart-log-add ``nand_bytes_written`` (32 MiB counts), the NVMe Endurance Group log
``media_units_written`` (10^9 B), and the text of Samsung/Seagate/Toshiba-Kioxia/LiteOn/WDC/
Micron/Intel vendor logs. Each returns a HealthValue for ``nand_written_bytes``; put it into a
sample with ``dataclasses.replace`` or ``merge_samples``.
"""

import dataclasses
import json
import math
import re
from collections.abc import Mapping
from typing import Any, TypeVar

from ssdlab.errors import ParseError
from ssdlab.model.health import (
    HEALTH_METRICS,
    UNKNOWN,
    DriveIdentity,
    HealthSample,
    HealthValue,
    Provenance,
)
from ssdlab.model.units import GB, GiB, KiB, MiB, TiB
from ssdlab.parse.json_values import squashed_key, to_count
from ssdlab.parse.number_bounds import refuse_huge_numbers
from ssdlab.parse.nvme_hexdump import read_hex_dump
from ssdlab.parse.ocp_smart import decode_ocp_smart_page, read_ocp_smart_json
from ssdlab.parse.smart_checks import check_nand_vs_host

_T = TypeVar("_T")

DATA_UNIT_BYTES = 512_000
"""One NVMe data unit: 1000 x 512 bytes, whatever the LBA size."""

INTEL_NAND_UNIT_BYTES = 32 * MiB
ENDURANCE_UNIT_BYTES = GB
KELVIN_OFFSET = 273  # as smartctl and nvme-cli convert
MIN_PLAUSIBLE_KELVIN = 173  # -100 °C

CRITICAL_WARNING_BITS: tuple[tuple[int, str], ...] = (
    (0x01, "available spare is below its threshold"),
    (0x02, "temperature is outside its threshold"),
    (0x04, "NVM subsystem reliability is degraded (media or internal errors)"),
    (0x08, "media is read-only"),
    (0x10, "the volatile memory backup device has failed"),
    (0x20, "the persistent memory region is read-only or unreliable"),
)


@dataclasses.dataclass(frozen=True, slots=True)
class _LogField:
    metric: str
    keys: tuple[str, ...]  # smartctl name first, then nvme-cli names
    unit: str
    unit_bytes: int | None = None
    resolution: float | None = 1.0


_LOG_FIELDS: tuple[_LogField, ...] = (
    _LogField("host_written_bytes", ("data_units_written",), "512,000-byte data unit", 512_000),
    _LogField("host_read_bytes", ("data_units_read",), "512,000-byte data unit", 512_000),
    _LogField("wear_used_pct", ("percentage_used", "percent_used"), "%"),
    _LogField("available_spare_pct", ("available_spare", "avail_spare"), "%"),
    _LogField("power_on_hours", ("power_on_hours",), "hour"),
    _LogField("power_cycles", ("power_cycles",), "count"),
    _LogField("unsafe_shutdowns", ("unsafe_shutdowns",), "count"),
    _LogField("media_errors", ("media_errors",), "count"),
    _LogField("critical_warning", ("critical_warning",), "bit field", resolution=None),
    _LogField("available_spare_threshold_pct", ("available_spare_threshold", "spare_thresh"), "%"),
    _LogField("error_log_entries", ("num_err_log_entries",), "count"),
)


def describe_critical_warning(bits: int) -> tuple[str, ...]:
    """The meaning of each set bit of the NVMe critical warning byte, as sentences."""
    found = [f"Critical warning: {text}." for mask, text in CRITICAL_WARNING_BITS if bits & mask]
    unknown = bits & ~0x3F
    if unknown:
        found.append(f"Critical warning: unknown bits 0x{unknown:02x} are set.")
    return tuple(found)


def health_log_values(
    log: Mapping[str, Any], *, source: str, kelvin: bool
) -> tuple[dict[str, HealthValue], tuple[str, ...]]:
    """Values from an NVMe SMART / Health log object (smartctl or nvme-cli key names).

    `source` prefixes provenance ("nvme_smart_health_information_log", "nvme smart-log");
    `kelvin` says temperatures are in Kelvin (nvme-cli) rather than °C (smartctl). Returns the
    values by metric name and findings about values that could not be used.
    """
    values: dict[str, HealthValue] = {}
    findings: list[str] = []
    for spec in _LOG_FIELDS:
        for key in spec.keys:
            raw = _pick_raw(log, key)
            if raw is None:
                continue
            count = to_count(raw)
            if count is None:
                findings.append(f"{source}.{key} = {raw!r} is not a number; ignored.")
                break
            if spec.unit_bytes is not None:
                value, resolution = float(count * spec.unit_bytes), float(spec.unit_bytes)
            else:
                value, resolution = float(count), spec.resolution  # type: ignore[assignment]
            values[spec.metric] = HealthValue(
                value, Provenance(f"{source}.{key}", _raw_repr(raw), spec.unit, resolution)
            )
            break
    temperature, finding = _temperature(log, source, kelvin)
    if temperature is not None:
        values["temperature_c"] = temperature
    if finding:
        findings.append(finding)
    return values, tuple(findings)


def _pick_raw(log: Mapping[str, Any], key: str) -> Any:
    """smartctl adds KEY_s (decimal string) beside numbers above 2^53: prefer it."""
    exact = log.get(f"{key}_s")
    if isinstance(exact, str):
        return exact
    raw = log.get(key)
    if isinstance(raw, Mapping):  # nvme-cli verbose critical_warning {"value": N, ...}
        return raw.get("value")
    return raw


def _temperature(
    log: Mapping[str, Any], source: str, kelvin: bool
) -> tuple[HealthValue | None, str | None]:
    raw = log.get("temperature")
    if raw is None:
        return None, None
    if not kelvin and isinstance(raw, int) and not isinstance(raw, bool):
        return HealthValue(float(raw), Provenance(f"{source}.temperature", raw, "°C")), None
    count = to_count(raw)
    if count is None:
        return None, f"{source}.temperature = {raw!r} is not a number; ignored."
    if not kelvin:
        return HealthValue(float(count), Provenance(f"{source}.temperature", raw, "°C")), None
    if count == 0:
        return None, None  # 0 K: not reported
    if count < MIN_PLAUSIBLE_KELVIN:
        return None, (
            f"{source}.temperature = {count} is not a plausible Kelvin value "
            "(nvme-cli reports Kelvin); ignored."
        )
    return (
        HealthValue(
            float(count - KELVIN_OFFSET),
            Provenance(f"{source}.temperature", raw, "K", note="converted: °C = K - 273"),
        ),
        None,
    )


def _raw_repr(raw: object) -> str | int | float | None:
    if isinstance(raw, str | int | float):
        return raw
    return None if raw is None else str(raw)


def parse_nvme_smart_log(
    text: str, *, identity: DriveIdentity | None = None, taken_at_s: float | None = None
) -> HealthSample:
    """``nvme smart-log DEV -o json`` stdout -> HealthSample (ParseError on bad JSON)."""
    return normalise_nvme_smart_log(
        _load_object(text, "nvme smart-log"), identity=identity, taken_at_s=taken_at_s
    )


def normalise_nvme_smart_log(
    doc: Mapping[str, Any],
    *,
    identity: DriveIdentity | None = None,
    taken_at_s: float | None = None,
) -> HealthSample:
    """A decoded ``nvme smart-log -o json`` object -> HealthSample.

    nvme-cli prints no identity and no time: pass them (from ``nvme list`` / smartctl and the
    caller's clock). Temperatures are converted from Kelvin; counters may be numbers, strings or
    floats.
    """
    if not isinstance(doc, Mapping):
        raise ParseError("nvme smart-log JSON: the document is not an object")
    refuse_huge_numbers(doc, "nvme smart-log JSON")
    known = {k for spec in _LOG_FIELDS for k in spec.keys} | {"temperature"}
    if not known & set(doc):
        raise ParseError(
            "nvme smart-log JSON: none of the SMART / Health log keys "
            "(data_units_written, percent_used, critical_warning, ...) is present"
        )
    values, findings = health_log_values(doc, source="nvme smart-log", kelvin=True)
    sample = HealthSample(
        taken_at_s=taken_at_s,
        identity=identity or DriveIdentity("NVMe", None, None, None, None),
        flags=findings,
        sources=("nvme-cli smart-log",),
    )
    metrics: dict[str, Any] = dict(values)  # metric name -> HealthValue
    return dataclasses.replace(sample, **metrics)


# --- NAND-write logs ---------------------------------------------------------------------


def parse_ocp_smart_add_log(doc: Mapping[str, Any]) -> HealthValue:
    """``nvme ocp smart-add-log DEV -o json`` (C0h, output format version 1 or 2) -> NAND bytes.

    Physical Media Units Written (SMART-1) is a 128-bit byte count; the page is read whole by
    ``parse.ocp_smart.read_ocp_smart_json``, which refuses a foreign GUID or unknown version.
    Raises ParseError when the page has no such field either.
    """
    written = read_ocp_smart_json(doc).physical_media_written_bytes
    if written is None:
        raise ParseError("OCP C0 log: no 'Physical media units written' field")
    key = next(k for k in doc if squashed_key(k) == "physicalmediaunitswritten")
    return _media_written(written, f"nvme ocp smart-add-log '{key}'")


def parse_ocp_c0_hex_dump(text: str) -> HealthValue:
    """``nvme get-log DEV --log-id=0xc0 --log-len=512`` (the page as a hex dump; nvme-cli 1.x
    has no OCP plugin but prints this) -> NAND bytes, decoded as the raw C0h page: a drive whose
    C0h is some vendor's own log is refused by its GUID."""
    log = decode_ocp_smart_page(read_hex_dump(text))
    written = log.physical_media_written_bytes
    if written is None:  # every version has SMART-1; kept for the type
        raise ParseError("OCP C0 log: no Physical Media Units Written")
    return _media_written(written, "nvme get-log --log-id=0xc0 bytes 15:0 (SMART-1)")


def _media_written(written: int, source: str) -> HealthValue:
    return HealthValue(float(written), Provenance(source, written, "byte", 1.0))


def parse_intel_smart_log_add(doc: Mapping[str, Any]) -> HealthValue:
    """``nvme intel|solidigm smart-log-add DEV -o json`` (log CAh) -> NAND bytes.

    ``"Device stats" -> "nand_bytes_written" -> {"normalized", "raw"}``, raw in 32 MiB units
    (older nvme-cli text calls them "sectors"; CacheLib and the P3600 erase-count check agree on
    32 MiB).
    """
    stats = doc.get("Device stats")
    if not isinstance(stats, Mapping):
        raise ParseError("Intel/Solidigm smart-log-add JSON: no 'Device stats' object")
    entry = stats.get("nand_bytes_written")
    if not isinstance(entry, Mapping) or "raw" not in entry:
        raise ParseError("Intel/Solidigm smart-log-add JSON: no nand_bytes_written.raw")
    count = to_count(entry["raw"])
    if count is None:
        raise ParseError(f"Intel/Solidigm smart-log-add: nand_bytes_written.raw = {entry['raw']!r}")
    return HealthValue(
        float(count * INTEL_NAND_UNIT_BYTES),
        Provenance(
            "nvme smart-log-add (CAh) 'Device stats'.nand_bytes_written.raw",
            _raw_repr(entry["raw"]),
            "32 MiB",
            float(INTEL_NAND_UNIT_BYTES),
        ),
    )


def parse_endurance_log(doc: Mapping[str, Any]) -> HealthValue:
    """``nvme endurance-log DEV --group-id=N -o json`` (09h) -> NAND bytes (media units, 10^9 B).

    The 1 GB resolution makes it useful for long runs only.
    """
    raw = _pick_raw(doc, "media_units_written")
    if raw is None:
        raise ParseError("NVMe endurance log JSON: no media_units_written")
    count = to_count(raw)
    if count is None:
        raise ParseError(f"NVMe endurance log: media_units_written = {raw!r} is not a number")
    return HealthValue(
        float(count * ENDURANCE_UNIT_BYTES),
        Provenance(
            "nvme endurance-log media_units_written",
            _raw_repr(raw),
            "10^9 bytes",
            float(ENDURANCE_UNIT_BYTES),
        ),
    )


_TEXT_UNITS: dict[str, int] = {"B": 1, "KiB": KiB, "MiB": MiB, "GiB": GiB, "TiB": TiB}


def parse_vendor_nand_text(text: str, vendor: str) -> HealthValue:
    """NAND bytes from the text of a vendor log (nvme-cli plugins; formats as in CacheLib).

    vendor: "samsung" (``vs-smart-add-log`` PhysicallyWrittenBytes, bytes), "seagate"
    (Physical (NAND) bytes written, hex, 512,000-byte units), "toshiba"/"kioxia" (Total data
    written to NAND, value with KiB..TiB), "liteon" (Physical(NAND) bytes written, bytes),
    "wdc" (Physical media units written, hi lo, bytes), "micron" (Physical Media Units
    Written, hex bytes), "intel"/"solidigm" (nand_bytes_written ... sectors: N, 32 MiB units).
    """
    vendor = vendor.lower()
    parser = _TEXT_PARSERS.get(vendor)
    if parser is None:
        raise ParseError(
            f"no NAND-writes text parser for vendor {vendor!r}; "
            f"known: {', '.join(sorted(_TEXT_PARSERS))}"
        )
    result = parser(text)
    if result is None:
        raise ParseError(f"{vendor} vendor log: no NAND-writes line found")
    return result


def _samsung_text(text: str) -> HealthValue | None:
    match = re.search(r"PhysicallyWrittenBytes\s*:\s*([\d,]+)", text)
    if match is None:
        return None
    count = _text_count(match.group(1), "samsung vendor log: PhysicallyWrittenBytes")
    return HealthValue(
        float(count),
        Provenance("nvme samsung vs-smart-add-log PhysicallyWrittenBytes", count, "byte", 1.0),
    )


def _liteon_text(text: str) -> HealthValue | None:
    match = re.search(r"Physical\s*\(NAND\)\s*bytes written\s*:\s*([\d,]+)", text, re.IGNORECASE)
    if match is None:
        return None
    count = _text_count(match.group(1), "vendor log: Physical(NAND) bytes written")
    return HealthValue(
        float(count),
        Provenance("nvme vs-smart-add-log Physical(NAND) bytes written", count, "byte", 1.0),
    )


def _seagate_text(text: str) -> HealthValue | None:
    match = re.search(r"Physical \(NAND\) bytes written\s+\d+\s+(0x[0-9a-fA-F]+)", text)
    if match is None:
        return None
    count = _text_count(match.group(1), "seagate vendor log: Physical (NAND) bytes written")
    return HealthValue(
        float(count * DATA_UNIT_BYTES),
        Provenance(
            "nvme seagate vs-smart-add-log Physical (NAND) bytes written",
            match.group(1),
            "512,000 bytes (500 KiB)",
            float(DATA_UNIT_BYTES),
            note="unit as used by CacheLib; the field name says bytes",
        ),
    )


def _toshiba_text(text: str) -> HealthValue | None:
    match = re.search(
        r"Total data written to NAND\s*:\s*([\d.]+)\s*(B|KiB|MiB|GiB|TiB)\b", text, re.IGNORECASE
    )
    if match is None:
        return None
    number, unit = match.group(1), match.group(2)
    unit_key = next(u for u in _TEXT_UNITS if u.lower() == unit.lower())
    decimals = len(number.partition(".")[2])
    factor = _TEXT_UNITS[unit_key]
    try:
        value = float(number) * factor
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ParseError(
            f"toshiba vendor log: Total data written to NAND {number!r} is not a number"
        )
    return HealthValue(
        value,
        Provenance(
            "nvme toshiba vs-smart-add-log Total data written to NAND",
            f"{number} {unit_key}",
            unit_key,
            factor / 10**decimals,
        ),
    )


def _wdc_text(text: str) -> HealthValue | None:
    match = re.search(r"Physical media units written\s*-?\s*(\d+)\s+(\d+)", text, re.IGNORECASE)
    if match is None:
        return None
    what = "wdc vendor log: Physical media units written"
    count = _text_count(match.group(1), what) * 2**64 + _text_count(match.group(2), what)
    return HealthValue(
        float(count),
        Provenance(
            "nvme wdc vs-smart-add-log Physical media units written",
            f"{match.group(1)} {match.group(2)}",
            "byte",
            1.0,
            note="bytes on data-centre models (CacheLib); client C0 may use 512,000-B units",
        ),
    )


def _micron_text(text: str) -> HealthValue | None:
    match = re.search(
        r"Physical Media Units Written\s*:\s*(0x[0-9a-fA-F]+|\d+)", text, re.IGNORECASE
    )
    if match is None:
        return None
    count = to_count(match.group(1))
    if count is None:
        return None
    return HealthValue(
        float(count),
        Provenance(
            "nvme micron vs-smart-add-log Physical Media Units Written",
            match.group(1),
            "byte",
            1.0,
        ),
    )


def _intel_text(text: str) -> HealthValue | None:
    match = re.search(r"nand_bytes_written\s*:\s*\d+%\s*(?:sectors:\s*)?(\d+)", text)
    if match is None:
        return None
    count = _text_count(match.group(1), "intel vendor log: nand_bytes_written")
    return HealthValue(
        float(count * INTEL_NAND_UNIT_BYTES),
        Provenance(
            "nvme smart-log-add nand_bytes_written",
            count,
            "32 MiB",
            float(INTEL_NAND_UNIT_BYTES),
            note="printed as 'sectors:' by older nvme-cli; the unit is 32 MiB",
        ),
    )


_TEXT_PARSERS = {
    "samsung": _samsung_text,
    "seagate": _seagate_text,
    "toshiba": _toshiba_text,
    "kioxia": _toshiba_text,
    "liteon": _liteon_text,
    "wdc": _wdc_text,
    "micron": _micron_text,
    "intel": _intel_text,
    "solidigm": _intel_text,
}


def _text_count(digits: str, what: str) -> int:
    """A counter printed in a vendor log's text; ParseError when it is none (e.g. too long)."""
    count = to_count(digits)
    if count is None:
        raise ParseError(f"{what}: {digits[:40]!r} is not a counter up to 2^128")
    return count


def _load_object(text: str, what: str) -> Mapping[str, Any]:
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, ValueError, RecursionError) as error:
        raise ParseError(f"{what} output is not valid JSON ({error})") from error
    if not isinstance(doc, dict):
        raise ParseError(f"{what} JSON is not an object")
    return doc


# --- merging ------------------------------------------------------------------------------


def merge_samples(primary: HealthSample, *others: HealthSample) -> HealthSample:
    """Fill the primary sample's unknown values from the others, in order.

    Known values of the primary are kept as they are; each filled value keeps its own
    provenance. Identity fields, time, verdict and exit status are filled the same way;
    flags and sources are the union (first occurrence order). NAND vs host writes is
    re-checked when the two now come from different inputs.
    """
    values: dict[str, HealthValue] = {}
    for metric in HEALTH_METRICS:
        value: HealthValue = getattr(primary, metric)
        if value.value is None:
            for other in others:
                candidate: HealthValue = getattr(other, metric)
                if candidate.value is not None:
                    value = candidate
                    break
        values[metric] = value if value.value is not None else UNKNOWN
    identity = primary.identity
    for other in others:
        identity = _fill_identity(identity, other.identity)
    flags = _union(primary.flags, *(o.flags for o in others))
    host, nand = values["host_written_bytes"], values["nand_written_bytes"]
    if nand is not primary.nand_written_bytes or host is not primary.host_written_bytes:
        flags = _union(flags, check_nand_vs_host(host, nand))
    merged = HealthSample(
        taken_at_s=_first(primary.taken_at_s, *(o.taken_at_s for o in others)),
        identity=identity,
        verdict=_first(primary.verdict, *(o.verdict for o in others)),
        exit_status=_first(primary.exit_status, *(o.exit_status for o in others)),
        exit_findings=primary.exit_findings
        or next((o.exit_findings for o in others if o.exit_findings), ()),
        flags=flags,
        sources=_union(primary.sources, *(o.sources for o in others)),
    )
    metrics: dict[str, Any] = dict(values)  # metric name -> HealthValue
    return dataclasses.replace(merged, **metrics)


def _fill_identity(base: DriveIdentity, other: DriveIdentity) -> DriveIdentity:
    changes = {
        f.name: getattr(other, f.name)
        for f in dataclasses.fields(DriveIdentity)
        if getattr(base, f.name) is None and getattr(other, f.name) is not None
    }
    return dataclasses.replace(base, **changes) if changes else base


def _first(*items: _T | None) -> _T | None:
    return next((item for item in items if item is not None), None)


def _union(*groups: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item for group in groups for item in group))
