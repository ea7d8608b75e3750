"""smartctl ``-x -j`` (or ``-a -j``) JSON -> HealthSample: ATA, NVMe and SCSI, with provenance.

This is the one place SMART units are converted (LBAs, 32 MiB, GiB, GB, NAND pages, 512,000-B
data units -> bytes; normalized "life left" -> % used). Sources, best first per metric:

- NVMe: ``nvme_smart_health_information_log`` (the standard log); SCSI: the error counter
  log, grown defect list and percentage-used indicator.
- ATA: the vendor map (``smart_vendors.toml``, keyed on family/model regex + attribute ID) and
  the standard Device Statistics (``-x`` only), each entry with its priority; attributes whose
  drivedb name states the unit or the wear (smart_attributes, smart_names), below the vendor
  map; smartctl's own ``power_on_time`` / ``power_cycle_count`` / ``temperature``;
  ``endurance_used`` (7.5+, a guess on ATA) last.

The highest priority wins (smart_candidates) unless smart_plausible sets an implausible reading
aside for a plausible one (SCT status 0 °C, a 32-bit Device Statistics counter); each such
choice is kept in the sample's ``choices``. SCSI/SAS keys are read by smart_scsi.

Findings that make a value doubtful go to ``flags`` (plain sentences, see smart_checks); the
smartctl exit status bitmask is decoded into ``exit_findings``. Unknown is None, never 0.
"""

import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ssdlab.errors import ParseError
from ssdlab.model.health import (
    HEALTH_METRICS,
    DriveIdentity,
    HealthSample,
    HealthValue,
    Provenance,
)
from ssdlab.parse.json_values import (
    clean_text,
    decimal_number,
    mapping,
    raw_value,
    signed_number,
    to_count,
)
from ssdlab.parse.number_bounds import refuse_huge_numbers
from ssdlab.parse.nvme_json import health_log_values
from ssdlab.parse.smart_attributes import (
    Attribute,
    claimed_by_vendor_map,
    in_database,
    name_and_map_disagree,
    named_candidates,
    read_attributes,
)
from ssdlab.parse.smart_candidates import (
    PRIORITY_DERIVED,
    PRIORITY_LOG,
    PRIORITY_SMARTCTL,
    PRIORITY_SMARTCTL_GUESS,
    PRIORITY_SMARTCTL_HOST_IO,
    Candidate,
    choose,
    source_of,
)
from ssdlab.parse.smart_checks import (
    check_erase_vs_nand,
    check_nand_vs_host,
    check_writes_vs_wear,
)
from ssdlab.parse.smart_plausible import (
    prefer_plausible_temperature,
    reconcile_with_device_statistics,
    sct_note,
)
from ssdlab.parse.smart_scsi import scsi_candidates, scsi_temperature_missing
from ssdlab.parse.smart_vendors import VendorEntry, VendorMap, load_vendor_map

EXIT_STATUS_BITS: tuple[str, ...] = (
    "bit 0 (1): smartctl could not parse its command line — no data was collected.",
    "bit 1 (2): the device could not be opened, did not identify itself, or is in a low-power "
    "mode — little or no data was collected.",
    "bit 2 (4): a SMART or other command to the device failed, or a SMART data structure had a "
    "checksum error — some values may be missing.",
    "bit 3 (8): the SMART overall-health check says DISK FAILING.",
    "bit 4 (16): the health check passed, but a pre-failure attribute is at or below its "
    "threshold now.",
    "bit 5 (32): the health check passed, but an attribute was at or below its threshold at "
    "some time in the past.",
    "bit 6 (64): the device error log contains records of errors (common on healthy drives).",
    "bit 7 (128): the device self-test log contains records of errors.",
)
COLLECTION_FAILURE_MASK = 0b0000_0111
"""Bits 0-2: the command failed. Bits 3-7 report on the disk's health."""

_PAGE_SIZE_RANGE = (2048.0, 262144.0)
_PAGE_SNAP_TOLERANCE = 0.03
_HOST_WRITE_ATTRIBUTES = (241, 225, 246)
_NOT_COUNTERS = frozenset({"temperature_c", "temperature_warning_c", "critical_warning"})


@dataclass(frozen=True, slots=True)
class _Statistic:
    page: int
    offset: int
    name: str
    value: int


