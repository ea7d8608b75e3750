"""Simulated runs on the real-drive path: what runner/sim.py stores, read back by the analyses
real drives get (cache cliff, steady state, WAF, wear, lifetime) and by the documents.

The simulations are real (ssdlab.sim.engine, whichever core is built) and tiny: a few MiB.
"""

import math
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from ssdlab.analysis.profiles.cache import CLIFF
from ssdlab.analysis.wear import compare_samples
from ssdlab.analysis.write_series import bytes_series
from ssdlab.app.runs import run_document, stored_run
from ssdlab.errors import Interrupted, UsageError
from ssdlab.model.run import RunStatus
from ssdlab.plan.cachefit import cache_size_from_finding
from ssdlab.report.chart_spec import render_chart
from ssdlab.report.document import render_markdown
from ssdlab.runner.sim import (
    SimPlan,
    SimRunSpec,
    run_simulation,
    simulate_point,
)
from ssdlab.sim.config import SimConfig, Timing
from ssdlab.sim.engine import SimResult
from ssdlab.sim.workload import parse_workload
from ssdlab.store.db import open_store
from ssdlab.store.findings import load_findings
from ssdlab.store.health import load_health_samples
from ssdlab.store.run_rows import list_runs, load_run
from ssdlab.store.steps import load_step_results

MiB = 2**20
PE = 3000.0


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = open_store(tmp_path / "sim.db")
    yield connection
    connection.close()


def _plan(
    key: str = "write", spare: float = 0.07, workload: str = "uniform", **config: object
) -> SimPlan:
    fields: dict[str, object] = {"pages_per_block": 16, **config}
    return SimPlan(
        key=key,
        label=f"spare {spare:g}",
        config=SimConfig.from_spare(8 * MiB, spare, "logical", **fields),
        workload=parse_workload(workload),
        pe_cycles=PE,
    )


def _spec(*points: SimPlan, parameter: str | None = None) -> SimRunSpec:
    return SimRunSpec(
        points=points,
        host_bytes=6 * 8 * MiB,
        interval_bytes=8 * MiB // 20,
        daily_write_bytes=8 * MiB,
        core="auto",
        argv=("ssdlab", "sim", "(test)"),
        sweep_parameter=parameter,
    )


def _simulated(conn: sqlite3.Connection, spec: SimRunSpec) -> tuple[int, list[SimResult]]:
    results: list[SimResult] = []

    def keep(plan: SimPlan, run_spec: SimRunSpec) -> SimResult:
        results.append(simulate_point(plan, run_spec))
        return results[-1]

    return run_simulation(conn, spec, simulate_one=keep), results


def test_a_simulated_run_is_stored_like_a_measured_one(conn: sqlite3.Connection) -> None:
    plan = _plan()
    run_id, (result,) = _simulated(conn, _spec(plan))
    run = load_run(conn, run_id)
    assert run is not None
    assert (run.kind, run.profile, run.target_kind, run.status) == (
        "sim",
        "cache",
        "simulated",
        RunStatus.COMPLETE,
    )
    config = plan.config
    # both spare conventions named, consistent with the configuration's own arithmetic
    assert run.settings["spare_logical_pct"] == pytest.approx(100 * (config.alpha - 1))
    assert run.settings["spare_physical_pct"] == pytest.approx(100 * (1 - 1 / config.alpha))
    assert run.settings["config"]["physical_bytes"] == config.physical_bytes

    (step,) = load_step_results(conn, run_id)
    assert step.step_key == "write"
    assert len(step.series) == len(result.intervals)
    # the cache profile's own conversion gives back the simulated host bytes
    written, _ = bytes_series(step)[-1]
    assert written == pytest.approx(result.intervals[-1].host_write_bytes, rel=1e-9)

    samples = [s.sample for s in load_health_samples(conn, run_id=run_id)]
    assert len(samples) == len(result.intervals) + 1
    assert samples[0].host_written_bytes.value == 0.0
    for sample, interval in zip(samples[1:], result.intervals, strict=True):
        assert sample.host_written_bytes.value == interval.host_write_bytes
        assert sample.nand_written_bytes.value == interval.nand_write_bytes
        assert sample.erase_count_max.value == interval.erase_count_max
        assert sample.wear_used_pct.value == pytest.approx(100 * interval.erase_count_avg / PE)
        provenance = sample.nand_written_bytes.provenance
        assert provenance is not None
        assert provenance.note == "simulated"
    # WAF through the real-drive analysis equals the simulator's own
    report = compare_samples(samples[0], samples[-1])
    assert report.waf.waf == pytest.approx(result.waf, rel=1e-12)


