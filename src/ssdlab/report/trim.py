"""The `trim` profile's report: discard support, zeroes after discard, fstrim, and random
writes on a dirty region against a discarded one, from the stored verdicts and the checks of
the zero-check and fstrim steps (analysis/profiles/trim.py makes both)."""

import math
from collections.abc import Mapping
from typing import Any

from ssdlab.model.finding_names import TRIM_EFFECT, TRIM_SUPPORT
from ssdlab.model.profile import ProfileResults
from ssdlab.model.units import format_count, format_latency_us, format_size
from ssdlab.report import document as doc
from ssdlab.report.interval_text import (
    MEASURED_ONCE,
    error_bar,
    interval_of,
    plus_minus,
    ratio_text,
)
from ssdlab.report.method_notes import TRIM_METHOD, method_note
from ssdlab.report.profile_common import compose


def build_trim_document(
    results: ProfileResults,
    zeroes: Mapping[str, Any] | None = None,
    fstrim: Mapping[str, Any] | None = None,
) -> doc.Document:
    """`zeroes` and `fstrim`: what the zero-check and fstrim steps found, None when not run."""
    stored = results.findings
    found = {name: stored[name] for name in (TRIM_SUPPORT, TRIM_EFFECT) if name in stored}
    support = found[TRIM_SUPPORT]
    effect = found.get(TRIM_EFFECT)
    facts = [
        (
            "discard",
            "unknown"
            if support["supported"] is None
            else ("yes" if support["supported"] else "no"),
        ),
        (
            "granularity",
            "n/a"
            if support["discard_granularity_bytes"] is None
            else format_size(support["discard_granularity_bytes"]),
        ),
        (
            "largest discard",
            "n/a"
            if support["discard_max_bytes"] is None
            else format_size(support["discard_max_bytes"]),
        ),
        ("zeroes after discard", "not measured" if zeroes is None else str(zeroes["sentence"])),
        ("fstrim", "not run" if fstrim is None else str(fstrim["sentence"])),
    ]
    sections = [doc.Section("Discard support", facts=tuple(facts))]
    verdict = [str(support["sentence"])]
    for extra in (zeroes, fstrim):
        if extra is not None:
            verdict.append(str(extra["sentence"]))
    if effect is not None:
        verdict.append(str(effect["sentence"]))
        sides = [(side, interval_of(effect.get(f"{side}_interval"))) for side in SIDES]
        table = doc.Table(
            "Random writes: dirty region against freshly discarded",
            ("region", "IOPS", "mean µs"),
            tuple(
                (
                    side,
                    plus_minus(effect[f"{side}_iops"], interval, format_count),
                    format_latency_us(effect[f"{side}_lat_mean_ns"]),
                )
                for side, interval in sides
            ),
            notes=(
                "discarded ÷ dirty: "
                + ratio_text(effect["ratio"], interval_of(effect.get("ratio_interval"))),
                _interval_note(effect),
            ),
        )
        bars = [error_bar(interval) for _, interval in sides]
        chart = doc.Chart(
            key="trim-effect",
            title="Random-write IOPS: dirty against discarded",
            y_label="I/O rate",
            y_unit="IOPS",
            y_zero=True,  # bars: their length is the value
            series=(
                doc.Series(
                    "IOPS",
                    (0.0, 1.0),
                    (effect["dirty_iops"], effect["discarded_iops"]),
                    "bars",
                    errors=tuple(b or (math.nan, math.nan) for b in bars) if any(bars) else (),
                ),
            ),
            x_ticks=((0.0, "dirty"), (1.0, "discarded")),
            caption="whiskers: 95 % interval of the IOPS" if any(bars) else "",
        )
        sections.append(
            doc.Section(
                "Dirty against discarded",
                tables=(table,),
                charts=(chart,),
                notes=(method_note(TRIM_METHOD),),
            )
        )
    data = {**found, "zeroes_after_discard": zeroes, "fstrim": fstrim}
    return compose(results, title="TRIM", verdict=verdict, sections=sections, data=data)


SIDES = ("dirty", "discarded")


def _interval_note(effect: Mapping[str, Any]) -> str:
    passes = effect.get("passes")
    if passes is None:
        return f"{MEASURED_ONCE}: this run was stored before ssdlab repeated its measurements"
    if passes == 1:
        return f"{MEASURED_ONCE}: each region state was written once (--repeat 1)"
    return (
        f"IOPS: the mean of {passes} rounds (each filling the region again) ± half its 95 % "
        "interval; the ratio with its 95 % interval in brackets"
    )
