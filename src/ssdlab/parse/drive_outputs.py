"""A saved or captured tool output about a drive, recognised by what it holds and read into
what `ssdlab conformance` checks: a health sample with its thermal counters and limits
(``smartctl -x -j``, ``nvme smart-log -o json``), the Identify Controller data (``nvme id-ctrl``,
JSON or text), or an OCP log page (C0h, C3h: nvme-cli's JSON, nvme-cli's hex dump of
``nvme get-log``, or the 512-byte page ``-b`` writes).

A log page whose decoder refuses it (another GUID, a version ssdlab does not know) is still
returned, with the refusal as its `problem` and the GUID and version it carried: the GUID and
version checks answer from those.
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ssdlab.errors import ParseError
from ssdlab.model.conformance import LogPage
from ssdlab.model.health import HealthSample
from ssdlab.model.nvme_identify import IdentifyController
from ssdlab.model.thermal import ThermalCounters, ThermalLimits
from ssdlab.parse.json_values import squashed_key, to_count
from ssdlab.parse.nvme_hexdump import read_hex_dump
from ssdlab.parse.nvme_id_ctrl import is_id_ctrl_json, read_id_ctrl_json, read_id_ctrl_text
from ssdlab.parse.nvme_json import normalise_nvme_smart_log
from ssdlab.parse.ocp_latency import (
    C3_GUID,
    C3_PAGE_BYTES,
    decode_latency_monitor_page,
    read_latency_monitor_json,
)
from ssdlab.parse.ocp_page import le_int
from ssdlab.parse.ocp_smart import decode_ocp_smart_page, read_ocp_smart_json
from ssdlab.parse.smartctl_json import normalise_smartctl
from ssdlab.parse.thermal_facts import (
    counters_from_nvme_smart_log,
    counters_from_smartctl,
    limits_from_smartctl,
)

C0 = "C0h"
C3 = "C3h"
_GUID_AT, _VERSION_AT = 496, 494
_C0_KEYS = frozenset({"physicalmediaunitswritten", "percentfreeblocks"})


@dataclass(frozen=True, slots=True)
class DriveOutput:
    """One output read: `kind` says what it was ("smartctl", "nvme smart-log", "nvme id-ctrl",
    "C0h", "C3h"); the fields it did not give are None."""

    kind: str
    source: str
    sample: HealthSample | None = None
    counters: ThermalCounters | None = None
    limits: ThermalLimits | None = None
    identify: IdentifyController | None = None
    page: LogPage | None = None


def _guid_text(page: bytes) -> str:
    return f"{int.from_bytes(page[_GUID_AT:], 'little'):032x}"


def read_raw_page(page: bytes, source: str) -> DriveOutput:
    """A 512-byte OCP log page, told C0h from C3h by its GUID."""
    if len(page) != C3_PAGE_BYTES:
        raise ParseError(f"{source}: {len(page)} bytes, not a 512-byte OCP log page")
    guid, version = _guid_text(page), le_int(page, _VERSION_AT, 2)
    kind = C3 if page[_GUID_AT:] == C3_GUID else C0
    try:
        log = decode_latency_monitor_page(page) if kind == C3 else decode_ocp_smart_page(page)
    except ParseError as error:
        return DriveOutput(
            kind, source, page=LogPage(source, None, str(error), guid, version, page)
        )
    return DriveOutput(kind, source, page=LogPage(source, log, None, guid, version, page))


def _ocp_json(doc: Mapping[str, Any], source: str) -> DriveOutput:
    fields = {squashed_key(k): v for k, v in doc.items() if isinstance(k, str)}
    raw_guid = fields.get("logpageguid")
    guid = raw_guid.strip().lower().removeprefix("0x") if isinstance(raw_guid, str) else None
    version = to_count(fields.get("logpageversion"))
    kind = C0 if _C0_KEYS & set(fields) else C3
    try:
        log = read_ocp_smart_json(doc) if kind == C0 else read_latency_monitor_json(doc)
    except ParseError as error:
        return DriveOutput(kind, source, page=LogPage(source, None, str(error), guid, version))
    return DriveOutput(kind, source, page=LogPage(source, log, None, guid, version))


def _limits_given(limits: ThermalLimits) -> ThermalLimits | None:
    return limits if limits.wctemp_k is not None or limits.cctemp_k is not None else None


def read_json_output(doc: Mapping[str, Any], source: str) -> DriveOutput:
    """A JSON output of smartctl or nvme-cli."""
    if "smartctl" in doc or "nvme_smart_health_information_log" in doc:
        return DriveOutput(
            "smartctl",
            source,
            sample=normalise_smartctl(doc),
            counters=counters_from_smartctl(doc),
            limits=_limits_given(limits_from_smartctl(doc)),
        )
    if any(squashed_key(k) == "logpageguid" for k in doc if isinstance(k, str)):
        return _ocp_json(doc, source)
    if is_id_ctrl_json(doc):
        return DriveOutput("nvme id-ctrl", source, identify=read_id_ctrl_json(doc, source))
    return DriveOutput(
        "nvme smart-log",
        source,
        sample=normalise_nvme_smart_log(doc),
        counters=counters_from_nvme_smart_log(doc),
    )


def read_drive_output(data: bytes, source: str) -> DriveOutput:
    """Any output this module reads, from its bytes; ParseError for anything else."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return read_raw_page(data, source)
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as error:
            raise ParseError(f"{source}: not valid JSON ({error})") from None
        if not isinstance(doc, dict):
            raise ParseError(f"{source}: the JSON is not an object")
        return read_json_output(doc, source)
    if any(line.strip().startswith("0000:") for line in text.splitlines()):
        return read_raw_page(read_hex_dump(text), source)
    try:
        return DriveOutput("nvme id-ctrl", source, identify=read_id_ctrl_text(text, source))
    except ParseError:
        raise ParseError(
            f"{source}: not an output ssdlab conformance reads (smartctl -x -j, nvme smart-log "
            "-o json, nvme id-ctrl, nvme ocp smart-add-log / latency-monitor-log -o json, or an "
            "OCP log page from nvme get-log)"
        ) from None
