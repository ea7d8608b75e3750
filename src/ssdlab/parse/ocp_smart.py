"""The OCP SMART / Health Information Extended log (C0h) -> OcpSmartLog, from the raw page or
from nvme-cli's JSON.

The raw page is what ``nvme get-log DEV --log-id=0xc0 --log-len=512 -b`` writes: 512 bytes,
every field little-endian at the offsets of the OCP Datacenter NVMe SSD Specification v2.0
§4.8.5 (requirement IDs SMART-1…31) and, for log page versions 4 to 6, of nvme-cli's
``struct ocp_smart_extended_log`` (plugins/ocp/ocp-smart-extended-log.h).

``nvme ocp smart-add-log DEV -o json`` prints the same fields under names that changed over
nvme-cli's life: Title Case ("Max User data erase counts", output format version 1, the only
one before nvme-cli 2.12) or snake_case ("max_user_data_erase_count", ``--output-format-version
2``). Both are read by squashed key. nvme-cli 2.0-2.3 (plugins/ocp/ocp-nvme.c) read the two
end-to-end counts (SMART-8) from each other's offsets, fixed in 2.4 (commit edd6d75a9); their
output is recognised by the order it printed the two keys in (corrected first) and the values
are given back to the fields they came from.

Both readers check the log page GUID (SMART-31) and version (SMART-30) and refuse a page that
is not an OCP C0 page or has a version ssdlab does not know, with one line (ParseError).
"""

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ssdlab.errors import ParseError
from ssdlab.model.ocp_logs import DssdVersion, OcpSmartLog
from ssdlab.parse.json_values import hi_lo_count, squashed_key, to_count
from ssdlab.parse.ocp_page import checked_version, foreign_guid, le_int

C0_PAGE_BYTES = 512
C0_GUID = bytes.fromhex("C5AF1028EABFF2A49C4F6F7CC914D5AF")
"""SMART-31 as the bytes 511:496 hold it (``scao_guid`` in nvme-cli)."""
C0_GUID_TEXT = "afd514c97c6f4f9ca4f2bfea2810afc5"
"""The same GUID as nvme-cli prints it: the 16 bytes as one little-endian number, in hex."""
_C0_GUID_TEXTS = frozenset({C0_GUID_TEXT, C0_GUID.hex()})
KNOWN_C0_VERSIONS = range(1, 7)
"""Log page versions 1-6: OCP 1.0 to 2.6 as nvme-cli (commit e117ee68) decodes them."""

_PAGE = "SMART / Health Information Extended"
_VERSION_AT = 494
_GUID_AT = 496
_NO_PLP = 0xFFFF  # SMART-19: no power-loss protection
_E2E_DETECTED = "endtoenddetectederrors"
_E2E_CORRECTED = "endtoendcorrectederrors"


@dataclass(frozen=True, slots=True)
class _Field:
    requirement: str  # SMART-n of OCP 2.0; "v4"/"v5" for fields later log page versions added
    name: str  # the OcpSmartLog field
    offset: int
    size: int
    keys: tuple[str, ...]  # squashed nvme-cli JSON keys, output format version 1 then 2
    since: int = 1  # the first log page version that has the field


