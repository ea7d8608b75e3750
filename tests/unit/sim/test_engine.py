"""Engine behaviour, run on both cores (the Rust one skipped when it is not built)."""

import dataclasses
import math

import pytest

from ssdlab.errors import UsageError
from ssdlab.sim import GcPolicy, SimConfig, TraceOp, Workload, parse_workload, simulate
from ssdlab.sim.engine import SimResult, build_job, run_core
from tests.unit.sim.conftest import needs_rust

MiB = 2**20
PAGE = 4096


def small(spare: float = 0.25, **kw: object) -> SimConfig:
    """A 4 MiB drive of 32 blocks × 32 pages: fast on the Python core."""
    return SimConfig.from_spare(4 * MiB, spare, "logical", pages_per_block=32, **kw)  # type: ignore[arg-type]


def test_counters_and_intervals_add_up(core: str) -> None:
    config = small(initial_state="full")
    r = simulate(config, Workload(), host_bytes=20 * MiB, interval_bytes=3 * MiB, core=core)
    assert r.core == core
    assert len(r.intervals) == math.ceil(20 / 3)
    assert [i.index for i in r.intervals] == list(range(7))
    assert r.intervals[-1].host_write_bytes == 20 * MiB
    assert [i.host_write_bytes for i in r.intervals[:-1]] == [k * 3 * MiB for k in range(1, 7)]
    elapsed = [i.elapsed_s for i in r.intervals]
    assert elapsed == sorted(elapsed)
    assert elapsed[0] > 0
    assert r.waf is not None
    assert r.waf > 1.5
    for i in r.intervals:
        assert i.erase_count_min <= i.erase_count_avg <= i.erase_count_max
        assert i.host_read_bytes == i.trim_bytes == i.slc_used_bytes == 0


def test_every_erased_block_was_programmed_full_before(core: str) -> None:
    config = small(spare=0.15)
    r = simulate(config, Workload(), host_bytes=24 * MiB, interval_bytes=24 * MiB, core=core)
    last = r.intervals[-1]
    erases = round(last.erase_count_avg * config.total_blocks)
    programmed_blocks = last.nand_write_bytes // config.block_bytes
    assert programmed_blocks - config.total_blocks <= erases <= programmed_blocks


def test_sequential_overwrite_of_a_full_drive_has_waf_one(core: str) -> None:
    config = small(initial_state="full")
    r = simulate(
        config,
        parse_workload("seq,pages=8"),
        host_bytes=16 * MiB,
        interval_bytes=4 * MiB,
        core=core,
    )
    assert r.waf == 1.0
    # program-bound: 32 dies × 4 KiB per 300 µs, plus one 3 ms erase per 32-page block
    per_block_us = 32 * 300.0 + 3000.0
    expected = 32 * 32 * PAGE / (per_block_us * 1e-6)
    assert r.intervals[-1].write_bytes_per_s == pytest.approx(expected, rel=1e-9)


def test_same_seed_same_result_other_seed_other_result(core: str) -> None:
    config = small(initial_state="steady", gc_policy=GcPolicy.RANDOM)
    run = dict(host_bytes=8 * MiB, interval_bytes=2 * MiB, core=core)
    a = simulate(config, Workload(), **run)  # type: ignore[arg-type]
    b = simulate(config, Workload(), **run)  # type: ignore[arg-type]
    c = simulate(dataclasses.replace(config, seed=2), Workload(), **run)  # type: ignore[arg-type]
    assert a.intervals == b.intervals
    assert a.intervals != c.intervals


def test_reads_and_trims_are_counted(core: str) -> None:
    config = small(initial_state="full")
    w = parse_workload("uniform,read=30%,trim=10%")
    r = simulate(config, w, host_bytes=64 * MiB, interval_bytes=64 * MiB, core=core)
    last = r.intervals[-1]
    writes = last.host_write_bytes
    assert last.host_read_bytes == pytest.approx(writes * 0.3 / 0.6, rel=0.05)
    assert last.trim_bytes == pytest.approx(writes * 0.1 / 0.6, rel=0.1)


def test_trim_lowers_write_amplification(core: str) -> None:
    config = small(spare=0.15, initial_state="steady")
    run = dict(host_bytes=24 * MiB, interval_bytes=4 * MiB, core=core)
    plain = simulate(config, Workload(), **run).steady_waf  # type: ignore[arg-type]
    trimmed = simulate(config, Workload(trim_fraction=0.2), **run).steady_waf  # type: ignore[arg-type]
    assert plain is not None
    assert trimmed is not None
    assert trimmed < 0.6 * plain


