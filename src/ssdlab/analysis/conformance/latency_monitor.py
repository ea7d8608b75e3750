"""OCP C3h, Latency Monitor (OCP Datacenter NVMe SSD Spec v2.0 §4.8.9). The copy of the
section's table read (freews/general_parser's parse of the v2.0 PDF) is garbled past LMDATA-9;
only what it states clearly is checked: LMDATA-1's reserved bits, and the page's GUID as
nvme-cli and ocp-diag-autoval-ssd (LMDATA-36) give it."""

from ssdlab.analysis.conformance.requirement import Answer, Requirement, judged, not_checkable
from ssdlab.model.conformance import DriveEvidence, Evidence
from ssdlab.model.ocp_logs import LatencyMonitorLog

GROUP = "C3h Latency Monitor"
SECTION = "§4.8.9"
C3_GUID = "85d45e58d4e643709c6c84d08cc07a92"  # as nvme-cli prints it (LMDATA-36)
RESERVED_STATUS_BITS = 0xF8  # LMDATA-1 bits 7:3
_NO_PAGE = (
    "no OCP C3h log page was read: give `nvme ocp latency-monitor-log DEV -o json` (or "
    "`nvme get-log DEV --log-id=0xc3 --log-len=512`) output with --from"
)


def _status(evidence: DriveEvidence) -> Answer:
    page = evidence.latency_page
    if page is None or not isinstance(page.log, LatencyMonitorLog):
        return not_checkable(_NO_PAGE if page is None else f"C3h not read: {page.problem}")
    status = page.log.feature_status
    shown = Evidence(
        "C3h LMDATA-1 byte 0 Latency Monitor Feature Status",
        f"{status:#04x} (enabled: {'yes' if page.log.enabled else 'no'})",
        page.source,
    )
    clear = not status & RESERVED_STATUS_BITS
    return judged(
        clear, "bits 7:3 cleared to zero" if clear else "reserved bits 7:3 are set", shown
    )


def _guid(evidence: DriveEvidence) -> Answer:
    page = evidence.latency_page
    if page is None or page.guid is None:
        return not_checkable(_NO_PAGE if page is None else f"no GUID read: {page.problem}")
    shown = Evidence("C3h LMDATA-36 bytes 511:496 log page GUID", f"0x{page.guid}", page.source)
    ok = page.guid == C3_GUID
    return judged(ok, "the OCP C3h GUID" if ok else f"not the OCP C3h GUID 0x{C3_GUID}", shown)


REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement(
        "LMDATA-1",
        "Latency Monitor Feature Status: bits 7:3 reserved, cleared to zero",
        SECTION,
        GROUP,
        "the C3h page (nvme ocp latency-monitor-log JSON, or the raw page)",
        _status,
    ),
    Requirement(
        "LMDATA-36",
        "Log Page GUID: 85D45E58D4E643709C6C84D08CC07A92h",
        SECTION,
        GROUP,
        "the C3h page",
        _guid,
    ),
)