_FIELDS: tuple[_Field, ...] = (
    _Field("SMART-1", "physical_media_written_bytes", 0, 16, ("physicalmediaunitswritten",)),
    _Field("SMART-2", "physical_media_read_bytes", 16, 16, ("physicalmediaunitsread",)),
    _Field("SMART-3", "bad_user_nand_blocks", 32, 6, ("badusernandblocksraw",)),
    _Field(
        "SMART-3", "bad_user_nand_blocks_normalized_pct", 38, 2, ("badusernandblocksnormalized",)
    ),
    _Field("SMART-4", "bad_system_nand_blocks", 40, 6, ("badsystemnandblocksraw",)),
    _Field(
        "SMART-4",
        "bad_system_nand_blocks_normalized_pct",
        46,
        2,
        ("badsystemnandblocksnormalized",),
    ),
    _Field("SMART-5", "xor_recoveries", 48, 8, ("xorrecoverycount",)),
    _Field(
        "SMART-6",
        "uncorrectable_read_errors",
        56,
        8,
        ("uncorrectablereaderrorcount", "uncorrectablereaderrors"),
    ),
    _Field("SMART-7", "soft_ecc_errors", 64, 8, ("softeccerrorcount",)),
    _Field("SMART-8", "end_to_end_detected_errors", 72, 4, (_E2E_DETECTED,)),
    _Field("SMART-8", "end_to_end_corrected_errors", 76, 4, (_E2E_CORRECTED,)),
    _Field("SMART-9", "system_data_used_pct", 80, 1, ("systemdatapercentused",)),
    _Field("SMART-10", "refreshes", 81, 7, ("refreshcounts", "refreshcount")),
    _Field(
        "SMART-11",
        "max_user_erase_count",
        88,
        4,
        ("maxuserdataerasecounts", "maxuserdataerasecount"),
    ),
    _Field(
        "SMART-11",
        "min_user_erase_count",
        92,
        4,
        ("minuserdataerasecounts", "minuserdataerasecount"),
    ),
    _Field(
        "SMART-12",
        "thermal_throttling_events",
        96,
        1,
        ("numberofthermalthrottlingevents", "thermalthrottlingevents"),
    ),
    _Field("SMART-12", "thermal_throttling_status", 97, 1, ("currentthrottlingstatus",)),
    _Field(
        "SMART-14",
        "pcie_correctable_errors",
        104,
        8,
        ("pciecorrectableerrorcount", "pciecorrectableerrors"),
    ),
    _Field("SMART-15", "incomplete_shutdowns", 112, 4, ("incompleteshutdowns",)),
    _Field("SMART-17", "free_blocks_pct", 120, 1, ("percentfreeblocks",)),
    _Field(
        "SMART-20",
        "nvme_base_errata",
        130,
        1,
        ("nvmebaseerrataversion", "nvmeerrataversion"),
        since=2,
    ),
    _Field("SMART-22", "unaligned_ios", 136, 8, ("unalignedio",)),
    _Field("SMART-23", "security_version", 144, 8, ("securityversionnumber",)),
    _Field("SMART-24", "total_nuse_blocks", 152, 8, ("nusenamespaceutilization",)),
    _Field("SMART-25", "plp_starts", 160, 16, ("plpstartcount",)),
    _Field("SMART-26", "endurance_estimate", 176, 16, ("enduranceestimate",)),
    _Field("SMART-27", "pcie_link_retrains", 192, 8, ("pcielinkretrainingcount",), since=2),
    _Field("SMART-28", "power_state_changes", 200, 8, ("powerstatechangecount",), since=2),
    _Field(
        "v4", "lowest_permitted_firmware", 208, 8, ("lowestpermittedfirmwarerevision",), since=4
    ),
    _Field("v5", "total_media_dies", 216, 2, ("totalmediadies",), since=5),
    _Field("v5", "die_failure_tolerance", 218, 2, ("totaldiefailuretolerance",), since=5),
    _Field("v5", "media_dies_offline", 220, 2, ("mediadiesoffline",), since=5),
    _Field("v5", "max_temperature_recorded", 222, 1, ("maxtemperaturerecorded",), since=5),
    _Field("v5", "nand_avg_erase_count", 224, 8, ("nandavgerasecount",), since=5),
    _Field("v5", "command_timeouts", 232, 4, ("commandtimeouts",), since=5),
)
_DSSD_KEYS = ("majorversionfield", "minorversionfield", "pointversionfield", "errataversionfield")
_DSSD_SINCE = 2  # SMART-13
_CAPACITOR_KEY = "capacitorhealth"  # SMART-19


