"""The `sweep` profile's verdict and report: every cell's numbers, heatmaps and the knee.

Latency percentiles are completion latencies (fio's clat) from the json+ histograms: for a
read/write mix the two directions' histograms are added, so p99 is the p99 of all I/Os. Mean
and maximum are fio's total latency (submission + completion). The spread is p99.9 / p50.
"""

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from ssdlab.analysis.knee import KneeVerdict, SweepCell, select_knee
from ssdlab.analysis.latency_bins import merge_bins, percentile_ns
from ssdlab.model.profile import ProfilePlan, ProfileResults
from ssdlab.model.step import StepResult
from ssdlab.report import document as doc
from ssdlab.report.profile_common import compose, fmt_count, fmt_latency_us, fmt_mbps

CELLS = "sweep-cells"
KNEE = "sweep-knee"


def histogram_of(output: str) -> dict[int, int] | None:
    """Reads and writes of a group-reported fio json+ output, added; None without bins."""
    try:
        jobs = json.loads(output).get("jobs", [])
    except (json.JSONDecodeError, AttributeError):
        return None
    found = []
    for job in jobs:
        for direction in ("read", "write"):
            bins = job.get(direction, {}).get("clat_ns", {}).get("bins")
            if isinstance(bins, dict) and bins:
                found.append({int(k): int(v) for k, v in bins.items()})
    return merge_bins(found) if found else None


def _max(step: StepResult) -> float | None:
    found = [d.lat_max_ns for d in (step.read, step.write) if d and d.lat_max_ns is not None]
    return max(found) if found else None


def cell_rows(
    plan: ProfilePlan, steps: Sequence[StepResult], outputs: Mapping[int, str]
) -> list[dict[str, Any]]:
    params = {s.key: dict(s.params) for s in plan.steps if s.param("workload") is not None}
    rows = []
    for step in steps:
        p = params.get(step.step_key)
        if p is None or step.discarded:
            continue
        histogram = histogram_of(outputs.get(step.capture_id or -1, ""))
        pcts = {
            name: None if histogram is None else percentile_ns(histogram, pct)
            for name, pct in (("p50", 50.0), ("p99", 99.0), ("p999", 99.9))
        }
        p50, p999 = pcts["p50"], pcts["p999"]
        rows.append(
            {
                "workload": p["workload"],
                "threads": p["threads"],
                "iodepth": p["iodepth"],
                "iops": step.iops,
                "bw_bytes_per_s": step.bw_bytes_per_s,
                "lat_mean_ns": step.lat_mean_ns,
                "lat_p50_ns": p50,
                "lat_p99_ns": pcts["p99"],
                "lat_p999_ns": p999,
                "lat_max_ns": _max(step),
                "spread": None if not p50 or p999 is None else p999 / p50,
            }
        )
    return rows


def _cells(rows: Sequence[Mapping[str, Any]]) -> list[SweepCell]:
    return [
        SweepCell(int(r["threads"]), int(r["iodepth"]), r["iops"], r["bw_bytes_per_s"],
                  r["lat_mean_ns"], r["lat_p99_ns"], r["lat_p999_ns"], r["lat_max_ns"])
        for r in rows
    ]  # fmt: skip


def _knees(plan: ProfilePlan, rows: Sequence[Mapping[str, Any]]) -> dict[str, KneeVerdict]:
    bound_us = plan.setting("max_latency_us")
    bound = float(bound_us) * 1000 if isinstance(bound_us, int | float) else None
    metric = str(plan.setting("latency_metric"))
    knees = {}
    for workload in dict.fromkeys(r["workload"] for r in rows):
        cells = _cells([r for r in rows if r["workload"] == workload])
        knees[workload] = select_knee(cells, max_latency_ns=bound, latency_metric=metric)
    return knees


def analyse_sweep(
    plan: ProfilePlan,
    steps: Sequence[StepResult],
    facts: Mapping[str, Any],
    outputs: Mapping[int, str],
) -> dict[str, Any]:
    rows = cell_rows(plan, steps, outputs)
    knees = _knees(plan, rows)
    return {
        CELLS: {
            "cells": rows,
            "percentiles": "clat from json+ histograms, reads and writes added",
            "spread": "p99.9 / p50",
        },
        KNEE: {workload: asdict(knee) for workload, knee in knees.items()},
    }


