"""The `sweep` profile's report: every cell's numbers, heatmaps and the knee, read from the
run's stored findings (analysis/profiles/sweep.py makes them).

Latency percentiles are completion latencies (fio's clat) from the json+ histograms: for a
read/write mix the two directions' histograms are added, so p99 is the p99 of all I/Os. Mean
and maximum are fio's total latency (submission + completion). The spread is p99.9 / p50.
"""

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ssdlab.analysis.knee import KneeVerdict
from ssdlab.analysis.step_tails import PassTails as CellTails
from ssdlab.model.finding_names import SWEEP_CELLS, SWEEP_KNEE
from ssdlab.model.json_fields import decode_fields
from ssdlab.model.profile import ProfileResults
from ssdlab.model.units import (
    format_count,
    format_latency_us,
    format_mb_per_s,
    format_needs_ios,
)
from ssdlab.report import document as doc
from ssdlab.report.interval_text import error_bar, interval_of, plus_minus
from ssdlab.report.method_notes import KNEE_METHOD, method_note
from ssdlab.report.profile_common import compose, zero_or_log
from ssdlab.report.sweep_sentences import knee_sentence, monotonic_sentence, noise_note
from ssdlab.report.tail_text import passes_data

CellKey = tuple[str, int, int]  # workload, threads, queue depth
SweepTails = Mapping[CellKey, tuple[tuple[int, ...], CellTails]]

TAIL_NOTE = (
    "p99 and p99.9: each repeat's n (its I/Os in fio's json+ histogram, reads and writes "
    "added; without one, fio's total_ios and percentile table), the I/Os above and a 95 % "
    "interval from the order statistics (ends from fio's bucket bounds, or the values fio "
    "lists, '?' where it lists none), spanning every repeat's: '(low–high; A of n above)', n "
    "summed over the repeats; 'needs ≥ N I/Os' where a repeat had too few I/Os to bound it"
)


def _pm(row: Mapping[str, Any], name: str, interval: str, shown: Any) -> str:
    """A cell's figure ± half its interval (as stored; none in a row of one pass)."""
    return plus_minus(row[name], interval_of(row.get(interval)), shown)


def _tail_cell(
    row: Mapping[str, Any], name: str, interval: str, tails: CellTails, pct: float
) -> str:
    """A cell's percentile: its mean ± half its interval between repeats (as stored), then n,
    the I/Os above and the order statistics' interval; 'needs ≥ N I/Os' when a repeat had too
    few I/Os; the figure alone without a tail (no bins, no total_ios). Without bins the
    stored figure is missing and the value fio's table lists is given."""
    found = tails.get(pct)
    if interval:
        shown = _pm(row, name, interval, format_latency_us)
    else:
        shown = format_latency_us(row[name])
    if found is None:
        return shown
    tail = found[0]
    if not tail.estimable:
        return format_needs_ios(tail.needs)
    if tail.interval is None:
        return shown
    if row[name] is None:  # no json+ bins: the value fio's table lists, with its interval
        shown = format_latency_us(tail.value_ns)
    low, high = tail.interval.low, tail.interval.high
    span = f"{'?' if low is None else format_latency_us(low)}–" + (
        "?" if high is None else format_latency_us(high)
    )
    return f"{shown} ({span}; {format_count(tail.above)} of {format_count(tail.n)} above)"


def _spread(row: Mapping[str, Any], tails: CellTails) -> str:
    """p99.9 / p50, 'n/a' when p99.9 is not there or the I/Os cannot bound it."""
    p999 = tails.get(99.9)
    if row["spread"] is None or (p999 is not None and not p999[0].estimable):
        return "n/a"
    return f"{row['spread']:.1f}×"


def _workload_section(
    workload: str,
    rows: Sequence[Mapping[str, Any]],
    knee: KneeVerdict,
    tails: SweepTails,
) -> doc.Section:
    threads = sorted({int(r["threads"]) for r in rows})
    depths = sorted({int(r["iodepth"]) for r in rows})

    def mine(r: Mapping[str, Any]) -> CellTails:
        return tails.get((workload, int(r["threads"]), int(r["iodepth"])), ((), {}))[1]

    cell = {(int(r["threads"]), int(r["iodepth"])): r for r in rows}
    iops_table = doc.Table(
        f"{workload}: IOPS (rows threads, columns queue depth)",
        ("threads", *(f"Q{q}" for q in depths)),
        tuple(
            (f"T{t}", *(format_count(cell[(t, q)]["iops"]) if (t, q) in cell else "n/a"
                        for q in depths))
            for t in threads
        ),
    )  # fmt: skip
    detail = doc.Table(
        f"{workload}: every cell",
        ("cell", "IOPS", "MB/s", "mean µs", "p99 µs", "p99.9 µs", "max µs", "spread"),
        tuple(
            (f"T{r['threads']} Q{r['iodepth']}", _pm(r, "iops", "iops_interval", format_count),
             format_mb_per_s(r["bw_bytes_per_s"]), format_latency_us(r["lat_mean_ns"]),
             _tail_cell(r, "lat_p99_ns", "lat_p99_interval", mine(r), 99.0),
             _tail_cell(r, "lat_p999_ns", "", mine(r), 99.9),
             format_latency_us(r["lat_max_ns"]), _spread(r, mine(r)))
            for r in rows
        ),
        notes=("spread = p99.9 / p50 completion latency", _passes_note(rows),
               *((TAIL_NOTE,) if any(t for _, t in tails.values()) else ())),
    )  # fmt: skip
    heat = doc.Chart(
        key=f"sweep-heatmap-{workload}",
        title=f"{workload}: IOPS by threads and queue depth",
        heat=doc.Heat("threads", "queue depth", tuple(f"T{t}" for t in threads),
                      tuple(f"Q{q}" for q in depths),
                      tuple(tuple(cell[(t, q)]["iops"] if (t, q) in cell else None
                                  for q in depths) for t in threads), "I/O rate", "IOPS"),
    )  # fmt: skip
    return doc.Section(
        workload,
        tables=(iops_table, detail),
        charts=(heat, *_curves(workload, rows, threads, knee)),
        notes=(method_note(KNEE_METHOD),),
    )