def decode_exit_status(status: int) -> tuple[str, ...]:
    """One plain sentence per set bit of smartctl's exit status (bits 0-7)."""
    findings = [text for bit, text in enumerate(EXIT_STATUS_BITS) if status & (1 << bit)]
    if status >> 8:
        findings.append(f"bits above 7 are set ({status}): not a smartctl exit status.")
    return tuple(findings)


def parse_smartctl_json(
    text: str,
    *,
    taken_at_s: float | None = None,
    vendor_map: VendorMap | None = None,
    model_override: str | None = None,
) -> HealthSample:
    """smartctl ``-j`` stdout -> HealthSample; ParseError when it is not a JSON object."""
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, ValueError, RecursionError) as error:
        raise ParseError(f"smartctl output is not valid JSON ({error})") from error
    if not isinstance(doc, dict):
        raise ParseError("smartctl JSON is not an object")
    return normalise_smartctl(
        doc, taken_at_s=taken_at_s, vendor_map=vendor_map, model_override=model_override
    )


def normalise_smartctl(
    doc: Mapping[str, Any],
    *,
    taken_at_s: float | None = None,
    vendor_map: VendorMap | None = None,
    model_override: str | None = None,
) -> HealthSample:
    """A decoded smartctl ``-x -j`` / ``-a -j`` document -> HealthSample.

    `taken_at_s` (Unix time) wins over the document's ``local_time.time_t``; `model_override`
    replaces the model name for identity and vendor-map matching; `vendor_map` defaults to the
    built-in map.
    """
    if not isinstance(doc, Mapping):
        raise ParseError("smartctl JSON: the document is not an object")
    if not {"smartctl", "json_format_version", "device", "model_name"} & set(doc):
        raise ParseError("smartctl JSON: no smartctl, device or model_name key; not smartctl -j")
    refuse_huge_numbers(doc, "smartctl JSON")
    identity = _identity(doc, model_override)
    vmap = vendor_map if vendor_map is not None else load_vendor_map()
    sector_bytes = _logical_block_size(doc)
    flags: list[str] = []
    candidates = list(_smartctl_candidates(doc))
    nvme_log = doc.get("nvme_smart_health_information_log")
    if isinstance(nvme_log, Mapping):
        values, findings = health_log_values(
            nvme_log, source="nvme_smart_health_information_log", kelvin=False
        )
        candidates += [Candidate(m, v, PRIORITY_LOG, "log") for m, v in values.items()]
        flags += findings
    candidates += scsi_candidates(doc)
    if scsi_temperature_missing(doc):
        flags.append(
            "Temperature: smartctl reads 0 °C with a trip point of 0 °C, the values it starts "
            "from when the drive has no temperature log page (a RAID volume, an emulated disk); "
            "the temperature is unknown."
        )

    attributes, duplicates = read_attributes(doc)
    flags += duplicates
    known_to_database = in_database(doc)
    claimed = claimed_by_vendor_map(vmap, identity, attributes)
    named, name_findings = named_candidates(attributes, sector_bytes, known_to_database, claimed)
    candidates += named
    flags += name_findings
    statistics = _statistics(doc)
    entries = vmap.for_drive(
        family=identity.model_family, model=identity.model, firmware=identity.firmware
    )
    calibrated: list[VendorEntry] = []
    for entry in entries:
        if entry.calibrate is not None:
            calibrated.append(entry)
            continue
        candidate = _apply_entry(entry, attributes, statistics, sector_bytes)
        if candidate is not None:
            candidates.append(candidate)

    chosen = choose(candidates)
    flags += name_and_map_disagree(candidates, chosen)
    devstat_findings, choices = reconcile_with_device_statistics(candidates, chosen)
    flags += devstat_findings
    temperature_findings, temperature_choices = prefer_plausible_temperature(candidates, chosen)
    flags += temperature_findings
    choices += temperature_choices
    for entry in calibrated:
        best = chosen.get(entry.metric)
        if best is not None and best.priority >= entry.priority:
            continue
        candidate, finding = _apply_page_calibrated(entry, attributes, chosen)
        if candidate is not None:
            chosen[entry.metric] = candidate
        if finding:
            flags.append(finding)
    _derive_wear_from_erase_counts(chosen)

    values = {metric: chosen[metric].value for metric in HEALTH_METRICS if metric in chosen}
    flags += _consistency_findings(values, identity, attributes, vmap, known_to_database)

    exit_status = _exit_status(doc)
    sample = HealthSample(
        taken_at_s=taken_at_s if taken_at_s is not None else _time_t(doc),
        identity=identity,
        verdict=_verdict(doc),
        exit_status=exit_status,
        exit_findings=() if exit_status is None else decode_exit_status(exit_status),
        flags=tuple(dict.fromkeys(flags)),
        sources=(_source_label(doc),),
        choices=tuple(choices),
    )
    metrics: dict[str, Any] = dict(values)  # metric name -> HealthValue
    return dataclasses.replace(sample, **metrics)


