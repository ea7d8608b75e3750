"""The `sweep` verdict: mixed percentiles from added histograms, the knee per workload."""

import json
from dataclasses import replace

from ssdlab.analysis.profiles.sweep import CELLS, KNEE, SweepCells, analyse_sweep, histogram_of
from ssdlab.model.profile import ProfileResults
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.parse.fio_histogram import clat_bins_by_capture, clat_bins_of
from ssdlab.plan.sweep import plan_sweep
from ssdlab.registry import profile_record
from ssdlab.registry.record import fill_verdicts
from ssdlab.report.document import document_json
from ssdlab.report.sweep import build_sweep_document
from ssdlab.store.lifecycle import to_json
from tests.unit.plan.profile_golden import FILE_TARGET
from tests.unit.report.chart_checks import breaches


def _output(read_bins: dict[int, int], write_bins: dict[int, int]) -> str:
    def side(bins: dict[int, int]) -> dict[str, object]:
        return {"clat_ns": {"bins": {str(k): v for k, v in bins.items()}}}

    return json.dumps({"jobs": [{"read": side(read_bins), "write": side(write_bins)}]})


def test_histograms_of_both_directions_are_added() -> None:
    assert histogram_of(clat_bins_of(_output({100: 1}, {100: 2, 300: 1}))) == {100: 3, 300: 1}
    assert clat_bins_of("not json") == ()
    assert histogram_of(()) is None


def test_cells_and_knee_under_a_bound() -> None:
    plan = plan_sweep(
        {"threads": (1, 2), "iodepths": (1, 8), "workloads": "randrw70:8KiB",
         "max_latency_us": 500.0},
        FILE_TARGET,
    )  # fmt: skip
    cells = [s for s in plan.all_steps if s.param("workload")]
    numbers = {  # key: (IOPS, bins in µs: 99 % of I/Os at the first, 1 % at the second)
        cells[0].key: (10_000, 100, 200),
        cells[1].key: (40_000, 300, 450),
        cells[2].key: (18_000, 150, 300),
        cells[3].key: (50_000, 400, 900),  # more IOPS, but its p99 (900 µs) is over the bound
    }
    steps, outputs = [], {}
    for number, (key, (iops, low, high)) in enumerate(numbers.items(), start=10):
        steps.append(StepResult(key, key, "mix", 1, False, iops * 8192, iops, low * 1000.0,
                                None, None, capture_id=number))  # fmt: skip
        # reads are all fast, writes hold the tail: only the sum shows the mix's p99
        outputs[number] = _output({low * 1000: 98}, {low * 1000: 0, high * 1000: 2})
    found = analyse_sweep(plan, steps, {}, clat_bins_by_capture(outputs))
    cells, knees = found[CELLS], found[KNEE]
    assert isinstance(cells, SweepCells)
    assert isinstance(knees, dict)
    rows = {(r.threads, r.iodepth): r for r in cells.cells}
    assert rows[(2, 8)].lat_p99_ns == 900_000
    assert rows[(1, 1)].lat_p50_ns == 100_000
    knee = knees["randrw70-8k"].knee
    assert knee is not None
    assert (knee.numjobs, knee.iodepth) == (1, 8)
    run = RunRecord(1, "profile", "sweep", 1, None, RunStatus.COMPLETE, None, "file",
                    FILE_TARGET.path, {}, {}, {}, {}, 0.0, 1.0, "host", 1, None)  # fmt: skip
    results = ProfileResults(run, plan, tuple(steps), {}, outputs, (), {})
    stored = fill_verdicts(results, profile_record("sweep").parts().analyse)
    assert dict(stored.findings) == json.loads(to_json(found))  # as the store keeps them
    assert set(stored.findings[CELLS]) == {"cells", "percentiles", "spread"}
    assert stored.findings[CELLS]["cells"][0] == {
        "workload": "randrw70-8k", "threads": 1, "iodepth": 1, "iops": 10_000,
        "bw_bytes_per_s": 10_000 * 8192, "lat_mean_ns": 100_000.0, "lat_p50_ns": 100_000,
        "lat_p99_ns": 200_000, "lat_p999_ns": 200_000, "lat_max_ns": None, "spread": 2.0,
        "passes": 1, "iops_interval": None, "lat_mean_interval": None, "lat_p99_interval": None,
        "lat_p999_interval": None, "pass_iops": [10_000],
    }  # fmt: skip
    document = build_sweep_document(stored)
    assert json.loads(document_json(document))["result"] == stored.findings
    assert {c.key for c in document.charts} == {
        "sweep-heatmap-randrw70-8k", "sweep-curve-randrw70-8k",
    }  # fmt: skip
    assert document.verdict[0].startswith("randrw70-8k: knee at T1 Q8")
    assert document.verdict[0].endswith("(measured once, no interval)")
    assert knees["randrw70-8k"].state == "yes"  # measured once: as measured
    assert knees["randrw70-8k"].draws == 0
    charts = {c.key: c for c in document.charts}
    assert {key: breaches(c) for key, c in charts.items()} == {key: [] for key in charts}
    assert charts["sweep-heatmap-randrw70-8k"].heat.value_unit == "IOPS"  # type: ignore[union-attr]
    curve = charts["sweep-curve-randrw70-8k"]
    assert (curve.x_unit, curve.y_unit, curve.y_zero, curve.x_log) == ("µs", "IOPS", True, False)
    # each thread count's line through its depths, in latency order, each point named by QD
    assert [(s.label, s.point_labels) for s in curve.series] == [
        ("T1", ("QD1", "QD8")), ("T2", ("QD1", "QD8")),
    ]  # fmt: skip
    assert {s.style for s in curve.series} == {"line"}
    # ten times slower: 2 to 9 ms, drawn in ms (tick labels 2, 4 … not 2,000, 4,000 …)
    slower = [{**r, "lat_p99_ns": r["lat_p99_ns"] * 10} for r in stored.findings[CELLS]["cells"]]
    knee_body = stored.findings[KNEE]["randrw70-8k"]
    knees = {"randrw70-8k": {**knee_body, "knee_latency_ns": knee_body["knee_latency_ns"] * 10}}
    findings = {**stored.findings, CELLS: {**stored.findings[CELLS], "cells": slower}, KNEE: knees}
    slow = build_sweep_document(replace(stored, findings=findings))
    curve = next(c for c in slow.charts if c.key == "sweep-curve-randrw70-8k")
    assert curve.x_unit == "ms"
    assert max(x for s in curve.series for x in s.xs) == 9.0
    assert curve.markers[0].x == 4.5  # the knee, T1 Q8: its p99 of 450 µs, × 10
    assert breaches(curve) == []