def test_the_document_reads_waf_cliff_steady_state_and_lifetime(conn: sqlite3.Connection) -> None:
    run_id, (result,) = _simulated(conn, _spec(_plan()))
    run = load_run(conn, run_id)
    assert run is not None
    document = run_document(stored_run(conn, run.run_id))
    data = document.data["result"]
    assert data["waf"] == pytest.approx(result.waf)
    # the life projection's window is the simulator's steady tail: the same WAF
    assert data["steady_waf"] == pytest.approx(result.steady_waf, rel=1e-9)
    assert data["steady_waf"] > 1.5  # 7 % spare, uniform random: well above 1
    assert data["lifetime_days"] == pytest.approx(
        data["projected_tbw_bytes"] / data["daily_write_bytes"]
    )
    # TBW from the tail's wear rate: P/E × raw flash ÷ WAF, give or take the wear already spent
    raw = run.settings["physical_bytes"]
    expected_tbw = PE * raw / data["steady_waf"]
    assert data["projected_tbw_bytes"] == pytest.approx(expected_tbw, rel=0.05)
    assert {c.key for c in document.charts} == {"sim-throughput", "sim-waf", "sim-erase"}
    assert render_chart(document.charts[0]).startswith(b"<?xml")
    text = render_markdown(document)
    assert "% of logical" in text
    assert "% of physical" in text


def test_a_static_slc_cache_gives_a_cliff_that_cachefit_can_read(conn: sqlite3.Connection) -> None:
    plan = _plan(spare=1.5, slc_static_bytes=3 * MiB, workload="seq")
    run_id, (result,) = _simulated(conn, _spec(plan))
    findings = {f.name: f.body for f in load_findings(conn, run_id)}
    cliff = cache_size_from_finding(findings[CLIFF])
    assert cliff is not None
    # the cliff is where the simulated throughput first falls by the cliff criteria
    drop = next(
        i.host_write_bytes
        for prev, i in zip(result.intervals, result.intervals[1:], strict=False)
        if i.write_bytes_per_s < 0.7 * prev.write_bytes_per_s
    )
    interval = _spec(plan).interval_bytes
    assert abs(cliff - drop) <= 2 * interval
    # … and it is the static SLC cache running out
    assert abs(cliff - 3 * MiB) <= 2 * interval
    assert findings["sim-result-write"]["waf"] == pytest.approx(result.waf)


def test_a_sweep_stores_every_point_and_life_grows_with_spare(conn: sqlite3.Connection) -> None:
    points = [_plan(f"p{n}", spare) for n, spare in enumerate((0.07, 0.28, 0.5), 1)]
    run_id, results = _simulated(conn, _spec(*points, parameter="spare"))
    run = load_run(conn, run_id)
    assert run is not None
    assert run.profile == "sim-sweep"
    document = run_document(stored_run(conn, run.run_id))
    stored = document.data["points"]
    assert [p["key"] for p in stored] == ["p1", "p2", "p3"]
    for point, result in zip(stored, results, strict=True):
        assert point["waf"] == pytest.approx(result.waf)
    wafs = [p["steady_waf"] for p in stored]
    lives = [p["lifetime_days"] for p in stored]
    assert wafs == sorted(wafs, reverse=True)
    assert lives == sorted(lives)
    assert {c.key for c in document.charts} == {"sim-sweep-waf", "sim-sweep-lifetime"}
    # each point is its own simulated drive in the health store
    serials = {s.sample.identity.serial for s in load_health_samples(conn, run_id=run_id)}
    assert serials == {f"sim-{run_id}-p{n}" for n in (1, 2, 3)}


def test_ctrl_c_keeps_the_finished_points(conn: sqlite3.Connection) -> None:
    calls: list[str] = []

    def stop_on_second(plan: SimPlan, spec: SimRunSpec) -> SimResult:
        calls.append(plan.key)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return simulate_point(plan, spec)

    spec = _spec(_plan("p1"), _plan("p2", 0.2), parameter="spare")
    with pytest.raises(Interrupted):
        run_simulation(conn, spec, simulate_one=stop_on_second)
    (run,) = list_runs(conn)
    assert run.status == RunStatus.INTERRUPTED
    document = run_document(stored_run(conn, run.run_id))
    assert [p["key"] for p in document.data["points"]] == ["p1"]
    assert not math.isnan(document.data["points"][0]["waf"])


def test_a_drive_whose_writes_take_no_time_is_refused_with_the_reason(
    conn: sqlite3.Connection,
) -> None:
    # all NAND times 0 would give infinite throughput: the simulator refuses it, and a run
    # that got as far as the store says why it failed (the CLI checks before it opens the store)
    with pytest.raises(UsageError, match="program times must be positive"):
        _simulated(conn, _spec(_plan(timing=Timing(0.0, 0.0, 0.0, 0.0))))
    (run,) = list_runs(conn)
    assert run.status is RunStatus.FAILED
    assert "program times must be positive" in (run.status_reason or "")