# --- identity, time, status ---------------------------------------------------------------


def _identity(doc: Mapping[str, Any], model_override: str | None) -> DriveIdentity:
    device = mapping(doc.get("device"))
    protocol = clean_text(device.get("protocol"))
    if protocol is None:
        if "nvme_smart_health_information_log" in doc:
            protocol = "NVMe"
        elif "ata_smart_attributes" in doc:
            protocol = "ATA"
    model = (
        model_override
        or clean_text(doc.get("model_name"))
        or clean_text(doc.get("scsi_model_name"))
    )
    if model is None:
        vendor = clean_text(doc.get("scsi_vendor")) or clean_text(doc.get("vendor"))
        product = clean_text(doc.get("scsi_product")) or clean_text(doc.get("product"))
        model = " ".join(p for p in (vendor, product) if p) or None
    capacity = to_count(mapping(doc.get("user_capacity")).get("bytes"))
    if capacity is None:
        capacity = to_count(doc.get("nvme_total_capacity"))
    return DriveIdentity(
        protocol=protocol,
        model=model,
        serial=clean_text(doc.get("serial_number")),
        firmware=clean_text(doc.get("firmware_version"))
        or clean_text(doc.get("scsi_revision"))
        or clean_text(doc.get("revision")),
        capacity_bytes=capacity or None,
        model_family=clean_text(doc.get("model_family")),
        device_path=clean_text(device.get("name")),
    )


def _time_t(doc: Mapping[str, Any]) -> float | None:
    value = mapping(doc.get("local_time")).get("time_t")
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _exit_status(doc: Mapping[str, Any]) -> int | None:
    value = mapping(doc.get("smartctl")).get("exit_status")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _verdict(doc: Mapping[str, Any]) -> str | None:
    passed = mapping(doc.get("smart_status")).get("passed")
    if isinstance(passed, bool):
        return "PASSED" if passed else "FAILED"
    return None


def _source_label(doc: Mapping[str, Any]) -> str:
    other = clean_text(doc.get("ssdlab_source_label"))  # rebuilt from a smartd or CSV log
    if other is not None:
        return other
    smartctl = mapping(doc.get("smartctl"))
    version = smartctl.get("version")
    label = "smartctl"
    if isinstance(version, list) and version and all(isinstance(v, int) for v in version):
        label += " " + ".".join(str(v) for v in version)
    if doc.get("ssdlab_text_source") is True:  # rebuilt from text by parse.smartctl_text
        label += " text output"
    drivedb = clean_text(mapping(smartctl.get("drive_database_version")).get("string"))
    if drivedb:
        label += f" (drivedb {drivedb})"
    return label


def _logical_block_size(doc: Mapping[str, Any]) -> int | None:
    size = to_count(doc.get("logical_block_size"))
    return size if size else None


# --- candidates from smartctl's own keys and the logs -------------------------------------