def test_slc_cache_gives_a_cliff_and_shrinks_as_the_drive_fills(core: str) -> None:
    config = small(spare=0.25, slc_dynamic=True)
    seq = parse_workload("seq,pages=8")
    empty = simulate(config, seq, host_bytes=8 * MiB, interval_bytes=MiB // 4, core=core)
    speeds = [i.write_bytes_per_s for i in empty.intervals]
    slc_speed = 32 * PAGE / 60e-6  # 32 dies, 60 µs per SLC page program
    assert speeds[0] == pytest.approx(slc_speed)
    assert min(speeds) < slc_speed / 4  # the cliff: native programs, then folding
    cache_empty = max(i.slc_used_bytes for i in empty.intervals)
    # dynamic cache = free space ÷ bits per cell, less the GC reserve
    assert cache_empty == pytest.approx(config.physical_bytes / 3, rel=0.15)
    assert empty.waf is not None
    assert empty.waf > 1.0
    full = dataclasses.replace(config, initial_state="full")
    r = simulate(full, seq, host_bytes=8 * MiB, interval_bytes=MiB // 4, core=core)
    assert max(i.slc_used_bytes for i in r.intervals) < cache_empty / 4


def test_static_slc_cache_fills_then_writes_go_native(core: str) -> None:
    config = small(spare=0.75, slc_static_bytes=MiB // 2)
    r = simulate(
        config,
        parse_workload("seq,pages=8"),
        host_bytes=2 * MiB,
        interval_bytes=MiB // 4,
        core=core,
    )
    cap = config.slc_static_blocks * config.slc_pages_per_block * PAGE  # whole SLC blocks
    assert cap == 130 * PAGE
    assert [i.slc_used_bytes for i in r.intervals][:4] == [MiB // 4, MiB // 2, cap, cap]
    assert r.intervals[0].write_bytes_per_s > 4 * r.intervals[-1].write_bytes_per_s


def test_trace_replay_loops_until_the_host_bytes(core: str) -> None:
    config = small()
    trace = (
        TraceOp("write", 0, 3 * PAGE),
        TraceOp("read", 0, PAGE),
        TraceOp("write", 100, 10),  # a sub-page write inside page 0
        TraceOp("trim", PAGE, 2 * PAGE),
    )
    r = simulate(
        config,
        Workload(kind="trace", trace=trace),
        host_bytes=40 * PAGE,
        interval_bytes=40 * PAGE,
        core=core,
    )
    last = r.intervals[-1]
    assert last.host_write_bytes == 40 * PAGE  # 4 pages per pass, 10 passes
    assert last.host_read_bytes == 10 * PAGE
    assert (
        last.trim_bytes == 18 * PAGE
    )  # the run stops at the 40th page written, before the 10th trim


def test_bad_run_arguments_are_refused(core: str) -> None:
    config = small()
    with pytest.raises(UsageError, match="less than one page"):
        simulate(config, Workload(), host_bytes=100, interval_bytes=PAGE, core=core)
    with pytest.raises(UsageError, match="intervals"):
        simulate(config, Workload(), host_bytes=2**40, interval_bytes=PAGE, core=core)
    with pytest.raises(UsageError, match="spare must be positive"):
        simulate(
            dataclasses.replace(config, physical_bytes=config.logical_bytes),
            Workload(),
            host_bytes=MiB,
            interval_bytes=MiB,
            core=core,
        )
    with pytest.raises(UsageError, match="unknown core"):
        simulate(config, Workload(), host_bytes=MiB, interval_bytes=MiB, core="fortran")


def test_waf_is_none_without_host_writes() -> None:
    r = SimResult(small(), Workload(), (), "python")
    assert r.waf is None
    assert r.steady_waf is None


EQUIVALENCE = [
    *[("uniform,read=20%,trim=10%,pages=2", policy, "steady", {}) for policy in GcPolicy],
    *[
        (w, GcPolicy.GREEDY, "empty", {"slc_dynamic": True, "slc_static_bytes": 20 * PAGE})
        for w in ("uniform", "seq,pages=8", "hotcold:90/10", "jesd219")
    ],
    ("hotcold:80/20,trim=5%", GcPolicy.COST_BENEFIT, "full", {"slc_dynamic": True}),
    ("jesd219,read=40%", GcPolicy.D_CHOICES, "full", {"slc_static_bytes": 20 * PAGE}),
    ("seq,pages=16,span=50%", GcPolicy.FIFO, "steady", {"slc_dynamic": True}),
    # the Rust core's batched, prefetching path for uniform single-page writes
    ("uniform", GcPolicy.FIFO, "full", {}),
    ("uniform,span=70%", GcPolicy.COST_BENEFIT, "steady", {}),
]


@needs_rust
@pytest.mark.parametrize(("text", "policy", "initial", "slc"), EQUIVALENCE)
def test_rust_and_python_cores_give_identical_counters(
    text: str, policy: GcPolicy, initial: str, slc: dict[str, object]
) -> None:
    config = small(spare=0.3, gc_policy=policy, initial_state=initial, **slc)
    job = build_job(config, parse_workload(text), 12 * MiB, MiB)
    python, _ = run_core(job, "python")
    rust, _ = run_core(job, "rust")
    assert len(python) == 12
    assert rust == python
