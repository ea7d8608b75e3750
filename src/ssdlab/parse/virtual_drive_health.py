"""The health file of a virtual drive (`ssdlab sim serve`) → HealthSample, read as a real
NVMe drive's logs are: its SMART / Health log through the nvme-cli smart-log reader (host
bytes in 512,000-byte data units, temperature in Kelvin), its OCP C0h log through the OCP
reader (NAND bytes written, SMART-1; the user-data erase counts, SMART-11 and the average of
log page version 5; a drive served with `--no-c0` has none: no NAND bytes, no erase counts,
as most consumer drives). The drive's free blocks, which no health field holds, come back as a
note from its exact counters.
"""

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from ssdlab.errors import ParseError
from ssdlab.model.health import DriveIdentity, HealthSample, HealthValue, Provenance
from ssdlab.model.virtual_drive import HEALTH_FORMAT
from ssdlab.parse.nvme_json import normalise_nvme_smart_log, parse_ocp_smart_add_log
from ssdlab.parse.ocp_smart import read_ocp_smart_json

SOURCE = "ssdlab virtual drive"


def _object(doc: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = doc.get(key)
    if not isinstance(value, Mapping):
        raise ParseError(f"virtual drive health: no {key!r} object")
    return value


def _identity(doc: Mapping[str, Any]) -> DriveIdentity:
    ident = _object(doc, "identity")

    def text(key: str) -> str | None:
        value = ident.get(key)
        return value if isinstance(value, str) else None

    capacity = ident.get("capacity_bytes")
    return DriveIdentity(
        protocol="NVMe",
        model=text("model"),
        serial=text("serial"),
        firmware=text("firmware"),
        capacity_bytes=capacity if isinstance(capacity, int) else None,
    )


def _erase_value(count: int | None, key: str) -> HealthValue:
    if count is None:
        return HealthValue(None)
    return HealthValue(
        float(count), Provenance(f"{SOURCE} OCP C0 '{key}'", count, "erase", resolution=1.0)
    )


def _rated(ident: Mapping[str, Any]) -> HealthValue:
    rated = ident.get("rated_pe_cycles")
    if not isinstance(rated, int | float) or isinstance(rated, bool) or rated <= 0:
        return HealthValue(None)
    return HealthValue(float(rated), Provenance(f"{SOURCE} identity.rated_pe_cycles", rated, "P/E"))


def free_blocks_note(doc: Mapping[str, Any]) -> str | None:
    """'virtual drive: 12 of 273 blocks free', from the exact counters."""
    counters = doc.get("counters")
    if not isinstance(counters, Mapping):
        return None
    free, total = counters.get("free_blocks"), counters.get("total_blocks")
    if not isinstance(free, int) or not isinstance(total, int) or total <= 0:
        return None
    return f"virtual drive: {free} of {total} erase blocks free ({100 * free / total:.1f} %)"


def read_virtual_drive_health(text: str) -> tuple[HealthSample, tuple[str, ...]]:
    """The sample and its notes; ParseError when the text is not a virtual drive's health."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as error:
        raise ParseError(f"virtual drive health is not JSON: {error}") from None
    if not isinstance(doc, dict) or doc.get("format") != HEALTH_FORMAT:
        raise ParseError(f"not a virtual drive's health file (format {HEALTH_FORMAT!r})")
    taken = doc.get("taken_at_s")
    taken_at_s = float(taken) if isinstance(taken, int | float) else None
    sample = normalise_nvme_smart_log(
        _object(doc, "smart_log"), identity=_identity(doc), taken_at_s=taken_at_s
    )
    if "ocp_smart_add_log" not in doc:  # served with --no-c0: no NAND writes, no erase counts
        sample = dataclasses.replace(
            sample,
            rated_pe_cycles=_rated(_object(doc, "identity")),
            sources=(SOURCE, "nvme smart-log JSON"),
        )
        note = free_blocks_note(doc)
        return sample, (note,) if note else ()
    ocp_doc = _object(doc, "ocp_smart_add_log")
    ocp = read_ocp_smart_json(ocp_doc)
    sample = dataclasses.replace(
        sample,
        nand_written_bytes=parse_ocp_smart_add_log(ocp_doc),
        erase_count_max=_erase_value(ocp.max_user_erase_count, "Max User data erase counts"),
        erase_count_min=_erase_value(ocp.min_user_erase_count, "Min User data erase counts"),
        erase_count_avg=_erase_value(ocp.nand_avg_erase_count, "NAND avg erase count"),
        rated_pe_cycles=_rated(_object(doc, "identity")),
        sources=(SOURCE, "nvme smart-log JSON", "OCP C0 JSON"),
    )
    note = free_blocks_note(doc)
    return sample, (note,) if note else ()
