"""The `cachefit` report: the quick tests direct and buffered, inside and beyond the drive's
write cache, in one table with the ratios that show each cache's effect, from the stored
verdict (analysis/profiles/cachefit.py makes it)."""

import math
from typing import Any

from ssdlab.analysis.cachefit_table import CachefitCell, CachefitRow, CachefitTable
from ssdlab.analysis.intervals import Interval
from ssdlab.model.finding_names import CACHEFIT_TABLE
from ssdlab.model.json_fields import decode_fields
from ssdlab.model.profile import ProfileResults
from ssdlab.model.profile_settings import CachefitSettings
from ssdlab.model.typed_settings import decode_settings
from ssdlab.model.units import format_latency_us, format_size
from ssdlab.report import document as doc
from ssdlab.report.interval_text import (
    MEASURED_ONCE,
    error_bar,
    interval_data,
    plus_minus,
    ratio_text,
)
from ssdlab.report.method_notes import CACHEFIT_METHOD, method_note
from ssdlab.report.profile_common import compose

COMBINATIONS = (
    ("direct", "inside"),
    ("direct", "beyond"),
    ("buffered", "inside"),
    ("buffered", "beyond"),
)


def _figure_interval(row: CachefitRow, cell: CachefitCell) -> Interval | None:
    return cell.mb_per_s_interval if row.figure == "mb_per_s" else cell.iops_interval


def _format_figure(row: CachefitRow, io_mode: str, region: str) -> str:
    value = row.value(io_mode, region)
    cell = row.cell(io_mode, region)
    if value is None or cell is None:
        return "—"

    def shown(v: float) -> str:
        return f"{v:,.1f}" if row.figure == "mb_per_s" else f"{v:,.0f}"

    return plus_minus(value, _figure_interval(row, cell), shown)


RATIO_NAMES = {
    "buffered_over_direct_inside": "buffered/direct, inside",
    "buffered_over_direct_beyond": "buffered/direct, beyond",
    "inside_over_beyond_direct": "inside/beyond, direct",
    "inside_over_beyond_buffered": "inside/beyond, buffered",
}


def _effects_table(table: CachefitTable) -> doc.Table | None:
    """Every ratio measured, with its 95 % interval and whether it is a cache effect; None for
    a verdict stored before ssdlab judged them."""
    rows = tuple(
        (
            row.name,
            RATIO_NAMES.get(judged.name, judged.name),
            ratio_text(getattr(row, judged.name), judged.interval),
            judged.state,
        )
        for row in table.rows
        for judged in row.judged
    )
    if not rows:
        return None
    return doc.Table(
        "Cache effects: each ratio with its 95 % interval",
        ("test", "ratio", "value (95 % interval)", "effect"),
        rows,
        notes=(
            f"an effect is a ratio of {table.effect_ratio:g}× or more: yes when the whole "
            "interval is at or past it, no when none of it is, inconclusive when it straddles "
            "it",
        ),
    )


def _interval_note(table: CachefitTable) -> str:
    passes = max((c.passes for row in table.rows for c in row.cells), default=1)
    if not any(row.judged for row in table.rows):
        return f"{MEASURED_ONCE}: this run was stored before ssdlab repeated its measurements"
    if passes == 1:
        return f"{MEASURED_ONCE}: each test ran once (--repeat 1)"
    return f"figures: the mean of {passes} repeats ± half its 95 % interval"


def _format_ratio_pair(first: float | None, second: float | None) -> str:
    def one(value: float | None) -> str:
        return "—" if value is None else f"{value:.2f}×"

    return f"{one(first)} / {one(second)}"


def _column(io_mode: str, region: str, table: CachefitTable) -> str:
    size = table.inside_bytes if region == "inside" else table.beyond_bytes
    return f"{io_mode} {region}" + (f" ({format_size(size)})" if size is not None else "")


