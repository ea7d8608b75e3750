"""What the Identify Controller data shows of the commands, logs and features the OCP Datacenter
NVMe SSD Specification v2.0 requires (§4.3 NVMe-CFG, §4.4 NVMe-AD, §4.5 NVMe-IO, §4.6 NVMe-OPT,
§4.8.1 STD-LOG, §4.10 TRIM). Each is a capability bit: set, the drive says it supports what the
requirement asks; clear, it says it does not. What a bit cannot show (how a command behaves,
NIST SP800-88r1 Purge) is named in the reason: the verdict is on the capability alone.

Bit meanings are those nvme-cli's `nvme id-ctrl -H` prints (NVMe Base Specification)."""

from collections.abc import Callable
from dataclasses import dataclass

from ssdlab.analysis.conformance.requirement import (
    Answer,
    Requirement,
    inconclusive,
    judged,
    not_checkable,
    passed,
)
from ssdlab.model.conformance import DriveEvidence, Evidence
from ssdlab.model.nvme_identify import IdentifyController

GROUP = "Identify Controller"
MIN_MDTS_BYTES = 256 * 1024  # NVMe-CFG-2: "at least 256KB"
MIN_PAGE_BYTES = 4096  # the smallest memory page an NVMe controller can have (CAP.MPSMIN 0)
_NO_IDENTIFY = (
    "no Identify Controller data was read: give `nvme id-ctrl DEV -o json` (or its text) "
    "output with --from, or name the device"
)


@dataclass(frozen=True, slots=True)
class Bit:
    field: str  # the IdentifyController attribute
    bit: int
    meaning: str  # what a set bit says, as nvme-cli prints it
    wanted: bool = True  # whether the requirement wants the bit set


def _value(identify: IdentifyController, field: str) -> int | None:
    value = getattr(identify, field)
    return value if isinstance(value, int) else None


def _bits(bits: tuple[Bit, ...], caveat: str = "") -> Callable[[DriveEvidence], Answer]:
    def check(evidence: DriveEvidence) -> Answer:
        identify = evidence.identify
        if identify is None:
            return not_checkable(_NO_IDENTIFY)
        shown: list[Evidence] = []
        wrong: list[str] = []
        for bit in bits:
            value = _value(identify, bit.field)
            if value is None:
                return not_checkable(f"{bit.field.upper()} is not in the Identify data read")
            state = bool(value >> bit.bit & 1)
            shown.append(
                Evidence(
                    f"Identify Controller {bit.field.upper()} bit {bit.bit} ({bit.meaning})",
                    f"{value:#x}: bit {bit.bit} = {int(state)}",
                    identify.source,
                )
            )
            if state != bit.wanted:
                wrong.append(f"{'not ' if bit.wanted else ''}{bit.meaning.lower()}")
        tail = f"; {caveat}" if caveat else ""
        if wrong:
            return judged(False, "the drive reports " + ", ".join(wrong) + tail, *shown)
        said = ", ".join(b.meaning.lower() if b.wanted else f"no {b.meaning.lower()}" for b in bits)
        return passed(f"the drive reports {said}{tail}", *shown)

    return check


def _mdts(evidence: DriveEvidence) -> Answer:
    identify = evidence.identify
    if identify is None:
        return not_checkable(_NO_IDENTIFY)
    if identify.mdts is None:
        return not_checkable("MDTS is not in the Identify data read")
    shown = Evidence("Identify Controller MDTS", str(identify.mdts), identify.source)
    if identify.mdts == 0:
        return passed("MDTS 0: no limit on the transfer size", shown)
    least = 2**identify.mdts * MIN_PAGE_BYTES
    if least >= MIN_MDTS_BYTES:
        return passed(
            f"at least {least // 1024:,} KiB (2^{identify.mdts} pages of at least 4 KiB)", shown
        )
    return inconclusive(
        f"{least // 1024:,} KiB with 4 KiB pages, under 256 KiB; a controller whose minimum "
        "page (CAP.MPSMIN, a register ssdlab does not read) is larger transfers more",
        shown,
    )


def _record(
    requirement: str, title: str, section: str, check: Callable[[DriveEvidence], Answer]
) -> Requirement:
    return Requirement(
        requirement, title, section, GROUP, "Identify Controller (nvme id-ctrl)", check
    )