def _repeated_run(iops_of: dict[tuple[int, int], float], spread: float) -> ProfileResults:
    """A randread sweep of T1/T2 × Q1/Q4/Q16, each cell measured twice: `iops_of` ±`spread`,
    p99 latency from Little's law (outstanding / IOPS) × 2."""
    plan = plan_sweep(
        {"threads": (1, 2), "iodepths": (1, 4, 16), "workloads": "randread:4KiB"}, FILE_TARGET
    )
    cells = [s for s in plan.all_steps if s.param("workload")]
    steps, outputs = [], {}
    capture = 10
    for round_index, sign in ((1, 1), (2, -1)):
        for cell in cells:
            threads, depth = cell.param("threads"), cell.param("iodepth")
            assert isinstance(threads, int)
            assert isinstance(depth, int)
            iops = iops_of[(threads, depth)] * (1 + sign * spread)
            p99 = round(2e9 * threads * depth / iops)
            capture += 1
            steps.append(StepResult(cell.key, cell.label, "read", round_index, False,
                                    iops * 4096, iops, p99 / 2.0, None, None,
                                    capture_id=capture))  # fmt: skip
            outputs[capture] = _output({p99 // 2: 98, p99: 2}, {})
    run = RunRecord(1, "profile", "sweep", 1, None, RunStatus.COMPLETE, None, "file",
                    FILE_TARGET.path, {}, {}, {}, {}, 0.0, 1.0, "host", 1, None)  # fmt: skip
    return fill_verdicts(
        ProfileResults(run, plan, tuple(steps), {}, outputs, (), {}),
        profile_record("sweep").parts().analyse,
    )


SATURATING = {(1, 1): 20_000.0, (1, 4): 70_000.0, (1, 16): 100_000.0,
              (2, 1): 38_000.0, (2, 4): 95_000.0, (2, 16): 104_000.0}  # fmt: skip


def test_repeated_cells_give_intervals_a_knee_with_its_chance_and_a_monotonic_matrix() -> None:
    stored = _repeated_run(SATURATING, 0.01)
    rows = stored.findings[CELLS]["cells"]
    assert all(r["passes"] == 2 for r in rows)
    assert all(r["iops_interval"]["low"] < r["iops"] < r["iops_interval"]["high"] for r in rows)
    assert rows[0]["pass_iops"] == [20_200.0, 19_800.0]
    knee = stored.findings[KNEE]["randread-4k"]
    assert knee["state"] == "yes"
    assert knee["draws"] == 2000
    assert knee["seed"] is not None
    label = f"T{knee['knee']['numjobs']} Q{knee['knee']['iodepth']}"
    assert knee["knee_set"] == [label]
    assert knee["monotonic"] == "yes"
    document = build_sweep_document(stored)
    assert "of 2,000 draws of the matrix from its repeats: yes" in document.verdict[0]
    assert document.verdict[1].startswith("randread-4k: monotonic: yes")
    (curve,) = [c for c in document.charts if c.key == "sweep-curve-randread-4k"]
    assert all(len(s.errors) == len(s.ys) for s in curve.series)
    assert breaches(curve) == []
    notes = document.sections[0].notes
    assert sum("varied by" in note for note in notes) == 1  # one noise note for the run
    (_, detail) = document.sections[0].tables
    assert "±" in detail.rows[0][1]


def test_a_matrix_that_falls_is_not_monotonic_and_a_noisy_one_is_inconclusive() -> None:
    falling = {**SATURATING, (2, 16): 80_000.0}  # fewer IOPS at T2 Q16 than at T2 Q4
    knee = _repeated_run(falling, 0.01).findings[KNEE]["randread-4k"]
    assert knee["monotonic"] == "no"
    assert {(d["from_label"], d["to_label"], d["state"]) for d in knee["dips"]} >= {
        ("T2 Q4", "T2 Q16", "yes"),
    }
    noisy = _repeated_run(falling, 0.15).findings[KNEE]["randread-4k"]
    assert noisy["monotonic"] == "inconclusive"
    assert noisy["state"] == "inconclusive"
    document = build_sweep_document(_repeated_run(falling, 0.15))
    assert document.verdict[0].startswith("randread-4k: knee inconclusive — knee at")
    assert "more --repeat narrows it" in document.verdict[0]
    assert "monotonic: inconclusive" in document.verdict[1]