def _tables(table: CachefitTable) -> tuple[doc.Table, doc.Table]:
    combos = [c for c in COMBINATIONS if any(r.cell(*c) for r in table.rows)] or list(COMBINATIONS)
    figures = doc.Table(
        "MB/s (SEQ) and IOPS (RND): direct and buffered, inside and beyond the drive's cache",
        (
            "test",
            "unit",
            *(_column(mode, region, table) for mode, region in combos),
            "buffered/direct: inside / beyond",
            "inside/beyond: direct / buffered",
        ),
        tuple(
            (
                row.name,
                "MB/s" if row.figure == "mb_per_s" else "IOPS",
                *(_format_figure(row, mode, region) for mode, region in combos),
                _format_ratio_pair(
                    row.buffered_over_direct_inside, row.buffered_over_direct_beyond
                ),
                _format_ratio_pair(row.inside_over_beyond_direct, row.inside_over_beyond_buffered),
            )
            for row in table.rows
        ),
        notes=(
            f"MB = 10^6 bytes; a ratio of {table.effect_ratio:g}× or more counts as a cache "
            "effect; — : not measured",
            _interval_note(table),
        ),
    )
    latency = doc.Table(
        "Mean latency (µs)",
        ("test", *(_column(mode, region, table) for mode, region in combos)),
        tuple(
            (
                row.name,
                *(
                    format_latency_us(cell.lat_mean_ns) if (cell := row.cell(*c)) else "—"
                    for c in combos
                ),
            )
            for row in table.rows
        ),
    )
    return figures, latency


def _chart(table: CachefitTable, pattern: str) -> doc.Chart | None:
    """One bar per measured combination over each test; over more than two decades (the page
    cache against the drive) dots on a log axis, as a bar needs a zero to stand on."""
    rows = [row for row in table.rows if row.pattern == pattern and row.cells]
    if not rows:
        return None
    series = []
    for mode, region in COMBINATIONS:
        values = [
            (float(i), row.value(mode, region), cell, row)
            for i, row in enumerate(rows)
            if (cell := row.cell(mode, region)) is not None
        ]
        measured = [(x, v, error_bar(_figure_interval(r, c))) for x, v, c, r in values
                    if v is not None]  # fmt: skip
        if measured:
            errors = [e or (math.nan, math.nan) for _, _, e in measured]
            series.append(doc.Series(_column(mode, region, table),
                                     tuple(x for x, _, _ in measured),
                                     tuple(y for _, y, _ in measured), "bars",
                                     errors=tuple(errors) if any(e for *_, e in measured)
                                     else ()))  # fmt: skip
    shown, y_log = doc.bars_or_dots(series)
    unit = "MB/s" if pattern == "seq" else "IOPS"
    # one test shape (the usual case): named in the title, the ticks short (read, write)
    shapes = sorted({row.test for row in rows})
    one_shape = len(shapes) == 1
    kind = "Sequential" if pattern == "seq" else "Random"
    tests = shapes[0] if one_shape else f"{kind} tests"
    return doc.Chart(
        key=f"cachefit-{pattern}",
        title=f"{tests} ({unit}): direct and buffered, inside and beyond the cache",
        x_label="direction" if one_shape else "test",
        y_label="throughput" if pattern == "seq" else "I/O rate",
        y_unit=unit,
        y_log=y_log,
        y_zero=not y_log,
        series=shown,
        x_ticks=tuple(
            (float(i), row.direction if one_shape else row.name) for i, row in enumerate(rows)
        ),
    )


