"""The chart rules (report/chart_rules.py) on hand-made charts, and over every chart of every
profile's report built from fixtures without fio: the store ssdlab wrote at an earlier commit
(quick, fill, align, simulated drive, health, endurance) and the synthetic results the profile
tests use (cache, cachefit, sweep, trim, PTS, compare)."""

import functools
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from ssdlab.analysis.profiles.sweep import analyse_sweep
from ssdlab.app.runs import run_document, stored_run
from ssdlab.model.profile import ProfileResults
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.parse.fio_histogram import clat_bins_by_capture
from ssdlab.plan.cache import plan_cache
from ssdlab.plan.pts import plan_pts_iops
from ssdlab.plan.sweep import plan_sweep
from ssdlab.plan.trim import plan_trim
from ssdlab.registry import profile_record
from ssdlab.report.cachefit import build_cachefit_document
from ssdlab.report.chart_rules import chart_problems
from ssdlab.report.document import Chart, Document, Heat, Series
from ssdlab.store.db import open_store
from tests.conftest import ROOT
from tests.unit.plan.profile_golden import DEVICE_TARGET, FILE_TARGET
from tests.unit.report.stored_findings import with_stored_verdicts
from tests.unit.report.thermal_run import thermal_document

OLD_STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"
STORE_RUNS = {1: "quick", 2: "quick-read", 4: "fill", 5: "align", 9: "import-cdm",
              11: "sim", 13: "health", 14: "endurance"}  # fmt: skip


def _run(profile: str, target_path: str) -> RunRecord:
    return RunRecord(1, "profile", profile, 1, None, RunStatus.COMPLETE, None, "file",
                     target_path, {}, {}, {}, {}, 0.0, 1.0, "host", 1, None)  # fmt: skip


def _profile_document(
    profile: str, plan: object, steps: list[StepResult], **facts: int
) -> Document:
    results = ProfileResults(_run(profile, FILE_TARGET.path), plan, tuple(steps), facts, {}, (), {})  # type: ignore[arg-type]
    return profile_record(profile).build_document(with_stored_verdicts(results))


def _store_documents() -> dict[str, Document]:
    with tempfile.TemporaryDirectory(prefix="ssdlab-charts-") as folder:
        copy = Path(folder) / "store.sqlite"
        shutil.copyfile(OLD_STORE, copy)
        conn = open_store(copy)
        try:
            return {
                name: run_document(stored_run(conn, run_id)) for run_id, name in STORE_RUNS.items()
            }
        finally:
            conn.close()


def _cache_document() -> Document:
    from tests.unit.report.test_cache_report import _write

    plan = plan_cache({"recovery_idle": 30.0}, FILE_TARGET)
    write = _write("write", [(40, 2000.0), (60, 450.0)])
    probe = _write("probe", [(20, 2000.0), (60, 450.0)], seed=2)
    return _profile_document("cache", plan, [write, probe])


def _cachefit_document() -> Document:
    from tests.unit.report.test_cachefit_report import make_plan, results_of, synthetic_steps

    plan = make_plan()  # three rounds 2 % apart: every bar with its whisker
    return build_cachefit_document(
        results_of(plan, synthetic_steps(plan, rounds=(0.98, 1.0, 1.02)))
    )


def _sweep_document() -> Document:
    plan = plan_sweep({"threads": (1, 2, 4), "iodepths": (1, 8, 32)}, FILE_TARGET)
    steps = []
    cells = [s for s in plan.all_steps if s.param("workload")]
    for round_index, spread in ((1, 0.98), (2, 1.02)):  # every cell twice, 2 % apart
        for number, step in enumerate(cells, start=100 * round_index):
            threads, depth = step.param("threads"), step.param("iodepth")
            assert isinstance(threads, int)
            assert isinstance(depth, int)
            iops = 9_000.0 * threads * depth**0.5 * spread
            steps.append(StepResult(step.key, step.key, "read", round_index, False,
                                    iops * 4096, iops, 40_000.0 * depth, None, None,
                                    capture_id=number))  # fmt: skip
    analyse_sweep(plan, steps, {}, clat_bins_by_capture({}))
    return _profile_document("sweep", plan, steps)


def _trim_document() -> Document:
    from tests.unit.report.test_trim_report import _step

    plan = plan_trim({}, DEVICE_TARGET)
    steps = [
        _step(key, iops * factor, round_index)
        for round_index, factor in ((1, 0.98), (2, 1.0), (3, 1.02))
        for key, iops in (("dirty", 20_000), ("discarded", 50_000))
    ]
    return _profile_document(
        "trim", plan, steps, discard_max_bytes=2**31, discard_granularity_bytes=4096
    )