_NS_MANAGEMENT = Bit("oacs", 3, "NS Management and Attachment Supported")
_TELEMETRY = Bit("lpa", 3, "Telemetry host/controller initiated log page Supported")
_DSM = Bit("oncs", 2, "Data Set Management Supported")

REQUIREMENTS: tuple[Requirement, ...] = (
    _record("NVMe-CFG-2", "Maximum Data Transfer Size at least 256 KB", "§4.3", _mdts),
    _record(
        "NVMe-AD-3",
        "Namespace Management command supported",
        "§4.4",
        _bits((_NS_MANAGEMENT,)),
    ),
    _record(
        "NVMe-AD-4",
        "Namespace Attachment command supported",
        "§4.4",
        _bits((_NS_MANAGEMENT,)),
    ),
    _record(
        "NVMe-AD-5",
        "Format NVM supported, with Secure Erase Settings 000b, 001b and 010b",
        "§4.4",
        _bits(
            (
                Bit("oacs", 1, "Format NVM Supported"),
                Bit("fna", 2, "Crypto Erase Supported as part of Secure Erase"),
            ),
            "SES 000b and 001b come with Format NVM; 010b (crypto erase) is the FNA bit",
        ),
    ),
    _record(
        "NVMe-AD-6",
        "NVMe-MI Send and Receive supported",
        "§4.4",
        _bits((Bit("oacs", 6, "NVMe-MI Send and Receive Supported"),)),
    ),
    _record(
        "NVMe-AD-7",
        "Sanitize with Block Erase and Crypto Erase supported",
        "§4.4",
        _bits(
            (
                Bit("sanicap", 1, "Block Erase Sanitize Operation Supported"),
                Bit("sanicap", 0, "Crypto Erase Sanitize Operation Supported"),
            ),
            "whether they meet NIST SP800-88r1 Purge is not shown by Identify",
        ),
    ),
    _record(
        "NVMe-AD-10",
        "Identify UUID List (CNS 17h) supported",
        "§4.4",
        _bits((Bit("ctratt", 9, "UUID List Supported"),)),
    ),
    _record(
        "NVMe-IO-2",
        "Dataset Management command with the Deallocate attribute supported",
        "§4.5",
        _bits((_DSM,)),
    ),
    _record(
        "NVMe-IO-3",
        "No volatile write cache (power-loss protected)",
        "§4.5",
        _bits(
            (Bit("vwc", 0, "Volatile Write Cache Present", wanted=False),),
            "FUA and Flush costing nothing is a matter of measurement, not of Identify",
        ),
    ),
    _record(
        "NVMe-IO-4",
        "Write Zeroes command supported",
        "§4.5",
        _bits(
            (Bit("oncs", 3, "Write Zeroes Supported"),),
            "its DEAC and FUA bits are not shown by Identify Controller",
        ),
    ),
    _record(
        "NVMe-IO-8",
        "Compare command supported",
        "§4.5",
        _bits((Bit("oncs", 0, "Compare Supported"),)),
    ),
    _record(
        "NVMe-IO-9",
        "Compare and Write fused command pair supported",
        "§4.5",
        _bits((Bit("fuses", 0, "Fused Compare and Write Supported"),)),
    ),
    _record(
        "NVMe-OPT-2",
        "Timestamp feature (FID 0Eh) supported",
        "§4.6",
        _bits((Bit("oncs", 6, "Timestamp Supported"),)),
    ),
    _record(
        "STD-LOG-6",
        "Commands Supported and Effects log (05h) supported",
        "§4.8.1",
        _bits((Bit("lpa", 1, "Command Effects Log Page Supported"),)),
    ),
    _record(
        "STD-LOG-7",
        "Telemetry Host-Initiated log (07h) supported",
        "§4.8.1",
        _bits((_TELEMETRY,)),
    ),
    _record(
        "STD-LOG-8",
        "Telemetry Controller-Initiated log (08h) supported",
        "§4.8.1",
        _bits((_TELEMETRY,)),
    ),
    _record(
        "STD-LOG-9",
        "Persistent Event log (0Dh) supported",
        "§4.8.1",
        _bits((Bit("lpa", 4, "Persistent Event log Supported"),)),
    ),
    _record(
        "TRIM-1",
        "Deallocate attribute of Dataset Management supported",
        "§4.10",
        _bits((_DSM,)),
    ),
)