def _passes_note(rows: Sequence[Mapping[str, Any]]) -> str:
    passes = max((int(r.get("passes") or 1) for r in rows), default=1)
    if passes == 1:
        return "each cell measured once: no interval"
    return (
        f"the mean of {passes} repeats of each cell; IOPS and p99 ± half their 95 % interval; "
        "max is the largest of the repeats"
    )


def _curves(
    workload: str, rows: Sequence[Mapping[str, Any]], threads: Sequence[int], knee: KneeVerdict
) -> tuple[doc.Chart, ...]:
    """IOPS against latency (in µs, or ms once a latency reaches 1 ms: short tick labels),
    one curve per thread count through its queue depths, each point labelled with its depth;
    more thread counts than a chart has colours go to further charts."""
    metric = knee.latency_metric
    latencies = [float(r[f"lat_{metric}_ns"]) for r in rows if r[f"lat_{metric}_ns"] is not None]
    unit, per_unit_ns = ("ms", 1e6) if max(latencies, default=0.0) >= 1e6 else ("µs", 1e3)
    series = []
    for t in threads:
        points = sorted(
            (r for r in rows if int(r["threads"]) == t and r[f"lat_{metric}_ns"] is not None),
            key=lambda r: float(r[f"lat_{metric}_ns"]),
        )
        if points:
            bars = [error_bar(interval_of(r.get("iops_interval"))) for r in points]
            series.append(doc.Series(
                f"T{t}",
                tuple(float(r[f"lat_{metric}_ns"]) / per_unit_ns for r in points),
                tuple(float(r["iops"]) for r in points),
                "line" if len(points) >= 2 else "points",
                errors=tuple(b or (math.nan, math.nan) for b in bars) if any(bars) else (),
                point_labels=tuple(f"QD{r['iodepth']}" for r in points),
            ))  # fmt: skip
    markers: tuple[doc.Marker, ...] = ()
    if knee.knee is not None and knee.knee_latency_ns is not None:
        x = knee.knee_latency_ns / per_unit_ns
        markers = (doc.Marker("vline", f"knee {knee.knee.label}", x=x),)
    charts = []
    for part, group in enumerate(doc.series_groups(series)):
        xs = [x for s in group for x in s.xs] + [m.x for m in markers if m.x is not None]
        y_log, y_zero = zero_or_log(y for s in group for y in s.ys)
        charts.append(doc.Chart(
            key=f"sweep-curve-{workload}" + (f"-{part + 1}" if part else ""),
            title=f"{workload}: IOPS against {metric} latency",
            x_label=f"{metric} latency", x_unit=unit, y_label="I/O rate", y_unit="IOPS",
            series=group, markers=markers, x_log=doc.spans_decades(xs), y_log=y_log,
            y_zero=y_zero,
            caption="one line per thread count (T), through its queue depths (QD); whiskers: "
            "95 % interval of the IOPS",
        ))  # fmt: skip
    return tuple(charts)


def latency_tails_data(tails: SweepTails) -> list[dict[str, Any]]:
    """Each cell's p99 and p99.9 as JSON: n, the I/Os above, the interval or the I/Os needed,
    and each repeat's own under `passes`."""
    return [
        {
            "workload": workload,
            "threads": threads,
            "iodepth": iodepth,
            "tails": {
                f"{pct:g}": passes_data(together, each, numbers)
                for pct, (together, each) in found.items()
            },
        }
        for (workload, threads, iodepth), (numbers, found) in tails.items()
        if found
    ]


def build_sweep_document(results: ProfileResults, tails: SweepTails | None = None) -> doc.Document:
    """The sweep's document from its stored findings, with each cell's tails (`tails`: the
    passes' numbers and their p99 and p99.9, analysis/profiles/sweep.cell_tails; none: no
    tails shown)."""
    tails = tails or {}
    cells = results.findings.get(SWEEP_CELLS) or {}
    stored_knees = results.findings.get(SWEEP_KNEE) or {}
    rows: list[Mapping[str, Any]] = list(cells.get("cells") or ())
    knees = {  # in the order the workloads were measured, as they were found
        workload: decode_fields(KneeVerdict, stored_knees[workload])
        for workload in dict.fromkeys(r["workload"] for r in rows)
        if workload in stored_knees
    }
    sections = [
        _workload_section(w, [r for r in rows if r["workload"] == w], knee, tails)
        for w, knee in knees.items()
    ]
    verdict = [knee_sentence(w, knee) for w, knee in knees.items()]
    verdict += [line for w, k in knees.items() if (line := monotonic_sentence(w, k))]
    note = noise_note(knees)
    if note is not None and sections:
        first = sections[0]
        sections[0] = doc.Section(first.title, first.facts, first.tables, first.charts,
                                  (*first.notes, note))  # fmt: skip
    stored = results.findings
    data: dict[str, Any] = {
        name: stored[name] for name in (SWEEP_CELLS, SWEEP_KNEE) if name in stored
    }
    if any(found for _, found in tails.values()):
        data["latency_tails"] = latency_tails_data(tails)
    return compose(results, title="Threads × queue depth", verdict=verdict, sections=sections,
                   data=data)  # fmt: skip
