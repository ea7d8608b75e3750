"""The `cachefit` profile's verdict: the quick tests direct and buffered, inside and beyond
the drive's write cache, grouped by test and direction, with the ratios that show each cache's
effect and the sentences that say it.

Each test runs `--repeat` times (in rounds: every read, then a rest and every write): a cell's
figures are the means of its passes with Student's 95 % intervals, each ratio its interval,
and a ratio is a cache effect when its whole interval is at or past `EFFECT_RATIO` (yes), not
one when all of it is short of it (no), inconclusive when it straddles it.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from ssdlab.analysis.cachefit_table import (
    CachefitCell,
    CachefitRow,
    CachefitTable,
    JudgedRatio,
    figure_of,
)
from ssdlab.analysis.intervals import Sample, mean_interval, ratio_interval, sample_of_repeats
from ssdlab.analysis.verdict_state import State, at_least
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


def _cell(step: ProfileStep, passes: Sequence[StepResult]) -> CachefitCell | None:
    size = _int_param(step, "region_bytes")
    mode, region = step.param("io_mode"), step.param("region")
    if size is None or not isinstance(mode, str) or not isinstance(region, str) or not passes:
        return None
    moved = [
        m.io_bytes
        for r in passes
        if (m := r.read if step.direction == "read" else r.write) is not None
    ]
    bw = sample_of_repeats([r.bw_bytes_per_s / MB for r in passes])
    iops = sample_of_repeats([r.iops for r in passes])
    latencies = [r.lat_mean_ns for r in passes if r.lat_mean_ns is not None]
    least = min(moved) if len(moved) == len(passes) else None
    return CachefitCell(
        io_mode=mode,
        region=region,
        region_bytes=size,
        step_key=step.key,
        bw_bytes_per_s=bw.mean * MB,
        mb_per_s=bw.mean,
        iops=iops.mean,
        lat_mean_ns=sum(latencies) / len(latencies) if len(latencies) == len(passes) else None,
        bytes_moved=least,
        covered_region=None if least is None else least >= size,
        passes=len(passes),
        mb_per_s_interval=mean_interval(bw),
        iops_interval=mean_interval(iops),
    )


Samples = Mapping[tuple[str, str], Sample]  # (io_mode, region) → the figure's sample


def cachefit_rows(plan: ProfilePlan, steps: Sequence[StepResult]) -> tuple[CachefitRow, ...]:
    """The measured steps grouped by quick test and direction, in plan order."""
    by_key = {step.key: step for step in plan.all_steps}
    results: dict[str, list[StepResult]] = {}
    for r in steps:
        if not r.discarded:
            results.setdefault(r.step_key, []).append(r)
    grouped: dict[tuple[str, str], list[CachefitCell]] = {}
    samples: dict[tuple[str, str], dict[tuple[str, str], Sample]] = {}
    patterns: dict[tuple[str, str], str] = {}
    for step in plan.all_steps:
        test, pattern = step.param("test"), step.param("pattern")
        if not isinstance(test, str) or not isinstance(pattern, str):
            continue
        group = (test, step.direction)
        grouped.setdefault(group, [])
        samples.setdefault(group, {})
        patterns[group] = pattern
        cell = _cell(by_key[step.key], results.get(step.key, ()))
        if cell is not None:
            grouped[group].append(cell)
            passes = results[step.key]
            figures = [r.bw_bytes_per_s / MB if pattern == "seq" else r.iops for r in passes]
            samples[group][(cell.io_mode, cell.region)] = sample_of_repeats(figures)
    return tuple(
        _row(test, patterns[(test, direction)], direction, tuple(cells), samples[(test, direction)])
        for (test, direction), cells in grouped.items()
    )


RATIOS = (  # (field, numerator (mode, region), denominator)
    ("buffered_over_direct_inside", ("buffered", "inside"), ("direct", "inside")),
    ("buffered_over_direct_beyond", ("buffered", "beyond"), ("direct", "beyond")),
    ("inside_over_beyond_direct", ("direct", "inside"), ("direct", "beyond")),
    ("inside_over_beyond_buffered", ("buffered", "inside"), ("buffered", "beyond")),
)


def _row(
    test: str,
    pattern: str,
    direction: str,
    cells: tuple[CachefitCell, ...],
    samples: Samples,
) -> CachefitRow:
    figure = "mb_per_s" if pattern == "seq" else "iops"

    def value(io_mode: str, region: str) -> float | None:
        return figure_of(cells, figure, io_mode, region)

    ratios = {name: _ratio(value(*top), value(*bottom)) for name, top, bottom in RATIOS}
    judged = []
    for name, top, bottom in RATIOS:
        ratio = ratios[name]
        if ratio is None or top not in samples or bottom not in samples:
            continue
        interval = ratio_interval(samples[top], samples[bottom])
        judged.append(JudgedRatio(name, interval, at_least(ratio, interval, EFFECT_RATIO).value))
    return CachefitRow(
        test,
        pattern,
        direction,
        figure,
        cells,
        buffered_over_direct_inside=ratios["buffered_over_direct_inside"],
        buffered_over_direct_beyond=ratios["buffered_over_direct_beyond"],
        inside_over_beyond_direct=ratios["inside_over_beyond_direct"],
        inside_over_beyond_buffered=ratios["inside_over_beyond_buffered"],
        judged=tuple(judged),
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
    page_names = ("buffered_over_direct_inside", "buffered_over_direct_beyond")
    drive_names = ("inside_over_beyond_direct",)
    writes = [row for row in rows if row.direction == "write"]
    page = _with_state(rows, page_names, State.YES)
    drive = _with_state(writes, drive_names, State.YES)
    page_unsure = tuple(n for n in _with_state(rows, page_names, State.INCONCLUSIVE)
                        if n not in page)  # fmt: skip
    drive_unsure = _with_state(writes, drive_names, State.INCONCLUSIVE)
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
        sentences=(
            *_sentences(rows, page, drive, not_covered, beyond),
            *_unsure_sentences(page_unsure, drive_unsure),
        ),
        page_cache_inconclusive=page_unsure,
        drive_cache_inconclusive=drive_unsure,
    )
    return {VERDICT: table}


def _plan_int(plan: ProfilePlan, name: str) -> int | None:
    value = plan.param(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _with_state(rows: Sequence[CachefitRow], names: Sequence[str], state: State) -> tuple[str, ...]:
    """The rows one of whose ratios `names` is judged `state`."""
    return tuple(
        row.name
        for row in rows
        if any((j := row.judged_ratio(name)) is not None and j.state == state for name in names)
    )


def _unsure_sentences(page: Sequence[str], drive: Sequence[str]) -> tuple[str, ...]:
    """What the repeats could not decide: ratios whose 95 % interval straddles EFFECT_RATIO."""
    said = []
    if page:
        said.append(
            f"Page-cache effect inconclusive for {_tests(len(page))} ({', '.join(page)}): the "
            f"95 % interval of buffered/direct straddles {EFFECT_RATIO:g}×; more --repeat "
            "narrows it."
        )
    if drive:
        said.append(
            f"Drive-cache effect inconclusive for {_tests(len(drive))} ({', '.join(drive)}): "
            f"the 95 % interval of direct inside/beyond straddles {EFFECT_RATIO:g}×; more "
            "--repeat narrows it."
        )
    return tuple(said)