def _smartctl_candidates(doc: Mapping[str, Any]) -> list[Candidate]:
    found: list[Candidate] = []

    def add(
        metric: str,
        raw: object,
        source: str,
        unit: str,
        priority: int,
        note: str | None = None,
        value: float | None = None,
    ) -> None:
        number = (
            signed_number(raw)
            if metric in ("temperature_c", "temperature_warning_c")
            else decimal_number(raw)
        )
        if number is None:
            return
        if value is not None:
            number = value
        resolution = None if metric in _NOT_COUNTERS else 1.0
        provenance = Provenance(source, raw_value(raw), unit, resolution, note)
        found.append(Candidate(metric, HealthValue(number, provenance), priority, "smartctl"))

    power_on = mapping(doc.get("power_on_time"))
    hours = to_count(power_on.get("hours"))
    if hours is not None:
        minutes = to_count(power_on.get("minutes")) or 0
        add(
            "power_on_hours",
            power_on.get("hours"),
            "smartctl power_on_time.hours",
            "hour",
            PRIORITY_SMARTCTL,
            value=hours + minutes / 60,
        )
    add(
        "power_cycles",
        doc.get("power_cycle_count"),
        "smartctl power_cycle_count",
        "count",
        PRIORITY_SMARTCTL,
    )
    current = mapping(doc.get("temperature")).get("current")
    from_sct = sct_note(doc, current)
    if not scsi_temperature_missing(doc):
        add(
            "temperature_c",
            current,
            "smartctl temperature.current" + (f" ({from_sct})" if from_sct else ""),
            "°C",
            PRIORITY_SMARTCTL,
        )
    add(
        "temperature_warning_c",
        mapping(doc.get("temperature")).get("op_limit_max"),
        "smartctl temperature.op_limit_max",
        "°C",
        PRIORITY_SMARTCTL,
    )
    guess = "smartctl 7.5+; on ATA guessed from SSD_Life_Left/Wear_Leveling normalized values"
    add(
        "wear_used_pct",
        mapping(doc.get("endurance_used")).get("current_percent"),
        "smartctl endurance_used.current_percent",
        "%",
        PRIORITY_SMARTCTL_GUESS,
        note=guess,
    )
    add(
        "available_spare_pct",
        mapping(doc.get("spare_available")).get("current_percent"),
        "smartctl spare_available.current_percent",
        "%",
        PRIORITY_SMARTCTL_GUESS,
    )
    for metric, key in (("host_written_bytes", "host_writes"), ("host_read_bytes", "host_reads")):
        block = mapping(doc.get(key))
        units, per_unit = to_count(block.get("units")), to_count(block.get("bytes_per_unit"))
        if units is not None and per_unit:
            found.append(
                Candidate(
                    metric,
                    HealthValue(
                        float(units * per_unit),
                        Provenance(
                            f"smartctl {key}.units", units, f"{per_unit}-byte unit", per_unit
                        ),
                    ),
                    PRIORITY_SMARTCTL_HOST_IO,
                    "smartctl",
                )
            )
    return found


"""smartctl 7.4+ key, and smartctl 7.3's (the printed label, before json::str2key)."""


def _consistency_findings(
    values: Mapping[str, HealthValue],
    identity: DriveIdentity,
    attributes: Mapping[int, Attribute],
    vmap: VendorMap,
    in_database: bool,
) -> list[str]:
    unknown = HealthValue(None)
    host = values.get("host_written_bytes", unknown)
    nand = values.get("nand_written_bytes", unknown)
    findings = list(check_nand_vs_host(host, nand))
    findings += check_erase_vs_nand(
        values.get("erase_count_avg", unknown), nand, identity.capacity_bytes, host=host
    )
    findings += _unmapped_host_writes(host, attributes, vmap, identity, in_database)
    findings += check_writes_vs_wear(
        host, values.get("wear_used_pct", unknown), identity.capacity_bytes
    )
    return findings


def _statistics(doc: Mapping[str, Any]) -> dict[tuple[int, int], _Statistic]:
    pages = mapping(doc.get("ata_device_statistics")).get("pages")
    found: dict[tuple[int, int], _Statistic] = {}
    if not isinstance(pages, list):
        return found
    for page in pages:
        if not isinstance(page, Mapping):
            continue
        number = page.get("number")
        table = page.get("table")
        if not isinstance(number, int) or not isinstance(table, list):
            continue
        for row in table:
            if not isinstance(row, Mapping):
                continue
            offset, value = row.get("offset"), row.get("value")
            valid = mapping(row.get("flags")).get("valid", True)
            if (
                not isinstance(offset, int)
                or not isinstance(value, int)
                or isinstance(value, bool)
                or valid is not True
            ):
                continue
            found[(number, offset)] = _Statistic(
                number, offset, clean_text(row.get("name")) or "", value
            )
    return found