def decode_ocp_smart_page(page: bytes) -> OcpSmartLog:
    """The raw C0h page (512 bytes, as ``nvme get-log --log-id=0xc0 --log-len=512 -b`` writes it).

    Raises ParseError for another length, a foreign GUID or an unknown log page version.
    """
    if len(page) != C0_PAGE_BYTES:
        raise ParseError(f"OCP C0 log: {len(page)} bytes, not the {C0_PAGE_BYTES} of a C0 page")
    guid = page[_GUID_AT : _GUID_AT + 16]
    guid_text = f"{int.from_bytes(guid, 'little'):032x}"
    if guid != C0_GUID:
        raise foreign_guid("C0", f"0x{guid_text}", f"0x{C0_GUID_TEXT}", _PAGE)
    version = checked_version("C0", le_int(page, _VERSION_AT, 2), KNOWN_C0_VERSIONS)
    values: dict[str, Any] = {
        f.name: le_int(page, f.offset, f.size) for f in _FIELDS if f.since <= version
    }
    if version >= _DSSD_SINCE:
        values["dssd_version"] = DssdVersion(
            major=page[103], minor=le_int(page, 101, 2), point=le_int(page, 99, 2), errata=page[98]
        )
    return _with_capacitor(
        OcpSmartLog(log_page_version=version, log_page_guid=guid_text, **values),
        le_int(page, 128, 2),
    )


def read_ocp_smart_json(doc: Mapping[str, Any]) -> OcpSmartLog:
    """``nvme ocp smart-add-log DEV -o json``, output format version 1 or 2, any nvme-cli 2.x.

    A field nvme-cli did not print (or printed as something that is not a count) is None.
    Raises ParseError without the GUID or version, or when either is not an OCP C0 page's.
    """
    fields = {squashed_key(k): v for k, v in doc.items() if isinstance(k, str)}
    guid = fields.get("logpageguid")
    if not isinstance(guid, str):
        raise ParseError("OCP C0 log: no 'Log page GUID'; cannot tell an OCP C0 page")
    guid_text = guid.strip().lower().removeprefix("0x")
    if guid_text not in _C0_GUID_TEXTS:
        raise foreign_guid("C0", f"0x{guid_text}", f"0x{C0_GUID_TEXT}", _PAGE)
    version = to_count(fields.get("logpageversion"))
    if version is None:
        raise ParseError("OCP C0 log: no 'Log page version' number")
    version = checked_version("C0", version, KNOWN_C0_VERSIONS)
    values: dict[str, Any] = {}
    for field in _FIELDS:
        raw = next((fields[k] for k in field.keys if k in fields), None)
        if field.since <= version and raw is not None:
            values[field.name] = hi_lo_count(raw)
    notes: tuple[str, ...] = ()
    if _end_to_end_swapped(list(fields)):
        detected = values.get("end_to_end_corrected_errors")
        values["end_to_end_corrected_errors"] = values.get("end_to_end_detected_errors")
        values["end_to_end_detected_errors"] = detected
        notes = (
            "nvme-cli 2.0-2.3 printed the end-to-end detected and corrected counts under each "
            "other's names; read back by offset",
        )
    major, minor, point, errata = (to_count(fields.get(k)) for k in _DSSD_KEYS)
    if version >= _DSSD_SINCE and None not in (major, minor, point, errata):
        values["dssd_version"] = DssdVersion(major or 0, minor or 0, point or 0, errata or 0)
    log = OcpSmartLog(log_page_version=version, log_page_guid=C0_GUID_TEXT, notes=notes, **values)
    return _with_capacitor(log, to_count(fields.get(_CAPACITOR_KEY)))


def _end_to_end_swapped(keys: list[str]) -> bool:
    """nvme-cli 2.0-2.3 printed "End to end corrected errors" (from bytes 75:72) before
    "End to end detected errors" (from 79:76); 2.4 and later print detected first, from 75:72."""
    if _E2E_DETECTED not in keys or _E2E_CORRECTED not in keys:
        return False
    return keys.index(_E2E_CORRECTED) < keys.index(_E2E_DETECTED)


def _with_capacitor(log: OcpSmartLog, raw: int | None) -> OcpSmartLog:
    """SMART-19: FFFFh says the drive has no power-loss protection; otherwise a percentage of
    the hold-up energy a new drive passes with (above 100 when new)."""
    if raw is None:
        return log
    if raw == _NO_PLP:
        return replace(log, has_power_loss_protection=False)
    return replace(log, capacitor_health_pct=raw, has_power_loss_protection=True)
