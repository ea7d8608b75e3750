"""Stopping a simulation part-way (a signal sets the CLI's stop flag): both cores check it every
STOP_CHECK_PAGES pages of work, return the intervals that finished, and stop at the same place;
a stopped run is stored `interrupted` with the cut-short point kept as a discarded step."""

import signal
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

import pytest

from ssdlab.app.runs import run_document, stored_run
from ssdlab.errors import Interrupted
from ssdlab.model.finding_names import SIM_RESULT
from ssdlab.model.run import RunStatus
from ssdlab.runner.sim import SimPlan, SimRunSpec, run_simulation
from ssdlab.sim import GcPolicy, SimConfig, parse_workload, simulate
from ssdlab.sim.engine import build_job, run_core
from ssdlab.sim.ftl import STOP_CHECK_PAGES
from ssdlab.store.db import open_store
from ssdlab.store.findings import load_findings
from ssdlab.store.health import load_health_samples
from ssdlab.store.run_rows import list_runs
from ssdlab.store.steps import load_step_results
from tests.unit.sim.conftest import needs_rust

MiB = 2**20
PAGE = 4096


def after_calls(n: int) -> tuple[Callable[[], bool], list[int]]:
    """A stop check that says stop on its n-th call, and the list counting the calls."""
    calls: list[int] = []

    def should_stop() -> bool:
        calls.append(1)
        return len(calls) >= n

    return should_stop, calls


def config(**kw: object) -> SimConfig:
    return SimConfig.from_spare(8 * MiB, 0.25, "logical", pages_per_block=32, **kw)  # type: ignore[arg-type]


def test_a_stop_returns_the_intervals_that_finished(core: str) -> None:
    # a check every 65,536 pages (256 MiB of 4 KiB pages) of 2 GiB written in 16 MiB intervals
    should_stop, calls = after_calls(3)
    host = 2048 * MiB
    r = simulate(
        config(), parse_workload("uniform"), host_bytes=host, interval_bytes=16 * MiB,
        core=core, should_stop=should_stop,
    )  # fmt: skip
    assert r.stopped
    assert r.planned == 128
    assert len(calls) == 3
    # stopped at 3 × 65,536 pages of work = 768 MiB: 48 intervals of 16 MiB had finished
    assert len(r.intervals) == 3 * STOP_CHECK_PAGES * PAGE // (16 * MiB) == 48
    assert r.intervals[-1].host_write_bytes == 48 * 16 * MiB


def test_no_stop_runs_to_the_end(core: str) -> None:
    should_stop, calls = after_calls(10**9)
    r = simulate(
        config(), parse_workload("uniform"), host_bytes=512 * MiB, interval_bytes=64 * MiB,
        core=core, should_stop=should_stop,
    )  # fmt: skip
    assert not r.stopped
    assert len(r.intervals) == r.planned == 8
    assert len(calls) == 512 * MiB // PAGE // STOP_CHECK_PAGES


@pytest.mark.parametrize("initial", ["full", "steady"])
def test_a_stop_while_the_drive_is_prepared_returns_nothing(core: str, initial: str) -> None:
    big = SimConfig.from_spare(
        512 * MiB, 0.25, "logical", pages_per_block=64, initial_state=initial
    )
    should_stop, _ = after_calls(1)
    r = simulate(
        big, parse_workload("uniform"), host_bytes=64 * MiB, interval_bytes=8 * MiB,
        core=core, should_stop=should_stop,
    )  # fmt: skip
    assert r.stopped
    assert r.intervals == ()
    assert r.planned == 8


STOPPED = [
    ("uniform", GcPolicy.GREEDY, "empty"),  # the Rust core's batched path
    ("uniform", GcPolicy.FIFO, "full"),
    ("jesd219,read=30%,trim=5%", GcPolicy.D_CHOICES, "steady"),
    ("seq,pages=8", GcPolicy.COST_BENEFIT, "empty"),
]