def _apply_entry(
    entry: VendorEntry,
    attributes: Mapping[int, Attribute],
    statistics: Mapping[tuple[int, int], _Statistic],
    sector_bytes: int | None,
) -> Candidate | None:
    if entry.kind == "devstat":
        stat = statistics.get((entry.page or 0, entry.offset or 0))
        if stat is None:
            return None
        source = f"ata_device_statistics page {stat.page} 0x{stat.offset:03x} {stat.name}".strip()
        return _scaled(entry, stat.value, stat.value, source, sector_bytes, "devstat")
    first = attributes.get(entry.attribute_id or 0)
    if first is None or not entry.accepts_name(first.name):
        return None
    parts = [first, *(attributes.get(i) for i in entry.plus_ids)]
    counts = [None if p is None else _field(p, entry) for p in parts]
    if any(c is None for c in counts):
        return None
    present = [p for p in parts if p is not None]
    total = sum(c for c in counts if c is not None)
    source = " + ".join(f"ata_smart_attributes[{p.id}] {p.name}".strip() for p in present)
    raw: int | str = (
        total if len(present) == 1 else " + ".join(str(c) for c in counts if c is not None)
    )
    return _scaled(entry, total, raw, source, sector_bytes, "attribute")


def _field(attribute: Attribute, entry: VendorEntry) -> int | None:
    if entry.field == "norm":
        return attribute.norm
    if entry.field == "worst":
        return attribute.worst
    if attribute.raw is None:
        return None
    value = attribute.raw >> entry.raw_shift
    if entry.raw_bits is not None:
        value &= (1 << entry.raw_bits) - 1
    return value


def _scaled(
    entry: VendorEntry,
    count: int,
    raw: int | str,
    source: str,
    sector_bytes: int | None,
    kind: str,
) -> Candidate | None:
    notes = [f"vendor map: {entry.group} ({entry.origin})"]
    if entry.note:
        notes.append(entry.note)
    if entry.field == "raw" and (entry.raw_shift or entry.raw_bits):
        end = entry.raw_shift + (entry.raw_bits or 48) - 1
        notes.append(f"raw bits {entry.raw_shift}-{end}")
    elif entry.field != "raw":
        notes.append(f"{entry.field}alized value" if entry.field == "norm" else "worst value")
    unit = entry.unit
    if entry.is_bytes:
        if entry.per_logical_sector:
            per_count = float(sector_bytes or 512)
            unit = f"{per_count:g}-byte logical sector"
            if sector_bytes is None:
                notes.append("logical_block_size not reported; 512 assumed")
        else:
            per_count = entry.unit_bytes or 1.0
        value = count * per_count
        resolution: float | None = per_count
    else:
        value = count * entry.scale
        resolution = None if entry.metric in _NOT_COUNTERS else entry.scale
    if entry.min_value is not None and value < entry.min_value:
        return None
    if entry.max_value is not None and value > entry.max_value:
        return None
    if entry.direction == "remaining":
        value = 100.0 - value
        notes.append("wear used = 100 - life remaining")
    provenance = Provenance(source, raw, unit, resolution, "; ".join(notes))
    return Candidate(entry.metric, HealthValue(float(value), provenance), entry.priority, kind)


