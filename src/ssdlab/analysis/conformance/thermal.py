"""The thermal requirements one reading can check (OCP Datacenter NVMe SSD Spec v2.0 §8.2
TTHROTTLE, §6.5 REL), through analysis/thermal_checks.py where it already answers them; and
the ones that need a run's per-second temperature series, listed with that reason."""

from collections.abc import Callable

from ssdlab.analysis.conformance.requirement import (
    Answer,
    Requirement,
    inconclusive,
    judged,
    not_checkable,
)
from ssdlab.analysis.thermal_checks import RequirementCheck, identify_checks, lifetime_share_check
from ssdlab.analysis.verdict_state import State
from ssdlab.model.conformance import DriveEvidence, Evidence, Verdict
from ssdlab.model.ocp_logs import OcpSmartLog

GROUP = "Thermal"
TEMPERATURE_BIT = 1  # SMART / Health log Critical Warning bit 1: temperature threshold
_VERDICTS = {
    State.YES: Verdict.PASS,
    State.NO: Verdict.FAIL,
    State.INCONCLUSIVE: Verdict.INCONCLUSIVE,
}
_NEEDS_SERIES = (
    "needs a run's per-second composite temperature and throughput series, which runs do "
    "not store yet (docs/thermal.md)"
)
_PREFIX = "cannot be checked on this drive: "


def _from_thermal(found: RequirementCheck, item: str, source: str) -> Answer:
    if found.state is None:
        return not_checkable(found.evidence.removeprefix(_PREFIX))
    return Answer(_VERDICTS[found.state], found.question, (Evidence(item, found.evidence, source),))


def _threshold(index: int, name: str) -> Callable[[DriveEvidence], Answer]:
    def check(evidence: DriveEvidence) -> Answer:
        limits = evidence.limits
        if limits is None:
            return not_checkable(
                "no temperature thresholds were read: give `nvme id-ctrl DEV -o json` output "
                "with --from, or name the device"
            )
        item = f"Identify Controller {name}"
        return _from_thermal(identify_checks(limits)[index], item, limits.source)

    return check


def _lifetime_share(evidence: DriveEvidence) -> Answer:
    counters = evidence.counters
    if counters is None:
        return not_checkable(
            "the SMART / Health log's Warning Composite Temperature Time and Power On Hours were "
            "not read: give `smartctl -x -j` or `nvme smart-log -o json` output"
        )
    item = "Warning Composite Temperature Time ÷ Power On Hours"
    return _from_thermal(lifetime_share_check(counters), item, counters.source)


def _throttle_warning(evidence: DriveEvidence) -> Answer:
    page = evidence.smart_page
    log = page.log if page else None
    health = evidence.health
    warning = health.critical_warning.value if health else None
    if page is None or not isinstance(log, OcpSmartLog) or log.thermal_throttling_status is None:
        return not_checkable(
            "needs the C0h page's current throttling status (SMART-12) to know whether the "
            "drive is throttling"
        )
    if warning is None or health is None:
        return not_checkable("the SMART / Health log's Critical Warning was not read")
    status = log.thermal_throttling_status
    bit = int(warning) >> TEMPERATURE_BIT & 1
    shown = (
        Evidence("C0h SMART-12 byte 97 current throttling status", f"{status:#04x}", page.source),
        Evidence(
            "SMART / Health log Critical Warning bit 1 (temperature)",
            f"{int(warning):#04x}: bit 1 = {bit}",
            evidence.health_source,
        ),
    )
    if not status:
        return inconclusive("the drive was not throttling when read", *shown)
    return judged(
        bit == 1,
        "throttling, with the temperature warning bit set"
        if bit
        else "throttling, yet Critical Warning bit 1 is clear",
        *shown,
    )


def _series_only(evidence: DriveEvidence) -> Answer:
    del evidence
    return not_checkable(_NEEDS_SERIES)


def _record(
    requirement: str,
    title: str,
    section: str,
    needs: str,
    check: Callable[[DriveEvidence], Answer],
    *,
    automated: bool = True,
) -> Requirement:
    return Requirement(requirement, title, section, GROUP, needs, check, automated)


REQUIREMENTS: tuple[Requirement, ...] = (
    _record(
        "TTHROTTLE-2",
        "While throttling, Critical Warning bit 1 is set",
        "§8.2",
        "the C0h page and the SMART / Health log, read together",
        _throttle_warning,
    ),
    _record(
        "TTHROTTLE-5",
        "Throttling starts at composite 77 °C",
        "§8.2",
        "a per-second temperature and throughput series",
        _series_only,
        automated=False,
    ),
    _record(
        "TTHROTTLE-7",
        "Throttling ends below 75 °C",
        "§8.2",
        "a per-second temperature and throughput series",
        _series_only,
        automated=False,
    ),
    _record(
        "TTHROTTLE-9",
        "WCTEMP is 015Eh (77 °C)",
        "§8.2",
        "Identify Controller (or smartctl's temperature limits)",
        _threshold(0, "WCTEMP"),
    ),
    _record(
        "TTHROTTLE-10",
        "CCTEMP is 0166h (85 °C)",
        "§8.2",
        "Identify Controller (or smartctl's temperature limits)",
        _threshold(1, "CCTEMP"),
    ),
    _record(
        "TTHROTTLE-11",
        "Warning Composite Temperature Time advances each minute at or above 77 °C",
        "§8.2",
        "a per-second temperature series with the counter read before and after",
        _series_only,
        automated=False,
    ),
    _record(
        "REL-5",
        "Under 1 % of power-on time above the warning temperature",
        "§6.5",
        "the SMART / Health log's Warning Composite Temperature Time and Power On Hours",
        _lifetime_share,
    ),
)
