"""The thermal requirements (OCP Datacenter NVMe SSD Spec v2.0 §8.2 TTHROTTLE, §6.5 REL): those
one reading can check, through analysis/thermal_checks.py; and those that need a run's
per-second temperature series (TTHROTTLE-5, -7, -11), from the checks every pass of a run
given with --run stored (runner/pass_thermal.py), taken together."""

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
    "needs a run whose passes read the drive's temperature each second: give its id with "
    "--run (every run on a drive with a temperature reads it, docs/thermal.md)"
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


_STATES = {"yes": Verdict.PASS, "no": Verdict.FAIL, "inconclusive": Verdict.INCONCLUSIVE}


def _from_passes(requirement: str) -> Callable[[DriveEvidence], Answer]:
    """The requirement over every stored pass that read the drive's temperature: failed when
    any pass answers no, passed when one answers yes and none no, inconclusive when the
    passes that could answer could not decide, not checkable when none could."""

    def check(evidence: DriveEvidence) -> Answer:
        found = [p for p in evidence.passes if p.requirement == requirement]
        if not found:
            return not_checkable(_NEEDS_SERIES)
        answered = [p for p in found if p.state in _STATES]
        if not answered:
            return not_checkable(
                f"no pass could check it: {found[0].evidence.removeprefix(_PREFIX)}",
                *(Evidence(p.label, p.evidence, f"run {p.run_id}") for p in found[:3]),
            )
        verdicts = {_STATES[str(p.state)] for p in answered}
        verdict = next(
            v for v in (Verdict.FAIL, Verdict.PASS, Verdict.INCONCLUSIVE) if v in verdicts
        )
        shown = [p for p in answered if _STATES[str(p.state)] == verdict]
        said = {
            Verdict.FAIL: f"{len(shown)} of {len(found)} passes answer no",
            Verdict.PASS: f"{len(shown)} of {len(found)} passes answer yes, none no",
            Verdict.INCONCLUSIVE: f"{len(shown)} of {len(found)} passes cannot decide",
        }[verdict]
        evidence_items = (Evidence(p.label, p.evidence, f"run {p.run_id}") for p in shown[:5])
        return Answer(verdict, said, tuple(evidence_items))

    return check


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
        _from_passes("TTHROTTLE-5"),
    ),
    _record(
        "TTHROTTLE-7",
        "Throttling ends below 75 °C",
        "§8.2",
        "a per-second temperature and throughput series",
        _from_passes("TTHROTTLE-7"),
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
        _from_passes("TTHROTTLE-11"),
    ),
    _record(
        "REL-5",
        "Under 1 % of power-on time above the warning temperature",
        "§6.5",
        "the SMART / Health log's Warning Composite Temperature Time and Power On Hours",
        _lifetime_share,
    ),
)