INTERPRETATION = (
    "Direct I/O skips the page cache but not the drive's own cache: a drive's DRAM or SLC "
    "cache absorbs writes until it is full, so the inside region shows the cached speed and "
    "the beyond region what is left once the cache overflows.",
    "Buffered reads: fio drops this test file's cached pages before each buffered test "
    "(invalidate=1; nothing is dropped system-wide), so the first pass over the region comes "
    "from the drive; the timed test then reads the same region again, and every pass after "
    "the first is served from RAM when the region fits in free memory. A large buffered/direct "
    "read ratio is the page cache, not the drive.",
    "Buffered writes land in RAM and are written back later; each buffered write test ends "
    "with an fsync (end_fsync=1), so its time includes writing the data back, but a short "
    "test over a small region still mostly measures memory copies.",
    "Reads do not pass through a write cache; where inside and beyond reads differ, the "
    "drive's read cache or mapping-table cache (or the host below a virtual disk) is the "
    "cause, so the drive-cache verdict looks at direct writes only.",
    "A time-based write test that writes fewer bytes than its region has not written the "
    "whole region once; for the beyond region that means it may not have overflowed the "
    "drive's cache (counted in the verdict, listed in the JSON as not_covered; raise "
    "--runtime).",
)


def build_cachefit_document(results: ProfileResults) -> doc.Document:
    table = decode_fields(CachefitTable, results.findings[CACHEFIT_TABLE])
    figures, latency = _tables(table)
    effects = _effects_table(table)
    charts = tuple(c for c in (_chart(table, "seq"), _chart(table, "rnd")) if c is not None)
    cache = table.cache_bytes
    from_run = decode_settings(CachefitSettings, results.plan.settings).from_run
    source = "given (--cache-size)" if from_run is None else f"from run {from_run}'s cache cliff"
    facts = (
        ("drive write cache", "n/a" if cache is None else f"{format_size(cache)}, {source}"),
        ("inside region", _size_text(table.inside_bytes)),
        ("beyond region", _size_text(table.beyond_bytes, "left out (does not fit)")),
    )
    sections = (
        doc.Section(
            "Page cache and drive cache",
            facts=facts,
            tables=(figures, *((effects,) if effects else ()), latency),
            charts=charts,
            notes=(*INTERPRETATION, method_note(CACHEFIT_METHOD)),
        ),
    )
    return compose(
        results,
        title=f"ssdlab cachefit — {results.run.target_path}",
        verdict=table.sentences,
        sections=sections,
        data=_data(table),
    )


def _size_text(size: int | None, missing: str = "n/a") -> str:
    return missing if size is None else f"{size:,} B ({format_size(size)})"


def _data(table: CachefitTable) -> dict[str, Any]:
    return {
        "cache_bytes": table.cache_bytes,
        "inside_bytes": table.inside_bytes,
        "beyond_bytes": table.beyond_bytes,
        "effect_ratio": table.effect_ratio,
        "page_cache_effect": list(table.page_cache_effect),
        "drive_cache_effect": list(table.drive_cache_effect),
        "not_covered": list(table.not_covered),
        "page_cache_inconclusive": list(table.page_cache_inconclusive),
        "drive_cache_inconclusive": list(table.drive_cache_inconclusive),
        "rows": [
            {
                "test": row.test,
                "pattern": row.pattern,
                "direction": row.direction,
                "figure": row.figure,
                "buffered_over_direct_inside": row.buffered_over_direct_inside,
                "buffered_over_direct_beyond": row.buffered_over_direct_beyond,
                "inside_over_beyond_direct": row.inside_over_beyond_direct,
                "inside_over_beyond_buffered": row.inside_over_beyond_buffered,
                "judged": [
                    {"name": j.name, "interval": interval_data(j.interval), "state": j.state}
                    for j in row.judged
                ],
                "cells": [
                    {
                        "io_mode": c.io_mode,
                        "region": c.region,
                        "region_bytes": c.region_bytes,
                        "step_key": c.step_key,
                        "bw_bytes_per_s": c.bw_bytes_per_s,
                        "mb_per_s": c.mb_per_s,
                        "iops": c.iops,
                        "lat_mean_ns": c.lat_mean_ns,
                        "bytes_moved": c.bytes_moved,
                        "covered_region": c.covered_region,
                        "passes": c.passes,
                        "mb_per_s_interval": interval_data(c.mb_per_s_interval),
                        "iops_interval": interval_data(c.iops_interval),
                    }
                    for c in row.cells
                ],
            }
            for row in table.rows
        ],
    }
