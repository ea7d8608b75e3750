"""The `cachefit` profile's verdict: the quick tests direct and buffered, inside and beyond
the drive's write cache, grouped by test and direction, with the ratios that show each cache's
effect and the sentences that say it."""

from collections.abc import Mapping, Sequence
from typing import Any

from ssdlab.analysis.cachefit_table import CachefitCell, CachefitRow, CachefitTable, figure_of
from ssdlab.model.finding_names import CACHEFIT_TABLE
from ssdlab.model.profile import ProfilePlan, ProfileStep
from ssdlab.model.step import StepResult
from ssdlab.model.units import MB

VERDICT = CACHEFIT_TABLE
EFFECT_RATIO = 1.5  # a ratio at least this large counts as a cache effect


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return a / b


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
        return figure_of(cells, figure, io_mode, region)

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
    _facts: Mapping[str, Any],
    _outputs: Mapping[int, str],
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
