"""OCP C0h, SMART / Health Information Extended (OCP Datacenter NVMe SSD Spec v2.0 §4.8.5):
the requirements the specification states on a field's value, checked on one reading.

A field that is only defined (a count, with no stated bound) is not a requirement that one
reading can check and is not listed. Where the check follows from the field's definition rather
than a "shall" on its value (SMART-8, SMART-25), docs/conformance.md says so.
"""

from collections.abc import Callable

from ssdlab.analysis.conformance.requirement import (
    Answer,
    Requirement,
    failed,
    inconclusive,
    judged,
    not_checkable,
    passed,
)
from ssdlab.model.conformance import DriveEvidence, Evidence, LogPage
from ssdlab.model.ocp_logs import OcpSmartLog

GROUP = "C0h SMART / Health Information Extended"
SECTION = "§4.8.5"
C0_GUID = "afd514c97c6f4f9ca4f2bfea2810afc5"  # as nvme-cli prints it (SMART-31)
OCP_2_0_VERSION = 3  # SMART-30: "Shall be set to 0003h"
NO_SYSTEM_COUNT = 2**48 - 1  # SMART-4: FFFF_FFFF_FFFFh, the system count is invalid
_RESERVED = {"SMART-16": (116, 120), "SMART-18": (121, 128)}
_NO_PAGE = (
    "no OCP C0h log page was read: the drive has none, or give `nvme ocp smart-add-log DEV "
    "-o json` (or `nvme get-log DEV --log-id=0xc0 --log-len=512`) output with --from"
)


def _page(evidence: DriveEvidence) -> tuple[OcpSmartLog | None, LogPage | None, Answer | None]:
    page = evidence.smart_page
    if page is None:
        return None, None, not_checkable(_NO_PAGE)
    if not isinstance(page.log, OcpSmartLog):
        return None, page, not_checkable(f"the C0h page could not be read: {page.problem}")
    return page.log, page, None


def _field(page: LogPage, item: str, value: object) -> Evidence:
    return Evidence(f"C0h {item}", "not reported" if value is None else str(value), page.source)


SmartCheck = Callable[[OcpSmartLog, LogPage, DriveEvidence], Answer]


def _on_page(check: SmartCheck) -> Callable[[DriveEvidence], Answer]:
    def run(evidence: DriveEvidence) -> Answer:
        log, page, missing = _page(evidence)
        if missing is not None or log is None or page is None:
            return missing or not_checkable(_NO_PAGE)
        return check(log, page, evidence)

    return run


def _absent(page: LogPage, item: str) -> Answer:
    return not_checkable(
        f"{item} is not in this page (log page version {page.version}, or the nvme-cli that "
        "printed it did not print it)"
    )


def _media_written(log: OcpSmartLog, page: LogPage, evidence: DriveEvidence) -> Answer:
    written = log.physical_media_written_bytes
    if written is None:
        return _absent(page, "Physical Media Units Written")
    nand = _field(page, "SMART-1 bytes 15:0 Physical Media Units Written", f"{written:,} B")
    health = evidence.health
    host = health.host_written_bytes if health else None
    if host is None or host.value is None:
        return not_checkable(
            "the host's bytes written (NVMe SMART / Health log, Data Units Written) were not "
            "read: give `smartctl -x -j` or `nvme smart-log -o json` output too",
            nand,
        )
    resolution = (host.provenance.resolution if host.provenance else None) or 0.0
    source = host.provenance.source if host.provenance else "SMART / Health log"
    shown = Evidence(
        f"host bytes written ({source})",
        f"{host.value:,.0f} B (resolution {resolution:,.0f} B)",
        evidence.health_source,
    )
    if written >= host.value:
        return passed(
            f"the media took {written / host.value:.3f}× the host's bytes: usable for WAF"
            if host.value
            else "the host has written nothing yet; the media count is usable",
            nand,
            shown,
        )
    if written < host.value - resolution:
        return failed(
            "fewer bytes written to the media than the host wrote: the count leaves out user "
            "data (or the drive reduces data), so it cannot give the WAF",
            nand,
            shown,
        )
    return inconclusive(
        "the media count lies within the host count's rounding (Data Units round up)", nand, shown
    )


