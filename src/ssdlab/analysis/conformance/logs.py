"""The standard SMART / Health log (OCP Datacenter NVMe SSD Spec v2.0 §4.8.1): that the drive
answers it, and that its Percentage Used never goes back (STD-LOG-3, "under no conditions shall
the Percentage Used field … be reset"), across the readings of this drive in the store; and
what its Critical Warning must say of its spare (§7.4 EOL-5)."""

from itertools import pairwise

from ssdlab.analysis.conformance.requirement import (
    Answer,
    Requirement,
    failed,
    inconclusive,
    judged,
    not_checkable,
    passed,
)
from ssdlab.model.conformance import DriveEvidence, Evidence, WearReading

GROUP = "SMART / Health log"
SPARE_BELOW_THRESHOLD = 1 << 0  # Critical Warning bit 0
READ_ONLY_BITS = (1 << 2) | (1 << 3)  # bit 2 reliability degraded, bit 3 read-only


def _reading(reading: WearReading) -> str:
    which = "now" if reading.sample_id is None else f"sample {reading.sample_id}"
    return f"{reading.wear_used_pct:g} % ({which})"


def _answered(evidence: DriveEvidence) -> Answer:
    health = evidence.health
    if health is None:
        return not_checkable(
            "no SMART / Health log was read: name the device, or give `smartctl -x -j` or "
            "`nvme smart-log -o json` output with --from"
        )
    used = health.wear_used_pct
    if used.value is None or used.provenance is None:
        return not_checkable(
            f"the health reading ({evidence.health_source}) holds no SMART / Health log "
            "Percentage Used: the drive answered no NVMe SMART / Health log"
        )
    return passed(
        "the drive answered the SMART / Health log",
        Evidence(used.provenance.source, f"{used.value:g} %", evidence.health_source),
    )


def _never_reset(evidence: DriveEvidence) -> Answer:
    history = evidence.wear_history
    if len(history) < 2:
        return not_checkable(
            f"needs two readings of this drive's Percentage Used (stored ones and the one now), "
            f"there are {len(history)}: store one now and later with `ssdlab health DEV`"
        )
    first, last = history[0], history[-1]
    span = Evidence(
        "Percentage Used, first and last stored reading",
        f"{_reading(first)} → {_reading(last)}, {len(history)} readings",
        evidence.wear_history_source,
    )
    for before, after in pairwise(history):
        if after.wear_used_pct < before.wear_used_pct:
            return failed(
                "Percentage Used went back",
                Evidence(
                    "Percentage Used",
                    f"{_reading(before)} → {_reading(after)}",
                    evidence.wear_history_source,
                ),
                span,
            )
    return passed(f"never went back over {len(history)} stored readings", span)


def _spare_warning(evidence: DriveEvidence) -> Answer:
    health = evidence.health
    if health is None:
        return not_checkable("no SMART / Health log was read")
    spare = health.available_spare_pct.value
    threshold = health.available_spare_threshold_pct.value
    warning = health.critical_warning.value
    if spare is None or threshold is None or warning is None:
        return not_checkable(
            "the SMART / Health log read lacks Available Spare, its threshold or Critical Warning"
        )
    bits = int(warning)
    shown = (
        Evidence(
            "Available Spare, Available Spare Threshold",
            f"{spare:g} %, {threshold:g} %",
            evidence.health_source,
        ),
        Evidence("Critical Warning", f"{bits:#04x}", evidence.health_source),
    )
    if spare >= threshold and spare > 0:
        return inconclusive(
            f"the spare ({spare:g} %) is not below its threshold ({threshold:g} %): the warning "
            "the requirement asks for is not due",
            *shown,
        )
    wanted = SPARE_BELOW_THRESHOLD if spare < threshold else 0
    if spare == 0:
        wanted |= READ_ONLY_BITS
    missing = wanted & ~bits
    if spare == 0:
        said = "the spare is 0 %: read-only, with Critical Warning bits 2 and 3"
        said += " and bit 0" if spare < threshold else ""
    else:
        said = f"the spare ({spare:g} %) is below its threshold ({threshold:g} %): bit 0"
    return judged(
        not missing,
        said + (" set" if not missing else f", but bits {missing:#04x} are clear"),
        *shown,
    )


REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement(
        "STD-LOG-2",
        "SMART / Health Information log (02h) supported",
        "§4.8.1",
        GROUP,
        "the SMART / Health log (smartctl or nvme smart-log)",
        _answered,
    ),
    Requirement(
        "STD-LOG-3",
        "Percentage Used is never reset",
        "§4.8.1",
        GROUP,
        "two or more stored readings of the drive (ssdlab health, watch, endure)",
        _never_reset,
    ),
    Requirement(
        "EOL-5",
        "Critical Warning bit 0 below the spare threshold; bits 2 and 3 (read-only) at 0 % spare",
        "§7.4",
        GROUP,
        "the SMART / Health log (Available Spare, its threshold, Critical Warning)",
        _spare_warning,
    ),
)
