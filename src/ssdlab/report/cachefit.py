"""The `cachefit` report: the quick tests direct and buffered, inside and beyond the drive's
write cache, in one table with the ratios that show each cache's effect."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ssdlab.model.profile import ProfilePlan, ProfileResults, ProfileStep
from ssdlab.model.step import StepResult
from ssdlab.model.units import MB, format_size
from ssdlab.report import document as doc
from ssdlab.report.profile_common import compose, fmt_latency_us

VERDICT = "cachefit-table"
EFFECT_RATIO = 1.5  # a ratio at least this large counts as a cache effect
COMBINATIONS = (
    ("direct", "inside"),
    ("direct", "beyond"),
    ("buffered", "inside"),
    ("buffered", "beyond"),
)


@dataclass(frozen=True, slots=True)
class CachefitCell:
    """One measured test: a quick test, direction, I/O mode and region."""

    io_mode: str  # direct | buffered
    region: str  # inside | beyond
    region_bytes: int
    step_key: str
    bw_bytes_per_s: float
    mb_per_s: float
    iops: float
    lat_mean_ns: float | None
    bytes_moved: int | None
    covered_region: bool | None  # moved at least the whole region once


@dataclass(frozen=True, slots=True)
class CachefitRow:
    """One quick test in one direction, its (up to) four cells and their ratios. `figure`
    names what the ratios compare: MB/s for sequential tests, IOPS for random ones."""

    test: str  # SEQ1M Q8T1
    pattern: str  # seq | rnd
    direction: str  # read | write
    figure: str  # mb_per_s | iops
    cells: tuple[CachefitCell, ...]
    buffered_over_direct_inside: float | None
    buffered_over_direct_beyond: float | None
    inside_over_beyond_direct: float | None
    inside_over_beyond_buffered: float | None

    @property
    def name(self) -> str:
        return f"{self.test} {self.direction}"

    def cell(self, io_mode: str, region: str) -> CachefitCell | None:
        return next((c for c in self.cells if (c.io_mode, c.region) == (io_mode, region)), None)

    def value(self, io_mode: str, region: str) -> float | None:
        return _figure_of(self.cells, self.figure, io_mode, region)


@dataclass(frozen=True, slots=True)
class CachefitTable:
    """The verdict: every row, the cache size it was planned from, and the criterion."""

    cache_bytes: int | None
    inside_bytes: int | None
    beyond_bytes: int | None  # None: the beyond region did not fit on the target
    effect_ratio: float
    rows: tuple[CachefitRow, ...]
    page_cache_effect: tuple[str, ...]  # rows with buffered/direct >= effect_ratio
    drive_cache_effect: tuple[str, ...]  # write rows with direct inside/beyond >= effect_ratio
    not_covered: tuple[str, ...]  # write steps that wrote fewer bytes than their region
    sentences: tuple[str, ...]


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return a / b


def _figure_of(
    cells: Sequence[CachefitCell], figure: str, io_mode: str, region: str
) -> float | None:
    """MB/s or IOPS of the cell with this mode and region, None when it was not measured."""
    for cell in cells:
        if (cell.io_mode, cell.region) == (io_mode, region):
            return cell.mb_per_s if figure == "mb_per_s" else cell.iops
    return None


def _int_param(step: ProfileStep, name: str) -> int | None:
    value = step.param(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _cell(step: ProfileStep, result: StepResult) -> CachefitCell | None:
    size = _int_param(step, "region_bytes")
    mode, region = step.param("io_mode"), step.param("region")
    if size is None or not isinstance(mode, str) or not isinstance(region, str):
        return None
    metrics = result.read if step.direction == "read" else result.write
    moved = metrics.io_bytes if metrics is not None else None
    return CachefitCell(
        io_mode=mode,
        region=region,
        region_bytes=size,
        step_key=step.key,
        bw_bytes_per_s=result.bw_bytes_per_s,
        mb_per_s=result.bw_bytes_per_s / MB,
        iops=result.iops,
        lat_mean_ns=result.lat_mean_ns,
        bytes_moved=moved,
        covered_region=None if moved is None else moved >= size,
    )


def cachefit_rows(plan: ProfilePlan, steps: Sequence[StepResult]) -> tuple[CachefitRow, ...]:
    """The measured steps grouped by quick test and direction, in plan order."""
    by_key = {step.key: step for step in plan.steps}
    results = {r.step_key: r for r in steps if not r.discarded}
    grouped: dict[tuple[str, str], list[CachefitCell]] = {}
    patterns: dict[tuple[str, str], str] = {}
    for step in plan.steps:
        test, pattern = step.param("test"), step.param("pattern")
        if not isinstance(test, str) or not isinstance(pattern, str):
            continue
        group = (test, step.direction)
        grouped.setdefault(group, [])
        patterns[group] = pattern
        result = results.get(step.key)
        cell = None if result is None else _cell(by_key[step.key], result)
        if cell is not None:
            grouped[group].append(cell)
    return tuple(
        _row(test, patterns[(test, direction)], direction, tuple(cells))
        for (test, direction), cells in grouped.items()
    )


def _row(test: str, pattern: str, direction: str, cells: tuple[CachefitCell, ...]) -> CachefitRow:
    figure = "mb_per_s" if pattern == "seq" else "iops"

    def value(io_mode: str, region: str) -> float | None:
        return _figure_of(cells, figure, io_mode, region)

    return CachefitRow(
        test,
        pattern,
        direction,
        figure,
        cells,
        buffered_over_direct_inside=_ratio(value("buffered", "inside"), value("direct", "inside")),
        buffered_over_direct_beyond=_ratio(value("buffered", "beyond"), value("direct", "beyond")),
        inside_over_beyond_direct=_ratio(value("direct", "inside"), value("direct", "beyond")),
        inside_over_beyond_buffered=_ratio(
            value("buffered", "inside"), value("buffered", "beyond")
        ),
    )


def _largest(rows: Sequence[CachefitRow], ratios: Sequence[str]) -> tuple[str, float] | None:
    found = [
        (f"{row.name} ({name.rsplit('_', 1)[-1]})", value)
        for row in rows
        for name in ratios
        if (value := getattr(row, name)) is not None
    ]
    return max(found, key=lambda item: item[1]) if found else None


def _tests(count: int) -> str:
    return f"{count} test" + ("" if count == 1 else "s")


def _sentences(
    rows: Sequence[CachefitRow],
    page: Sequence[str],
    drive: Sequence[str],
    not_covered: Sequence[str],
    beyond_bytes: int | None,
) -> tuple[str, ...]:
    said: list[str] = []
    if not rows or all(not row.cells for row in rows):
        return ("No test finished, so there is nothing to compare.",)
    page_ratios = ("buffered_over_direct_inside", "buffered_over_direct_beyond")
    top = _largest(rows, page_ratios)
    if top is None:
        said.append("Buffered and direct figures cannot be compared: one of the two is missing.")
    elif page:
        said.append(
            f"Through the page cache {len(page)} of {_tests(len(rows))} ran at least "
            f"{EFFECT_RATIO:g}× their direct-I/O figure (largest {top[1]:.1f}×, {top[0]}): "
            "those buffered figures are mostly RAM, not the drive."
        )
    else:
        said.append(
            f"Buffered and direct figures are within {EFFECT_RATIO:g}× of each other (largest "
            f"{top[1]:.2f}×): the page cache did not change the picture here."
        )
    if beyond_bytes is None:
        said.append(
            "The beyond-cache region did not fit on the target, so the drive-cache effect "
            "was not measured."
        )
    else:
        writes = [row for row in rows if row.direction == "write"]
        top = _largest(writes, ("inside_over_beyond_direct",))
        if top is None:
            said.append(
                "Direct writes inside and beyond the cache cannot be compared: one of the two "
                "is missing."
            )
        elif drive:
            said.append(
                f"{_tests(len(drive))} of direct writes ran at least {EFFECT_RATIO:g}× faster "
                f"inside the drive's write cache than beyond it (largest {top[1]:.1f}×, "
                f"{top[0]}): small test sizes flatter this drive's writes."
            )
        else:
            said.append(
                f"Direct writes inside and beyond the cache are within {EFFECT_RATIO:g}× of each "
                f"other (largest {top[1]:.2f}×): no drive-cache effect showed at these sizes."
            )
    if not_covered:
        said.append(
            f"{_tests(len(not_covered))} of writes wrote fewer bytes than their region in "
            "--runtime, so a beyond test among them may not have overflowed the drive's cache; "
            "a longer --runtime makes sure."
        )
    return tuple(said)


def analyse_cachefit(
    plan: ProfilePlan,
    steps: Sequence[StepResult],
    facts: Mapping[str, Any],
    outputs: Mapping[int, str],
) -> dict[str, CachefitTable]:
    rows = cachefit_rows(plan, steps)
    page = tuple(
        row.name
        for row in rows
        if any(
            r is not None and r >= EFFECT_RATIO
            for r in (row.buffered_over_direct_inside, row.buffered_over_direct_beyond)
        )
    )
    drive = tuple(
        row.name
        for row in rows
        if row.direction == "write"
        and row.inside_over_beyond_direct is not None
        and row.inside_over_beyond_direct >= EFFECT_RATIO
    )
    not_covered = tuple(
        cell.step_key
        for row in rows
        if row.direction == "write"
        for cell in row.cells
        if cell.covered_region is False
    )
    beyond = _plan_int(plan, "beyond_bytes")
    table = CachefitTable(
        cache_bytes=_plan_int(plan, "cache_bytes"),
        inside_bytes=_plan_int(plan, "inside_bytes"),
        beyond_bytes=beyond,
        effect_ratio=EFFECT_RATIO,
        rows=rows,
        page_cache_effect=page,
        drive_cache_effect=drive,
        not_covered=not_covered,
        sentences=_sentences(rows, page, drive, not_covered, beyond),
    )
    return {VERDICT: table}


def _plan_int(plan: ProfilePlan, name: str) -> int | None:
    value = plan.param(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _fmt_figure(row: CachefitRow, io_mode: str, region: str) -> str:
    value = row.value(io_mode, region)
    if value is None:
        return "—"
    return f"{value:,.1f}" if row.figure == "mb_per_s" else f"{value:,.0f}"


def _fmt_ratio_pair(first: float | None, second: float | None) -> str:
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
                *(_fmt_figure(row, mode, region) for mode, region in combos),
                _fmt_ratio_pair(row.buffered_over_direct_inside, row.buffered_over_direct_beyond),
                _fmt_ratio_pair(row.inside_over_beyond_direct, row.inside_over_beyond_buffered),
            )
            for row in table.rows
        ),
        notes=(
            f"MB = 10^6 bytes; a ratio of {table.effect_ratio:g}× or more counts as a cache "
            "effect; — : not measured",
        ),
    )
    latency = doc.Table(
        "Mean latency (µs)",
        ("test", *(_column(mode, region, table) for mode, region in combos)),
        tuple(
            (
                row.name,
                *(
                    fmt_latency_us(cell.lat_mean_ns) if (cell := row.cell(*c)) else "—"
                    for c in combos
                ),
            )
            for row in table.rows
        ),
    )
    return figures, latency


def _chart(table: CachefitTable, pattern: str) -> doc.Chart | None:
    rows = [row for row in table.rows if row.pattern == pattern and row.cells]
    if not rows:
        return None
    xs = tuple(float(i) for i in range(len(rows)))
    series = tuple(
        doc.Series(
            _column(mode, region, table),
            xs,
            tuple(row.value(mode, region) or 0.0 for row in rows),
            "bars",
        )
        for mode, region in COMBINATIONS
        if any(row.cell(mode, region) for row in rows)
    )
    unit = "MB/s" if pattern == "seq" else "IOPS"
    return doc.Chart(
        key=f"cachefit-{pattern}",
        title=f"{'Sequential' if pattern == 'seq' else 'Random'} tests ({unit}): direct and "
        "buffered, inside and beyond the cache",
        x_label="test",
        y_label=unit,
        series=series,
        x_ticks=tuple((float(i), row.name) for i, row in enumerate(rows)),
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
    analysed = analyse_cachefit(results.plan, results.steps, results.facts, results.outputs)
    table = analysed[VERDICT]
    figures, latency = _tables(table)
    charts = tuple(c for c in (_chart(table, "seq"), _chart(table, "rnd")) if c is not None)
    cache = table.cache_bytes
    from_run = dict(results.plan.settings).get("from_run")
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
            tables=(figures, latency),
            charts=charts,
            notes=INTERPRETATION,
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
                    }
                    for c in row.cells
                ],
            }
            for row in table.rows
        ],
    }