def _spare(log: OcpSmartLog, page: LogPage, which: str) -> Answer:
    requirement = "SMART-3" if which == "user" else "SMART-4"
    bytes_raw, bytes_norm = ("37:32", "39:38") if which == "user" else ("45:40", "47:46")
    raw = getattr(log, f"bad_{which}_nand_blocks")
    normalized = getattr(log, f"bad_{which}_nand_blocks_normalized_pct")
    if raw is None or normalized is None:
        return _absent(page, f"Bad {which.title()} NAND Blocks")
    shown = (
        _field(page, f"{requirement} bytes {bytes_raw} Bad {which} NAND blocks, raw", raw),
        _field(page, f"{requirement} bytes {bytes_norm} normalized", f"{normalized} %"),
    )
    if which == "system" and raw == NO_SYSTEM_COUNT:
        return not_checkable(
            "raw count FFFF_FFFF_FFFFh: the drive counts all bad blocks as user blocks and "
            "marks the system count invalid, as the specification allows",
            *shown,
        )
    if normalized > 100:
        return failed(
            f"normalized {normalized} %: the percent of {which} spare still available cannot "
            "pass 100 (64h at factory exit)",
            *shown,
        )
    if raw == 0 and normalized != 100:
        return inconclusive(
            f"no {which} block retired, yet {normalized} % of the spare is said to be left: "
            "the specification does not say whether anything but retired blocks uses it",
            *shown,
        )
    return passed(f"{normalized} % of the {which} spare left, {raw:,} blocks retired", *shown)


def _end_to_end(log: OcpSmartLog, page: LogPage, _: DriveEvidence) -> Answer:
    detected, corrected = log.end_to_end_detected_errors, log.end_to_end_corrected_errors
    if detected is None or corrected is None:
        return _absent(page, "End to End Correction Counts")
    shown = (
        _field(page, "SMART-8 bytes 75:72 detected errors", detected),
        _field(page, "SMART-8 bytes 79:76 corrected errors", corrected),
        *(Evidence("decoder note", note, page.source) for note in log.notes),
    )
    return judged(
        corrected <= detected,
        f"{corrected:,} corrected of {detected:,} detected"
        + ("" if corrected <= detected else ": more corrected than detected"),
        *shown,
    )


def _erase_counts(log: OcpSmartLog, page: LogPage, _: DriveEvidence) -> Answer:
    most, least = log.max_user_erase_count, log.min_user_erase_count
    if most is None or least is None:
        return _absent(page, "User Data Erase Counts")
    shown = (
        _field(page, "SMART-11 bytes 91:88 maximum user data erase count", most),
        _field(page, "SMART-11 bytes 95:92 minimum user data erase count", least),
    )
    return judged(
        most >= least,
        f"maximum {most:,} ≥ minimum {least:,}"
        if most >= least
        else f"maximum {most:,} below minimum {least:,}",
        *shown,
    )


def _throttling(log: OcpSmartLog, page: LogPage, _: DriveEvidence) -> Answer:
    status, events = log.thermal_throttling_status, log.thermal_throttling_events
    if status is None or events is None:
        return _absent(page, "Thermal Throttling Status and Count")
    shown = (
        _field(page, "SMART-12 byte 97 current throttling status", f"{status:#04x} "
               f"({log.thermal_throttling_state})"),
        _field(page, "SMART-12 byte 96 number of thermal throttling events", events),
    )  # fmt: skip
    if status > 3:
        return failed(f"status {status:#04x} is reserved (04h-FFh)", *shown)
    if status and not events:
        return failed(
            "throttling now, yet no throttling event is counted (the one-byte count may only "
            "read 0 here if it wrapped, which the specification does not provide for)",
            *shown,
        )
    return passed(f"{log.thermal_throttling_state}, {events} event(s) counted", *shown)


