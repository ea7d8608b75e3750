"""A drive held against the OCP Datacenter NVMe SSD Specification, requirement by requirement.

`DriveEvidence` is everything the checks read (the logs, the Identify data, stored readings
and stored `qos` verdicts), each with the command or file it came from; `RequirementResult` is
one requirement answered: pass, fail, inconclusive, or not checkable on this drive with the
reason, and the evidence (the field, its raw value, where it was read) it was answered from.
analysis/conformance/ holds the checks; docs/conformance.md lists them with their sources.
"""

from dataclasses import dataclass
from enum import StrEnum

from ssdlab.model.health import HealthSample
from ssdlab.model.nvme_identify import IdentifyController
from ssdlab.model.ocp_logs import LatencyMonitorLog, OcpSmartLog
from ssdlab.model.thermal import ThermalCounters, ThermalLimits


class Verdict(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"  # read, but what was read cannot decide
    NOT_CHECKABLE = "not checkable"  # the evidence it needs is not there; the reason says why


@dataclass(frozen=True, slots=True)
class Evidence:
    """One thing a verdict was read from: `item` names it (a log field with its bytes, a
    measured figure), `value` is what was read, with its unit, `source` the command or file."""

    item: str
    value: str
    source: str


@dataclass(frozen=True, slots=True)
class RequirementResult:
    requirement: str  # "SMART-12", "TTHROTTLE-9"
    title: str
    section: str  # "§4.8.5"
    group: str
    verdict: Verdict
    reason: str  # why it passed or failed, or why it cannot be checked here
    evidence: tuple[Evidence, ...] = ()


@dataclass(frozen=True, slots=True)
class LogPage:
    """An OCP log page as read: `log` decoded, or None with `problem` saying why; `guid` as
    the page carried it (nvme-cli's spelling, lower case hex), also when the page was refused;
    `page` the raw 512 bytes when the input was the page itself (a hex dump or `-b` file)."""

    source: str
    log: OcpSmartLog | LatencyMonitorLog | None = None
    problem: str | None = None
    guid: str | None = None
    version: int | None = None
    page: bytes | None = None


@dataclass(frozen=True, slots=True)
class WearReading:
    """One health reading's Percentage Used (NVMe SMART / Health log byte 5): a stored sample,
    or (`sample_id` None) the reading made now."""

    sample_id: int | None
    taken_at_s: float | None
    wear_used_pct: float


@dataclass(frozen=True, slots=True)
class QosJudged:
    """One target of a stored `qos` run's verdict, as it was judged and stored."""

    run_id: int
    workload: str
    requirement: str  # "CTO-3", "TRIM-6", "App. A.2.1"
    check: str
    outcome: str  # pass | fail | inconclusive
    sentence: str


@dataclass(frozen=True, slots=True)
class PassCheck:
    """One thermal requirement as one stored pass's per-second temperature and throughput
    series answered it (runner/pass_thermal.py, analysis/thermal_checks.py): `state` yes, no
    or inconclusive, None when it cannot be checked on this drive (`evidence` says why)."""

    run_id: int
    label: str  # the pass, e.g. "seq1m-q8t1-write #1"
    requirement: str
    state: str | None
    evidence: str


@dataclass(frozen=True, slots=True)
class DriveEvidence:
    """What the checks read; None (or empty) where the input did not have it. `sources` lists
    every input read, in order; `health_source` the one the SMART / Health values came from."""

    drive: str = ""
    sources: tuple[str, ...] = ()
    health: HealthSample | None = None
    health_source: str = ""
    counters: ThermalCounters | None = None
    limits: ThermalLimits | None = None
    identify: IdentifyController | None = None
    smart_page: LogPage | None = None  # C0h
    latency_page: LogPage | None = None  # C3h
    wear_history: tuple[WearReading, ...] = ()
    wear_history_source: str = ""
    qos: tuple[QosJudged, ...] = ()
    qos_runs: tuple[int, ...] = ()  # every run given with --run (qos or not)
    qos_targets: tuple[str, ...] = ()  # what each of `qos_runs` measured (its target path)
    passes: tuple[PassCheck, ...] = ()  # the thermal checks of those runs' passes