def _workload_section(
    workload: str, rows: Sequence[Mapping[str, Any]], knee: KneeVerdict
) -> doc.Section:
    threads = sorted({int(r["threads"]) for r in rows})
    depths = sorted({int(r["iodepth"]) for r in rows})
    cell = {(int(r["threads"]), int(r["iodepth"])): r for r in rows}
    iops_table = doc.Table(
        f"{workload}: IOPS (rows threads, columns queue depth)",
        ("threads", *(f"Q{q}" for q in depths)),
        tuple(
            (f"T{t}", *(fmt_count(cell[(t, q)]["iops"]) if (t, q) in cell else "n/a"
                        for q in depths))
            for t in threads
        ),
    )  # fmt: skip
    detail = doc.Table(
        f"{workload}: every cell",
        ("cell", "IOPS", "MB/s", "mean µs", "p99 µs", "p99.9 µs", "max µs", "spread"),
        tuple(
            (f"T{r['threads']} Q{r['iodepth']}", fmt_count(r["iops"]),
             fmt_mbps(r["bw_bytes_per_s"]), fmt_latency_us(r["lat_mean_ns"]),
             fmt_latency_us(r["lat_p99_ns"]), fmt_latency_us(r["lat_p999_ns"]),
             fmt_latency_us(r["lat_max_ns"]),
             "n/a" if r["spread"] is None else f"{r['spread']:.1f}×")
            for r in rows
        ),
        notes=("spread = p99.9 / p50 completion latency",),
    )  # fmt: skip
    heat = doc.Chart(
        key=f"sweep-heatmap-{workload}",
        title=f"{workload}: IOPS by threads and queue depth",
        heat=doc.Heat("threads", "queue depth", tuple(f"T{t}" for t in threads),
                      tuple(f"Q{q}" for q in depths),
                      tuple(tuple(cell[(t, q)]["iops"] if (t, q) in cell else None
                                  for q in depths) for t in threads), "IOPS"),
    )  # fmt: skip
    metric = knee.latency_metric
    series = []
    for t in threads:
        points = sorted(
            (r for r in rows if int(r["threads"]) == t and r[f"lat_{metric}_ns"] is not None),
            key=lambda r: float(r[f"lat_{metric}_ns"]),
        )
        xs = tuple(float(r[f"lat_{metric}_ns"]) / 1000 for r in points)
        series.append(doc.Series(f"T{t}", xs, tuple(float(r["iops"]) for r in points), "line"))
    markers: tuple[doc.Marker, ...] = ()
    if knee.knee is not None and knee.knee_latency_ns is not None:
        markers = (doc.Marker("vline", f"knee {knee.knee.label}", x=knee.knee_latency_ns / 1000),)
    curve = doc.Chart(
        key=f"sweep-curve-{workload}",
        title=f"{workload}: IOPS against {metric} latency",
        x_label=f"{metric} latency (µs)",
        y_label="IOPS",
        series=tuple(series),
        markers=markers,
        x_log=True,
    )
    return doc.Section(workload, tables=(iops_table, detail), charts=(heat, curve))


def _knee_sentence(workload: str, knee: KneeVerdict) -> str:
    if knee.knee is None:
        return f"{workload}: no knee ({knee.reason})"
    bound = (
        f"most IOPS with {knee.latency_metric} ≤ {knee.max_latency_ns / 1000:g} µs"
        if knee.max_latency_ns is not None
        else "best IOPS per latency"
    )
    return (
        f"{workload}: knee at {knee.knee.label} ({bound}): {fmt_count(knee.knee.iops)} IOPS at "
        f"{fmt_latency_us(knee.knee_latency_ns)} µs {knee.latency_metric}"
        + ("" if knee.knee_iops_of_peak_pct is None else
           f", {knee.knee_iops_of_peak_pct:.0f} % of the peak")
    )  # fmt: skip


def build_sweep_document(results: ProfileResults) -> doc.Document:
    rows = cell_rows(results.plan, results.steps, results.outputs)
    knees = _knees(results.plan, rows)
    sections = [
        _workload_section(w, [r for r in rows if r["workload"] == w], knee)
        for w, knee in knees.items()
    ]
    verdict = [_knee_sentence(w, knee) for w, knee in knees.items()]
    data = analyse_sweep(results.plan, results.steps, results.facts, results.outputs)
    return compose(results, title="Threads × queue depth", verdict=verdict, sections=sections,
                   data=data)  # fmt: skip