def _dssd_version(log: OcpSmartLog, page: LogPage, _: DriveEvidence) -> Answer:
    version = log.dssd_version
    if version is None:
        return _absent(page, "DSSD Specification Version")
    shown = _field(page, "SMART-13 bytes 103:98 DSSD specification version", str(version))
    if version.major != 2:
        return failed(f"major version {version.major}; OCP 2.0 asks for 02h", shown)
    if (version.minor, version.point) == (0, 0):
        return passed("claims OCP Datacenter NVMe SSD Specification 2.0", shown)
    return passed(
        f"claims revision 2.{version.minor}.{version.point}: OCP 2.0's text asks for 2.0.0, a "
        "later 2.x revision for its own number",
        shown,
    )


def _reserved(requirement: str) -> SmartCheck:
    start, end = _RESERVED[requirement]

    def check(_: OcpSmartLog, page: LogPage, __: DriveEvidence) -> Answer:
        if page.page is None:
            return not_checkable(
                "reserved bytes are only in the raw page: give `nvme get-log DEV --log-id=0xc0 "
                "--log-len=512` output (nvme-cli's JSON leaves them out)"
            )
        data = page.page[start:end]
        shown = Evidence(f"C0h bytes {end - 1}:{start} (reserved)", data.hex(" "), page.source)
        return judged(not any(data), "cleared to zero" if not any(data) else "not zero", shown)

    return check


def _free_blocks(log: OcpSmartLog, page: LogPage, _: DriveEvidence) -> Answer:
    free = log.free_blocks_pct
    if free is None:
        return _absent(page, "% Free Blocks")
    shown = _field(page, "SMART-17 byte 120 percent free blocks", f"{free} %")
    return judged(
        free <= 100, f"{free} % of the spare pool free" if free <= 100 else "above 100 %", shown
    )


def _errata(log: OcpSmartLog, page: LogPage, _: DriveEvidence) -> Answer:
    code = log.nvme_base_errata
    if code is None:
        return _absent(page, "NVMe Errata Revision")
    shown = _field(page, "SMART-20 byte 130 NVMe errata revision", f"{code:#04x}")
    if code == 0:
        return passed("no errata revision (cleared to zero)", shown)
    letter = chr(code)
    return judged(
        letter.isascii() and letter.isalpha(),
        f"errata revision '{letter}'"
        if letter.isascii() and letter.isalpha()
        else "neither zero nor an ASCII letter",
        shown,
    )


def _plp_starts(log: OcpSmartLog, page: LogPage, _: DriveEvidence) -> Answer:
    protected, starts = log.has_power_loss_protection, log.plp_starts
    if protected is None or starts is None:
        return _absent(page, "Capacitor Health or PLP Start Count")
    shown = (
        _field(page, "SMART-19 bytes 129:128 capacitor health",
               "FFFFh (no PLP)" if not protected else f"{log.capacitor_health_pct} %"),
        _field(page, "SMART-25 bytes 175:160 PLP start count", starts),
    )  # fmt: skip
    if protected:
        return inconclusive(
            "the drive has power-loss protection: any count of PLP starts fits", *shown
        )
    return judged(
        starts == 0,
        "no PLP, no PLP start counted"
        if starts == 0
        else f"no PLP (capacitor health FFFFh), yet {starts:,} PLP starts counted",
        *shown,
    )