@needs_rust
@pytest.mark.parametrize(("text", "policy", "initial"), STOPPED)
def test_both_cores_stop_at_the_same_place_with_identical_counters(
    text: str, policy: GcPolicy, initial: str
) -> None:
    job = build_job(
        config(gc_policy=policy, initial_state=initial), parse_workload(text), 2048 * MiB, 8 * MiB
    )
    python, _ = run_core(job, "python", after_calls(4)[0])
    rust, _ = run_core(job, "rust", after_calls(4)[0])
    assert 0 < len(python) < 256
    assert rust == python


class Raised(Exception):
    """What the test's signal handler raises inside the Rust core's run."""


@needs_rust
def test_python_signal_handlers_run_while_the_rust_core_works() -> None:
    # the core lets Python run its handlers at every check: an exception from one ends the run
    def handler(_signum: int, _frame: FrameType | None) -> None:
        raise Raised

    def send_signal() -> bool:
        signal.raise_signal(signal.SIGUSR1)  # the handler runs at the core's next check
        return False

    previous = signal.signal(signal.SIGUSR1, handler)
    try:
        job = build_job(config(), parse_workload("uniform"), 2048 * MiB, 8 * MiB)
        with pytest.raises(Raised):
            run_core(job, "rust", send_signal)
    finally:
        signal.signal(signal.SIGUSR1, previous)


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = open_store(tmp_path / "sim.db")
    yield connection
    connection.close()


def _plan(key: str, spare: float) -> SimPlan:
    return SimPlan(
        key=key,
        label=f"spare {spare:g}",
        config=SimConfig.from_spare(8 * MiB, spare, "logical", pages_per_block=32),
        workload=parse_workload("uniform"),
        pe_cycles=3000.0,
    )


def _spec(*points: SimPlan) -> SimRunSpec:
    return SimRunSpec(
        points=points,
        host_bytes=1024 * MiB,
        interval_bytes=16 * MiB,
        daily_write_bytes=8 * MiB,
        core="python",
        argv=("ssdlab", "sim", "(test)"),
        sweep_parameter="spare" if len(points) > 1 else None,
    )


def test_a_stopped_run_is_interrupted_and_keeps_the_cut_point_as_evidence(
    conn: sqlite3.Connection,
) -> None:
    # a check before each point and every 256 MiB in it: 1 before p1, 4 in it, 1 before p2,
    # and the 8th after 512 MiB of p2
    should_stop, _ = after_calls(8)
    spec = _spec(_plan("p1", 0.07), _plan("p2", 0.28))
    with pytest.raises(Interrupted, match="1 of 2 simulated drives that finished are stored"):
        run_simulation(conn, spec, should_stop=should_stop)
    (run,) = list_runs(conn)
    assert run.status is RunStatus.INTERRUPTED
    assert run.status_reason == "stopped by a signal during spare 0.28 after 32 of 64 intervals"
    steps = {s.step_key: s for s in load_step_results(conn, run.run_id)}
    assert not steps["p1"].discarded
    assert len(steps["p1"].series) == 64
    assert steps["p2"].discarded
    assert len(steps["p2"].series) == 32
    findings = {f.name: f.body for f in load_findings(conn, run.run_id)}
    cut = findings[f"{SIM_RESULT}-p2"]
    assert cut["stopped"]
    assert cut["intervals"] == 32
    assert cut["intervals_planned"] == 64
    serials = {s.sample.identity.serial for s in load_health_samples(conn, run_id=run.run_id)}
    assert serials == {f"sim-{run.run_id}-p1"}  # the cut point is not analysed
    document = run_document(stored_run(conn, run.run_id))
    assert [p["key"] for p in document.data["points"]] == ["p1"]


def test_a_stop_before_the_first_interval_keeps_no_step(conn: sqlite3.Connection) -> None:
    should_stop, _ = after_calls(1)
    with pytest.raises(Interrupted, match="no interval had finished"):
        run_simulation(conn, _spec(_plan("write", 0.07)), should_stop=should_stop)
    (run,) = list_runs(conn)
    assert run.status is RunStatus.INTERRUPTED
    assert load_step_results(conn, run.run_id) == []
    assert (
        "interrupted before the simulation finished"
        in run_document(stored_run(conn, run.run_id)).verdict[0]
    )