def _apply_page_calibrated(
    entry: VendorEntry, attributes: Mapping[int, Attribute], chosen: Mapping[str, Candidate]
) -> tuple[Candidate | None, str | None]:
    """NAND pages (Micron 247 + 248) -> bytes, page size = host bytes / host pages (247)."""
    first = attributes.get(entry.attribute_id or 0)
    if first is None or not entry.accepts_name(first.name):
        return None, None
    parts = [first, *(attributes.get(i) for i in entry.plus_ids)]
    counts = [None if p is None else _field(p, entry) for p in parts]
    if any(c is None for c in counts) or counts[0] is None:
        return None, None
    pages = sum(c for c in counts if c is not None)
    host = chosen.get("host_written_bytes")
    host_bytes = None if host is None else host.value.value
    page_bytes, how = entry.unit_bytes or 16384.0, ""
    finding = None
    ratio = host_bytes / counts[0] if host_bytes and counts[0] else None
    if ratio is not None and _PAGE_SIZE_RANGE[0] <= ratio <= _PAGE_SIZE_RANGE[1]:
        page_bytes = _snap_page_size(ratio)
        how = (
            f"page size {page_bytes:g} B calibrated as host bytes / attribute "
            f"{entry.attribute_id} = {ratio:.1f} B"
        )
    else:
        how = f"page size {page_bytes:g} B assumed (not calibratable from host writes)"
        finding = (
            f"NAND writes from ata_smart_attributes[{entry.attribute_id}] page counts rest on an "
            f"assumed page size of {page_bytes:g} B (host writes unknown or implausible for "
            "calibration); the byte value may be off by a factor of 2 — the page-count WAF "
            f"({' + '.join(str(i) for i in (entry.attribute_id, *entry.plus_ids))}) / "
            f"{entry.attribute_id} does not depend on it."
        )
    present = [p for p in parts if p is not None]
    source = " + ".join(f"ata_smart_attributes[{p.id}] {p.name}".strip() for p in present)
    notes = [f"vendor map: {entry.group} ({entry.origin})", how]
    if entry.note:
        notes.append(entry.note)
    provenance = Provenance(
        source,
        " + ".join(str(c) for c in counts),
        f"NAND page ({page_bytes:g} B)",
        page_bytes,
        "; ".join(notes),
    )
    return (
        Candidate(
            entry.metric,
            HealthValue(float(pages * page_bytes), provenance),
            entry.priority,
            "attribute",
        ),
        finding,
    )


def _snap_page_size(ratio: float) -> float:
    """Nearest power of two within 3 %, else the nearest multiple of 256 B."""
    power = 2.0 ** round(math.log2(ratio))
    if abs(ratio - power) <= _PAGE_SNAP_TOLERANCE * power:
        return power
    return max(256.0, round(ratio / 256) * 256.0)


# --- choosing and reconciling -------------------------------------------------------------


def _derive_wear_from_erase_counts(chosen: dict[str, Candidate]) -> None:
    """wear % = average / rated P/E cycles, when the drive reports both and no indicator."""
    if "wear_used_pct" in chosen:
        return
    average, rated = chosen.get("erase_count_avg"), chosen.get("rated_pe_cycles")
    if average is None or rated is None or not rated.value.value:
        return
    if average.value.value is None:
        return
    value = 100.0 * average.value.value / rated.value.value
    provenance = Provenance(
        f"{source_of(average)} / {source_of(rated)}",
        f"{average.value.value:g} / {rated.value.value:g}",
        "%",
        100.0 / rated.value.value,
        "derived: average erase count / rated P/E cycles x 100",
    )
    chosen["wear_used_pct"] = Candidate(
        "wear_used_pct", HealthValue(value, provenance), PRIORITY_DERIVED, "derived"
    )


def _unmapped_host_writes(
    host: HealthValue,
    attributes: Mapping[int, Attribute],
    vmap: VendorMap,
    identity: DriveIdentity,
    in_database: bool,
) -> list[str]:
    if host.value is not None:
        return []
    present = [
        attributes[i]
        for i in _HOST_WRITE_ATTRIBUTES
        if i in attributes and (i != 246 or "LBA" in attributes[i].name)
    ]
    if not present:
        return []
    names = ", ".join(f"{a.id} ({a.name})" for a in present)
    known = vmap.is_known_drive(
        family=identity.model_family, model=identity.model, firmware=identity.firmware
    )
    why = (
        "no vendor-map entry for this drive matched them"
        if known
        else "this drive is not in the vendor map"
    )
    if not in_database:
        why += (
            ", and smartctl's drive database does not know the drive either (its names are the "
            "database's DEFAULT placeholders, which state nothing about this drive)"
        )
    return [
        f"Host writes unknown: attribute {names} exists, but its name states no unit for this "
        f"drive (512-byte LBA, 32 MiB, GiB, GB or NAND sectors all occur) and {why}; Device "
        "Statistics (smartctl -x), a vendor-map TOML entry, or --model naming a drive the "
        "vendor map knows would give it."
    ]


# --- small readers --------------------------------------------------------------------------


__all__ = [
    "COLLECTION_FAILURE_MASK",
    "EXIT_STATUS_BITS",
    "decode_exit_status",
    "normalise_smartctl",
    "parse_smartctl_json",
]