def _version(evidence: DriveEvidence) -> Answer:
    page = evidence.smart_page
    if page is None or page.version is None:
        return not_checkable(_NO_PAGE if page is None else f"no version read: {page.problem}")
    version = page.version
    shown = Evidence("C0h SMART-30 bytes 495:494 log page version", f"{version:04X}h", page.source)
    if version == OCP_2_0_VERSION:
        return passed("0003h, as OCP 2.0 asks", shown)
    if version < OCP_2_0_VERSION:
        return failed(f"{version:04X}h: older than OCP 2.0's 0003h", shown)
    if page.log is None:
        return inconclusive(f"{version:04X}h, a version ssdlab does not know", shown)
    return passed(
        f"{version:04X}h: a later revision's page (OCP 2.0 asks for 0003h; later revisions "
        "raise it, and nvme-cli decodes up to 0006h)",
        shown,
    )


def _guid(evidence: DriveEvidence) -> Answer:
    page = evidence.smart_page
    if page is None or page.guid is None:
        return not_checkable(_NO_PAGE if page is None else f"no GUID read: {page.problem}")
    shown = Evidence("C0h SMART-31 bytes 511:496 log page GUID", f"0x{page.guid}", page.source)
    if page.guid == C0_GUID:
        return passed("the OCP C0h GUID", shown)
    return failed(f"not the OCP C0h GUID 0x{C0_GUID}: the drive's C0h is some other log", shown)


def _record(
    requirement: str, title: str, needs: str, check: Callable[[DriveEvidence], Answer]
) -> Requirement:
    return Requirement(requirement, title, SECTION, GROUP, needs, check)


_PAGE_NEEDS = "the C0h page (nvme ocp smart-add-log JSON, or the raw page)"
REQUIREMENTS: tuple[Requirement, ...] = (
    _record(
        "SMART-1",
        "Physical Media Units Written counts all bytes written to the media (usable for WAF)",
        "the C0h page and the SMART / Health log's Data Units Written",
        _on_page(_media_written),
    ),
    _record(
        "SMART-3",
        "Bad User NAND Blocks: normalized is the percent of user spare left",
        _PAGE_NEEDS,
        _on_page(lambda log, page, _: _spare(log, page, "user")),
    ),
    _record(
        "SMART-4",
        "Bad System NAND Blocks: normalized is the percent of system spare left",
        _PAGE_NEEDS,
        _on_page(lambda log, page, _: _spare(log, page, "system")),
    ),
    _record(
        "SMART-8",
        "End to End Correction Counts: every corrected error was detected",
        _PAGE_NEEDS,
        _on_page(_end_to_end),
    ),
    _record(
        "SMART-11",
        "User Data Erase Counts: maximum and minimum across user blocks",
        _PAGE_NEEDS,
        _on_page(_erase_counts),
    ),
    _record(
        "SMART-12",
        "Thermal Throttling Status (00h-03h) and Count",
        _PAGE_NEEDS,
        _on_page(_throttling),
    ),
    _record(
        "SMART-13",
        "DSSD Specification Version: major 02h",
        _PAGE_NEEDS,
        _on_page(_dssd_version),
    ),
    _record(
        "SMART-16",
        "Reserved bytes 119:116 cleared to zero",
        "the raw C0h page (get-log hex dump or -b file)",
        _on_page(_reserved("SMART-16")),
    ),
    _record(
        "SMART-17",
        "% Free Blocks: a percentage of the spare pool",
        _PAGE_NEEDS,
        _on_page(_free_blocks),
    ),
    _record(
        "SMART-18",
        "Reserved bytes 127:121 cleared to zero",
        "the raw C0h page (get-log hex dump or -b file)",
        _on_page(_reserved("SMART-18")),
    ),
    _record(
        "SMART-20",
        "NVMe Errata Revision: an ASCII letter, or zero",
        _PAGE_NEEDS,
        _on_page(_errata),
    ),
    _record(
        "SMART-25",
        "PLP Start Count: none without power-loss protection (SMART-19 FFFFh)",
        _PAGE_NEEDS,
        _on_page(_plp_starts),
    ),
    _record("SMART-30", "Log Page Version: 0003h", "the C0h page", _version),
    _record("SMART-31", "Log Page GUID: AFD514C97C6F4F9CA4F2BFEA2810AFC5h", "the C0h page", _guid),
)
