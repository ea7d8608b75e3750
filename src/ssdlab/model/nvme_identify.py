"""The fields of an NVMe Identify Controller data structure that the conformance checks read.

Each is the field as the controller reports it (`nvme id-ctrl`): bit fields as numbers, WCTEMP
and CCTEMP in Kelvin, MDTS as a power of two of the minimum memory page size. None when the
input did not carry the field. The bit meanings used are nvme-cli's (`nvme id-ctrl -H`).
"""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class IdentifyController:
    source: str
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    mdts: int | None = None  # 0: no limit; else 2^mdts minimum memory pages
    oacs: int | None = None  # Optional Admin Command Support
    lpa: int | None = None  # Log Page Attributes
    oncs: int | None = None  # Optional NVM Command Support
    fuses: int | None = None  # Fused Operation Support
    fna: int | None = None  # Format NVM Attributes
    vwc: int | None = None  # Volatile Write Cache
    sanicap: int | None = None  # Sanitize Capabilities
    ctratt: int | None = None  # Controller Attributes
    wctemp_k: int | None = None  # Warning Composite Temperature Threshold
    cctemp_k: int | None = None  # Critical Composite Temperature Threshold
