"""The `fill` profile's verdict and report: random-write speed against how full the drive is."""

from collections.abc import Mapping, Sequence
from typing import Any

from ssdlab.model.profile import ProfilePlan, ProfileResults
from ssdlab.model.step import StepResult
from ssdlab.report import document as doc
from ssdlab.report.profile_common import compose, fmt_count, fmt_latency_us, fmt_mbps

VERDICT = "fill-levels"


def _p99(step: StepResult) -> float | None:
    found = [
        float(ns)
        for d in (step.read, step.write)
        if d is not None
        for pct, ns in d.clat_percentiles_ns
        if abs(pct - 99.0) < 1e-9
    ]
    return max(found) if found else None


def analyse_fill(
    plan: ProfilePlan,
    steps: Sequence[StepResult],
    facts: Mapping[str, Any],
    outputs: Mapping[int, str],
) -> dict[str, Any]:
    levels = {s.key: s.param("level_pct") for s in plan.steps if s.key.startswith("randwrite-")}
    rows: list[dict[str, Any]] = []
    for step in steps:
        level = levels.get(step.step_key)
        if step.discarded or not isinstance(level, int):
            continue
        rows.append(
            {
                "level_pct": level,
                "iops": step.iops,
                "bw_bytes_per_s": step.bw_bytes_per_s,
                "lat_mean_ns": step.lat_mean_ns,
                "lat_p99_ns": _p99(step),
            }
        )
    rows.sort(key=lambda r: int(r["level_pct"]))
    base = float(rows[0]["iops"]) if rows and rows[0]["iops"] else None
    for row in rows:
        row["relative_to_lowest"] = None if base is None else row["iops"] / base
    summary = None
    if len(rows) >= 2 and base and rows[-1]["iops"]:
        first, last = rows[0], rows[-1]
        speed = float(last["iops"]) / base
        how = f"{1 / speed:.2f}× slower" if speed < 1 else f"{speed:.2f}× as fast"
        summary = (
            f"at {last['level_pct']} % full random writes run {how} than at "
            f"{first['level_pct']} % ({fmt_count(last['iops'])} against "
            f"{fmt_count(first['iops'])} IOPS)"
        )
    return {VERDICT: {"levels": rows, "summary": summary, "target_kind": plan.target_kind}}


def build_fill_document(results: ProfileResults) -> doc.Document:
    found = analyse_fill(results.plan, results.steps, results.facts, results.outputs)[VERDICT]
    rows = found["levels"]
    table = doc.Table(
        "Random writes by fill level",
        ("full", "IOPS", "MB/s", "mean µs", "p99 µs", "vs lowest"),
        tuple(
            (
                f"{r['level_pct']} %",
                fmt_count(r["iops"]),
                fmt_mbps(r["bw_bytes_per_s"]),
                fmt_latency_us(r["lat_mean_ns"]),
                fmt_latency_us(r["lat_p99_ns"]),
                "n/a" if r["relative_to_lowest"] is None else f"{r['relative_to_lowest']:.2f}×",
            )
            for r in rows
        ),
        notes=(
            f"block size {results.plan.setting('block_size')} B, queue depth "
            f"{results.plan.setting('iodepth')}",
        ),
    )
    chart = doc.Chart(
        key="fill-iops",
        title="Random-write IOPS against fill level",
        x_label="% of the region written",
        y_label="IOPS",
        series=(
            doc.Series(
                "IOPS",
                tuple(float(r["level_pct"]) for r in rows),
                tuple(float(r["iops"]) for r in rows),
                "line",
            ),
        ),
    )
    verdict = [found["summary"]] if found["summary"] else []
    return compose(
        results,
        title="Fill level",
        verdict=verdict,
        sections=(doc.Section("Fill levels", tables=(table,), charts=(chart,)),),
        data=found,
    )
