"""The `fill` profile's report: random-write speed against how full the drive is, from the
stored verdict (analysis/profiles/fill.py makes it), each level with its 95 % interval."""

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ssdlab.model.finding_names import FILL_LEVELS
from ssdlab.model.profile import ProfileResults
from ssdlab.model.profile_settings import FillSettings
from ssdlab.model.typed_settings import decode_settings
from ssdlab.model.units import format_count, format_latency_us, format_mb_per_s
from ssdlab.report import document as doc
from ssdlab.report.interval_text import (
    MEASURED_ONCE,
    error_bar,
    interval_of,
    plus_minus,
    ratio_text,
)
from ssdlab.report.method_notes import FILL_METHOD, method_note
from ssdlab.report.profile_common import compose, format_setting, visible_series, zero_or_log


def build_fill_document(results: ProfileResults) -> doc.Document:
    found = results.findings[FILL_LEVELS]
    rows = found["levels"]
    settings = decode_settings(FillSettings, results.plan.settings)
    table = doc.Table(
        "Random writes by fill level",
        ("full", "IOPS", "MB/s", "mean µs", "p99 µs", "vs lowest"),
        tuple(
            (
                f"{r['level_pct']} %",
                plus_minus(r["iops"], interval_of(r.get("iops_interval")), format_count),
                format_mb_per_s(r["bw_bytes_per_s"]),
                format_latency_us(r["lat_mean_ns"]),
                format_latency_us(r["lat_p99_ns"]),
                ratio_text(r["relative_to_lowest"], interval_of(r.get("relative_interval"))),
            )
            for r in rows
        ),
        notes=(
            f"block size {format_setting('block_size', settings.block_size)}, "
            f"queue depth {settings.iodepth}",
            _interval_note(rows),
            method_note(FILL_METHOD),
        ),
    )
    iops = [float(r["iops"]) for r in rows]
    y_log, y_zero = zero_or_log(iops)
    chart = doc.Chart(
        key="fill-iops",
        title="Random-write IOPS against fill level",
        x_label="fill level",
        x_unit="%",
        y_label="I/O rate",
        y_unit="IOPS",
        y_log=y_log,
        y_zero=y_zero,
        series=(
            visible_series(
                "IOPS",
                [float(r["level_pct"]) for r in rows],
                iops,
                errors=_errors(rows),
                point_labels=[
                    "" if r["relative_to_lowest"] is None else f"{r['relative_to_lowest']:.2f}×"
                    for r in rows
                ],
            ),
        ),
        caption="each point labelled with its speed against the emptiest level; whiskers: "
        "95 % interval of the IOPS",
    )
    verdict = [found["summary"]] if found["summary"] else []
    return compose(
        results,
        title="Fill level",
        verdict=verdict,
        sections=(doc.Section("Fill levels", tables=(table,), charts=(chart,)),),
        data=dict(found),
    )


def _interval_note(rows: Sequence[Mapping[str, Any]]) -> str:
    passes = max((int(r.get("passes") or 0) for r in rows), default=0)
    if passes == 0:
        return f"{MEASURED_ONCE}: this run was stored before ssdlab repeated its measurements"
    if passes == 1:
        return f"{MEASURED_ONCE}: each level's random writes ran once (--repeat 1)"
    return (
        f"IOPS: the mean of {passes} repeats ± half its 95 % interval; against the lowest "
        "level with its 95 % interval in brackets"
    )


def _errors(rows: Sequence[Mapping[str, Any]]) -> list[tuple[float, float]]:
    """Each level's whisker (NaN where it has no interval); none when no level has one."""
    bars = [error_bar(interval_of(r.get("iops_interval"))) for r in rows]
    return [b or (math.nan, math.nan) for b in bars] if any(bars) else []
