"""The ATA attribute table of a smartctl document, and what attributes' drivedb names state.

An ID the firmware lists twice is read once when its rows agree and not at all when they differ
(the finding names both); attributes whose drivedb name states a unit or the wear
(smart_names) become candidates unless a vendor-map entry for the drive reads them as something
else.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ssdlab.model.health import DriveIdentity, HealthValue, Provenance
from ssdlab.parse.json_values import clean_text, mapping, small_int, to_count
from ssdlab.parse.smart_candidates import PRIORITY_NAME, Candidate, source_of
from ssdlab.parse.smart_names import unit_name, wear_from_name
from ssdlab.parse.smart_vendors import VendorMap


@dataclass(frozen=True, slots=True)
class Attribute:
    id: int
    name: str
    norm: int | None
    worst: int | None
    raw: int | None


def read_attributes(doc: Mapping[str, Any]) -> tuple[dict[int, Attribute], list[str]]:
    """The attribute table by ID, and a finding for every ID listed more than once.

    A firmware that fills two of the table's 30 slots with one ID is reported as it is (smartctl
    prints both rows). Rows that agree are read once; rows that differ leave that ID unread
    (which of the two the drive means is not known) and the finding names both.
    """
    table = mapping(doc.get("ata_smart_attributes")).get("table")
    rows: dict[int, list[Attribute]] = {}
    if not isinstance(table, list):
        return {}, []
    for row in table:
        if not isinstance(row, Mapping):
            continue
        attribute_id = row.get("id")
        if not isinstance(attribute_id, int) or isinstance(attribute_id, bool):
            continue
        raw = mapping(row.get("raw")).get("value")
        rows.setdefault(attribute_id, []).append(
            Attribute(
                id=attribute_id,
                name=clean_text(row.get("name")) or "",
                norm=small_int(row.get("value")),
                worst=small_int(row.get("worst")),
                raw=to_count(raw) if isinstance(raw, int) and not isinstance(raw, bool) else None,
            )
        )
    found: dict[int, Attribute] = {}
    findings: list[str] = []
    for attribute_id, listed in rows.items():
        if len(listed) == 1:
            found[attribute_id] = listed[0]
            continue
        shown = "; ".join(f"{a.name or '?'} normalized {a.norm} raw {a.raw}" for a in listed)
        if all(a == listed[0] for a in listed):
            found[attribute_id] = listed[0]
            findings.append(
                f"Attribute {attribute_id} is listed {len(listed)} times with the same values "
                f"({shown}); it is read once."
            )
        else:
            findings.append(
                f"Attribute {attribute_id} is listed {len(listed)} times with different values "
                f"({shown}); which one the drive means is not known, so nothing is read from it."
            )
    return found, findings


def in_database(doc: Mapping[str, Any]) -> bool:
    """Whether smartctl's drive database knows the drive (its attribute names are then the
    database's own, not the DEFAULT entry's placeholders)."""
    known = doc.get("in_smartctl_database")
    if isinstance(known, bool):
        return known
    return clean_text(doc.get("model_family")) is not None


def claimed_by_vendor_map(
    vmap: VendorMap, identity: DriveIdentity, attributes: Mapping[int, Attribute]
) -> dict[int, set[str]]:
    """Attribute ID -> the metrics drive-specific vendor-map entries read from it on this drive
    ("none" included): where the map knows the drive contradicts a drivedb name."""
    claimed: dict[int, set[str]] = {}
    for entry in vmap.entries:
        if entry.kind != "attribute" or entry.generic or entry.attribute_id is None:
            continue
        attribute = attributes.get(entry.attribute_id)
        if attribute is None or not entry.accepts_name(attribute.name):
            continue
        if entry.applies_to(
            family=identity.model_family, model=identity.model, firmware=identity.firmware
        ):
            claimed.setdefault(entry.attribute_id, set()).add(entry.metric)
    return claimed


def named_candidates(
    attributes: Mapping[int, Attribute],
    sector_bytes: int | None,
    in_database: bool,
    claimed: Mapping[int, set[str]],
) -> tuple[list[Candidate], list[str]]:
    """Candidates from attributes whose drivedb name states the unit or the wear (smart_names),
    except where a vendor-map entry for this drive reads the attribute as something else."""
    found: list[Candidate] = []
    findings: list[str] = []
    for attribute in attributes.values():
        source = f"ata_smart_attributes[{attribute.id}] {attribute.name}"
        stated = unit_name(attribute.id, attribute.name, in_database=in_database)
        mapped = claimed.get(attribute.id)
        if stated is not None and mapped is not None and stated.metric not in mapped:
            stated = None
        if stated is not None and attribute.raw is not None:
            per_count = float(stated.unit_bytes or sector_bytes or 512)
            note = "drivedb name states the unit"
            unit = stated.unit
            if not stated.unit_bytes:
                unit = f"{per_count:g}-byte logical sector"
                if sector_bytes is None:
                    note += "; logical_block_size not reported, 512 assumed"
            provenance = Provenance(source, attribute.raw, unit, per_count, note)
            value = HealthValue(float(attribute.raw * per_count), provenance)
            found.append(Candidate(stated.metric, value, PRIORITY_NAME, "attribute"))
        reading = wear_from_name(
            attribute.id,
            attribute.name,
            attribute.norm,
            attribute.raw,
            in_database=in_database,
        )
        if reading is None or (mapped is not None and "wear_used_pct" not in mapped):
            continue
        if reading.value is None:
            findings.append(f"Wear unknown from {source}: {reading.why}.")
            continue
        raw: int | str | None = attribute.raw if reading.field == "raw" else attribute.norm
        if reading.field == "both":
            raw = f"raw {attribute.raw}, normalized {attribute.norm}"
        provenance = Provenance(
            source, raw, "%", 1.0, f"drivedb name states the wear; {reading.why}"
        )
        found.append(
            Candidate(
                "wear_used_pct", HealthValue(reading.value, provenance), PRIORITY_NAME, "attribute"
            )
        )
    return found, findings


def name_and_map_disagree(
    candidates: list[Candidate], chosen: Mapping[str, Candidate]
) -> list[str]:
    """A vendor-map entry chosen over an attribute's drivedb name that reads otherwise."""
    findings: list[str] = []
    for metric, best in chosen.items():
        if best.kind != "attribute" or best.priority <= PRIORITY_NAME:
            continue
        for other in candidates:
            if other.metric != metric or other.priority != PRIORITY_NAME:
                continue
            if other.value.value is None or best.value.value is None:
                continue
            slack = max(_resolution(other), _resolution(best))
            if abs(other.value.value - best.value.value) <= slack:
                continue
            findings.append(
                f"{metric}: ssdlab's vendor map reads {source_of(best)} as "
                f"{_shown(metric, best.value.value)}, the drivedb name of {source_of(other)} "
                f"states {_shown(metric, other.value.value)}; the vendor map's entry is used."
            )
    return findings


def _resolution(candidate: Candidate) -> float:
    provenance = candidate.value.provenance
    return 0.0 if provenance is None or provenance.resolution is None else provenance.resolution


def _shown(metric: str, value: float) -> str:
    if metric.endswith("_bytes"):
        return f"{value:,.0f} bytes"
    return f"{value:g}"
