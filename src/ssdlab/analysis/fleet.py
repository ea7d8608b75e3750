"""A fleet judged as a whole: which differences between its nodes would change the results,
and which drives are significantly slower than their siblings."""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from ssdlab.analysis.compare import (
    DEFAULT_ALPHA,
    DEFAULT_THRESHOLD_PCT,
    Change,
    MetricSamples,
    Verdict,
    compare_metric,
)
from ssdlab.analysis.merged_latency import MergedLatency
from ssdlab.model.fleet import HostCheck, Mismatch

# a clock further off than this makes a synchronized start (--start-at) miss its target skew
CLOCK_TOLERANCE_S = 0.05


def mismatches(checks: Sequence[HostCheck], local_version: str) -> list[Mismatch]:
    """The differences between the usable nodes (and this ssdlab) that matter. A different
    ssdlab or fio may run different jobs or measure differently: results would not compare.
    smartctl only reads health; clocks only move the synchronized start."""
    usable = [check for check in checks if check.usable]
    found: list[Mismatch] = []
    ssdlab_versions = _by_value(usable, lambda c: c.ssdlab_version)
    if set(ssdlab_versions) - {local_version}:
        found.append(
            Mismatch("ssdlab", True, f"ssdlab {_listing(ssdlab_versions)} (here: {local_version})")
        )
    fio_versions = _by_value(usable, lambda c: c.fio_version)
    if len(fio_versions) > 1:
        found.append(Mismatch("fio", True, f"fio {_listing(fio_versions)}"))
    smartctl_versions = _by_value(usable, lambda c: c.smartctl_version)
    if len(smartctl_versions) > 1:
        found.append(Mismatch("smartctl", False, f"smartctl {_listing(smartctl_versions)}"))
    far = [
        f"{c.host} {c.clock_offset_s:+.3f} s"
        for c in usable
        if c.clock_offset_s is not None and abs(c.clock_offset_s) > _clock_limit(c)
    ]
    if far:
        found.append(Mismatch("clock", False, "clocks off by more than 50 ms: " + ", ".join(far)))
    return found


def _clock_limit(check: HostCheck) -> float:
    return CLOCK_TOLERANCE_S + (check.clock_uncertainty_s or 0.0)


def clock_verdict(check: HostCheck) -> str | None:
    """What a node's clock reading says against CLOCK_TOLERANCE_S: "agrees" when the offset
    with its whole uncertainty stays within it, "differs" when it is off by more even at the
    uncertainty's other end, else "inconclusive" (the round trip was too long to tell);
    None when the clock was not read."""
    offset, uncertainty = check.clock_offset_s, check.clock_uncertainty_s or 0.0
    if offset is None:
        return None
    if abs(offset) > CLOCK_TOLERANCE_S + uncertainty:
        return "differs"
    if abs(offset) + uncertainty <= CLOCK_TOLERANCE_S:
        return "agrees"
    return "inconclusive"


def _by_value(
    checks: Sequence[HostCheck], value: Callable[[HostCheck], str | None]
) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for check in checks:
        found = value(check)
        grouped.setdefault(str(found) if found is not None else "missing", []).append(check.host)
    return grouped


def _listing(grouped: Mapping[str, Sequence[str]]) -> str:
    return "; ".join(f"{version} on {', '.join(hosts)}" for version, hosts in grouped.items())


@dataclass(frozen=True, slots=True)
class FleetDrive:
    """The latest run of one drive in a fleet, with the metrics it is compared by."""

    run_id: int
    host: str
    target: str
    model: str | None
    firmware: str | None
    serial: str | None
    metrics: tuple[MetricSamples, ...]


@dataclass(frozen=True, slots=True)
class SiblingChange:
    """One drive against its siblings (the other drives of its model and firmware, their
    passes pooled) on one metric."""

    drive: FleetDrive
    change: Change


@dataclass(frozen=True, slots=True)
class DriveGroup:
    model: str | None
    firmware: str | None
    drives: tuple[FleetDrive, ...]
    changes: tuple[SiblingChange, ...]  # every drive × metric judged against its siblings

    @property
    def slower(self) -> tuple[SiblingChange, ...]:
        return tuple(c for c in self.changes if c.change.verdict is Verdict.WORSE)


def _pooled(drives: Sequence[FleetDrive], key: str) -> MetricSamples | None:
    found = [m for drive in drives for m in drive.metrics if m.key == key]
    if not found:
        return None
    values = tuple(value for metric in found for value in metric.values)
    return replace(found[0], values=values, summary=None)


def group_drives(
    drives: Sequence[FleetDrive],
) -> dict[tuple[str | None, str | None], list[FleetDrive]]:
    """Drives by model and firmware, in the order first seen."""
    groups: dict[tuple[str | None, str | None], list[FleetDrive]] = {}
    for drive in drives:
        groups.setdefault((drive.model, drive.firmware), []).append(drive)
    return groups


def compare_siblings(
    drives: Sequence[FleetDrive],
    *,
    threshold_pct: float = DEFAULT_THRESHOLD_PCT,
    alpha: float = DEFAULT_ALPHA,
) -> tuple[DriveGroup, ...]:
    """Each drive against the other drives of its model and firmware, by Welch's test on the
    passes and the practical threshold of `ssdlab compare`: a drive is significantly slower
    on a metric when its verdict against its siblings is WORSE. A drive alone in its group
    has nothing to be compared with."""
    found = []
    for (model, firmware), members in group_drives(drives).items():
        changes = []
        for drive in members if len(members) > 1 else ():
            siblings = [other for other in members if other is not drive]
            for metric in drive.metrics:
                pooled = _pooled(siblings, metric.key)
                if pooled is None:
                    continue
                change = compare_metric(pooled, metric, threshold_pct=threshold_pct, alpha=alpha)
                changes.append(SiblingChange(drive, change))
        found.append(DriveGroup(model, firmware, tuple(members), tuple(changes)))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class GroupLatency:
    """One test of one group: every measured pass of every drive of the group merged, each
    pass's seconds counted from its own start (so the drives line up at a common start)."""

    model: str | None
    firmware: str | None
    test: str  # the step key
    drives: int  # drives with histograms for this test
    passes: int  # their measured passes together
    directions: dict[str, MergedLatency]