def _pts_document() -> Document:
    from tests.unit.report.test_pts_rounds import NVME, TRIAL, _rounds

    plan = plan_pts_iops(TRIAL, NVME)
    (loop,) = plan.loops
    steps = _rounds(loop, {"rnd-4kib-r0": [300, 200, 100, 100, 100, 100, 100],
                           "rnd-64kib-r65": [50, 50, 45, 55, 50, 50, 50]})  # fmt: skip
    return _profile_document(plan.profile, plan, steps)


def _compare_document() -> Document:
    from tests.unit.report.test_report_golden import compare_document

    return compare_document()


def _quick_fixture_document() -> Document:
    from tests.unit.report.test_report_golden import report_part

    return report_part().document


@functools.cache
def chart_documents() -> dict[str, Document]:
    """Every profile's report from fixtures, by a short name (the browser test lays them out
    too)."""
    documents = _store_documents()
    for name, build in (
        ("quick-fixture", _quick_fixture_document),
        ("cache", _cache_document),
        ("cachefit", _cachefit_document),
        ("sweep", _sweep_document),
        ("trim", _trim_document),
        ("pts", _pts_document),
        ("compare", _compare_document),
        ("thermal", thermal_document),
    ):
        documents[name] = build()
    return documents


def all_charts() -> list[tuple[str, Chart]]:
    return [(name, chart) for name, doc in chart_documents().items() for chart in doc.charts]


def test_every_profile_has_charts() -> None:
    names = {name for name, _ in all_charts()}
    assert names >= {"quick", "fill", "align", "sim", "health", "endurance", "cache",
                     "cachefit", "sweep", "trim", "pts"}  # fmt: skip


REPORTS = [*sorted(STORE_RUNS.values()), "cache", "cachefit", "sweep", "trim", "pts", "compare",
           "quick-fixture", "thermal"]  # fmt: skip


@pytest.mark.parametrize("name", REPORTS)
def test_every_chart_keeps_the_rules(name: str) -> None:
    problems = [p for chart in chart_documents()[name].charts for p in chart_problems(chart)]
    assert problems == []


THROUGHPUT = Series("write", (0.0, 1.0, 2.0), (900.0, 910.0, 300.0))


def _chart(**fields: object) -> Chart:
    base: dict[str, object] = {"key": "c", "title": "t", "x_label": "written", "x_unit": "GB",
                               "y_label": "throughput", "y_unit": "MB/s", "y_zero": True,
                               "series": (THROUGHPUT,)}  # fmt: skip
    return Chart(**{**base, **fields})  # type: ignore[arg-type]


def test_a_chart_that_keeps_the_rules_has_no_problems() -> None:
    assert chart_problems(_chart()) == ()


def test_quantity_axes_need_units_and_categorical_axes_do_not() -> None:
    (x,) = chart_problems(_chart(x_unit=""))
    assert x == "c: the x axis (written) has no unit"
    (y,) = chart_problems(_chart(y_unit=""))
    assert y == "c: the y axis (throughput) has no unit"
    assert chart_problems(_chart(x_unit="", x_ticks=((0.0, "a"), (1.0, "b")))) == ()
    heat = Heat("threads", "QD", ("T1",), ("Q1",), ((350_000.0,),), "throughput")
    assert chart_problems(Chart("h", "t", heat=heat)) == (
        "c: the heat map's values (throughput) have no unit".replace("c:", "h:"),
    )
    assert chart_problems(Chart("h", "t", heat=replace(heat, value_unit="IOPS"))) == ()


def test_rates_and_counts_start_at_zero_unless_logarithmic() -> None:
    for unit in ("MB/s", "GB/s", "IOPS", "KIOPS"):
        (problem,) = chart_problems(_chart(y_unit=unit, y_zero=False))
        assert f"a {unit} axis must start at zero" in problem
    assert chart_problems(_chart(y_unit="µs", y_zero=False)) == ()
    wide = Series("w", (1.0, 2.0), (10.0, 20_000.0))
    assert chart_problems(_chart(series=(wide,), y_zero=False, y_log=True)) == ()


def test_a_log_axis_only_for_values_spanning_more_than_two_decades() -> None:
    (problem,) = chart_problems(_chart(y_log=True, y_zero=False))
    assert "y axis is logarithmic" in problem
    wide = Series("w", (1.0, 1000.0), (10.0, 20_000.0))
    assert chart_problems(_chart(series=(wide,), x_log=True, y_log=True)) == ()
    narrow_x = Series("w", (1.0, 99.0), (10.0, 20_000.0))
    (problem,) = chart_problems(_chart(series=(narrow_x,), x_log=True, y_log=True))
    assert "x axis is logarithmic" in problem


def test_series_lists_line_up() -> None:
    short = Series("w", (0.0, 1.0), (1.0,), errors=((0.5, 1.5),), point_labels=("a", "b", "c"))
    (problem,) = chart_problems(_chart(series=(short,)))
    assert problem == (
        "c: series 'w' has lists of unequal length (xs 2, ys 1, errors 1, point_labels 3)"
    )
