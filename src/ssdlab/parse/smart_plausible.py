"""Implausible readings set aside for a plausible source of the same metric, with the reason.

Two rules, each seen on real drives:

* Temperature: a source reading 0 °C or less, or 128 °C or more (an empty SCT status field, an
  unset sensor: smartctl prints ``Current Temperature: 0 Celsius`` from the SCT status of a
  LITEON CV1-8B128 whose attribute 194 reads 45 and Device Statistics 55) is set aside when
  another source reads between those bounds.
* Counters truncated to 32 bits: a Device Statistics counter that equals a vendor or drivedb-named
  attribute modulo 2^32 counts (Crucial MX500/BX500 ``Logical Sectors Written``) is set aside for
  the full attribute (smart_checks.check_against_device_statistics finds the truncation).

Each choice is returned as a SourceChoice for the sample's ``choices`` and as a sentence for its
``flags``.
"""

from collections.abc import Mapping
from typing import Any

from ssdlab.model.health import SourceChoice
from ssdlab.parse.smart_candidates import Candidate, best_of_kind, source_of
from ssdlab.parse.smart_checks import check_against_device_statistics

TEMPERATURE_RANGE_C = (0.0, 128.0)
"""Exclusive bounds of a plausible drive temperature: a drive inside a running machine reads
above freezing, and 128 °C is past every drive's shutdown limit (and the 8-bit sign)."""

CHECKED_AGAINST_DEVSTAT = ("host_written_bytes", "host_read_bytes", "wear_used_pct")


def plausible_temperature(value: float | None) -> bool:
    low, high = TEMPERATURE_RANGE_C
    return value is not None and low < value < high


def sct_note(doc: Mapping[str, Any], current: object) -> str | None:
    """'(from SCT status)' when smartctl's temperature.current is the SCT status reading."""
    sct = doc.get("ata_sct_status")
    if not isinstance(sct, Mapping):
        return None
    temperature = sct.get("temperature")
    if isinstance(temperature, Mapping) and temperature.get("current") == current:
        return "from SCT status"
    return None


def prefer_plausible_temperature(
    candidates: list[Candidate], chosen: dict[str, Candidate]
) -> tuple[list[str], list[SourceChoice]]:
    """Set an implausible chosen temperature aside for the best plausible one."""
    best = chosen.get("temperature_c")
    if best is None or plausible_temperature(best.value.value):
        return [], []
    others = [
        c
        for c in candidates
        if c.metric == "temperature_c" and plausible_temperature(c.value.value)
    ]
    if not others:
        return [
            f"Temperature: {source_of(best)} reads {best.value.value:g} °C and no other source "
            "states the temperature; a drive in a running machine does not read that, so the "
            "sensor is most likely absent (a RAID volume, a bridge) — the figure is shown as "
            "the drive reports it."
        ], []
    alternative = max(others, key=lambda c: c.priority)
    chosen["temperature_c"] = alternative
    reading = best.value.value
    reason = (
        f"{source_of(best)} reads {reading:g} °C, which a drive in a running machine does not "
        f"report while {source_of(alternative)} reads {alternative.value.value:g} °C: that "
        "field is empty or its sensor unset"
    )
    choice = SourceChoice("temperature_c", source_of(alternative), source_of(best), reading, reason)
    return [f"Temperature: {reason}; using {source_of(alternative)}."], [choice]


def reconcile_with_device_statistics(
    candidates: list[Candidate], chosen: dict[str, Candidate]
) -> tuple[list[str], list[SourceChoice]]:
    """Attribute vs Device Statistics for the same metric: agree, truncated, or not."""
    findings: list[str] = []
    choices: list[SourceChoice] = []
    for metric in CHECKED_AGAINST_DEVSTAT:
        devstat = best_of_kind(candidates, metric, "devstat")
        vendor = best_of_kind(candidates, metric, "attribute")
        if devstat is None or vendor is None:
            continue
        texts, preferred = check_against_device_statistics(metric, devstat.value, vendor.value)
        findings += texts
        if preferred is None:
            continue
        winner, loser = (devstat, vendor) if preferred is devstat.value else (vendor, devstat)
        if chosen[metric].priority > max(devstat.priority, vendor.priority):
            continue  # a log or a user entry outranks both
        chosen[metric] = winner
        choices.append(
            SourceChoice(
                metric,
                source_of(winner),
                source_of(loser),
                loser.value.value,
                f"{source_of(loser)} is {source_of(winner)} modulo 2^32 counts: a counter "
                "truncated to 32 bits",
            )
        )
    return findings, choices
