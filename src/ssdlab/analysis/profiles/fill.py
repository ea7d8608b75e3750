"""The `fill` profile's verdict: random-write speed at each fill level, against the lowest."""

from collections.abc import Mapping, Sequence
from typing import Any

from ssdlab.model.finding_names import FILL_LEVELS
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.step import StepResult

VERDICT = FILL_LEVELS


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
            f"{first['level_pct']} % ({last['iops']:,.0f} against {first['iops']:,.0f} IOPS)"
        )
    return {VERDICT: {"levels": rows, "summary": summary, "target_kind": plan.target_kind}}
