"""simulate(): configuration + workload → per-interval counters, on the Rust or Python core."""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, cast

from ssdlab.errors import UsageError
from ssdlab.sim.analytic import steady_levels
from ssdlab.sim.config import SimConfig, validate_config
from ssdlab.sim.ftl import (
    COUNTERS,
    INITIAL_CODES,
    OP_READ,
    OP_TRIM,
    OP_WRITE,
    POLICY_CODES,
    CoreJob,
    StopCheck,
    run_python,
)
from ssdlab.sim.memory import MemoryLimit, check_memory
from ssdlab.sim.trace import check_trace_capacity
from ssdlab.sim.workload import JESD219_SIZES, JESD219_ZONES, Workload, validate_workload

MAX_INTERVALS = 100_000
STEADY_TAIL = 0.2
SCALE32 = 1 << 32


class _RustCore(Protocol):
    def run(
        self, job: dict[str, Any], should_stop: Callable[[], bool] | None = None
    ) -> list[tuple[int, ...]]: ...


def _load_rust() -> _RustCore | None:
    try:
        return cast(_RustCore, importlib.import_module("ssdlab_simcore"))
    except ImportError:
        return None


_RUST = _load_rust()


def available_cores() -> tuple[str, ...]:
    return ("rust", "python") if _RUST is not None else ("python",)


def resolve_core(core: str) -> str:
    """The core `core` names ('auto': Rust when installed); a UsageError when it cannot run."""
    if core == "auto":
        return "rust" if _RUST is not None else "python"
    if core == "rust" and _RUST is None:
        raise UsageError("the Rust core (ssdlab_simcore) is not installed; use core='python'")
    if core not in ("rust", "python"):
        raise UsageError(f"unknown core {core!r}; known: auto, rust, python")
    return core


@dataclass(frozen=True, slots=True)
class SimInterval:
    index: int
    host_write_bytes: int
    host_read_bytes: int
    trim_bytes: int
    nand_write_bytes: int
    erase_count_min: int
    erase_count_avg: float
    erase_count_max: int
    free_blocks: int
    slc_used_bytes: int
    elapsed_s: float
    write_bytes_per_s: float


@dataclass(frozen=True, slots=True)
class SimResult:
    config: SimConfig
    workload: Workload
    intervals: tuple[SimInterval, ...]
    core: str
    # asked to stop before the end: `intervals` holds the ones that finished, of `planned`
    stopped: bool = False
    planned: int = 0

    @property
    def waf(self) -> float | None:
        """NAND bytes ÷ host bytes written over the whole run; None without host writes."""
        if not self.intervals or self.intervals[-1].host_write_bytes == 0:
            return None
        last = self.intervals[-1]
        return last.nand_write_bytes / last.host_write_bytes

    @property
    def steady_waf(self) -> float | None:
        """WAF over the last 20 % of the intervals (at least one)."""
        n = len(self.intervals)
        if n == 0:
            return None
        first = n - max(1, math.ceil(n * STEADY_TAIL))
        end = self.intervals[-1]
        host0 = self.intervals[first - 1].host_write_bytes if first > 0 else 0
        nand0 = self.intervals[first - 1].nand_write_bytes if first > 0 else 0
        host = end.host_write_bytes - host0
        return (end.nand_write_bytes - nand0) / host if host > 0 else None


def _thresholds(fractions: list[float]) -> tuple[int, ...]:
    total = sum(fractions)
    out: list[int] = []
    acc = 0.0
    for f in fractions:
        acc += f / total
        out.append(min(round(acc * SCALE32), SCALE32))
    out[-1] = SCALE32
    return tuple(out)


def _zones(
    workload: Workload, span: int
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    if workload.kind == "hotcold":
        hot = min(max(round(span * workload.hot_space_fraction), 1), span - 1)
        shares = [workload.hot_write_fraction, 1.0 - workload.hot_write_fraction]
        return _thresholds(shares), (0, hot), (hot, span - hot)
    if workload.kind == "jesd219":
        starts: list[int] = []
        sizes: list[int] = []
        for _, start_frac, size_frac in JESD219_ZONES:
            start = round(span * start_frac)
            starts.append(start)
            sizes.append(max(round(span * (start_frac + size_frac)) - start, 1))
        return _thresholds([z[0] for z in JESD219_ZONES]), tuple(starts), tuple(sizes)
    return (SCALE32,), (0,), (span,)


def _sizes(workload: Workload, page_bytes: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if workload.kind != "jesd219":
        return (SCALE32,), (workload.request_pages,)
    pages: dict[int, float] = {}
    for size, share in JESD219_SIZES:
        n = -(-size // page_bytes)
        pages[n] = pages.get(n, 0.0) + share
    return _thresholds(list(pages.values())), tuple(pages)


def _trace_arrays(
    workload: Workload, config: SimConfig
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    check_trace_capacity(workload.trace, config.logical_pages * config.page_bytes)
    codes = {"read": OP_READ, "write": OP_WRITE, "trim": OP_TRIM}
    ops, starts, counts = [], [], []
    for op in workload.trace:
        first = op.offset_bytes // config.page_bytes
        last = (op.offset_bytes + op.length_bytes - 1) // config.page_bytes
        ops.append(codes[op.op])
        starts.append(first)
        counts.append(last - first + 1)
    return tuple(ops), tuple(starts), tuple(counts)


def build_job(
    config: SimConfig, workload: Workload, host_bytes: int, interval_bytes: int
) -> CoreJob:
    """Validate everything and turn it into the integers a core runs on."""
    validate_config(config)
    validate_workload(workload)
    if host_bytes < config.page_bytes:
        raise UsageError(f"host bytes {host_bytes} is less than one page ({config.page_bytes} B)")
    if interval_bytes < config.page_bytes:
        raise UsageError(f"interval {interval_bytes} B is less than one page")
    host_pages = host_bytes // config.page_bytes
    interval_pages = interval_bytes // config.page_bytes
    if math.ceil(host_pages / interval_pages) > MAX_INTERVALS:
        raise UsageError(f"more than {MAX_INTERVALS} intervals; choose a larger interval")
    span = max(round(config.logical_pages * workload.span_fraction), 1)
    if workload.kind == "hotcold" and span < 2:
        raise UsageError("a hot/cold workload needs a span of at least two pages")
    trace: tuple[tuple[int, ...], ...] = ((), (), ())
    if workload.kind == "trace":
        trace = _trace_arrays(workload, config)
    zone_thr, zone_starts, zone_pages = _zones(workload, span)
    size_thr, size_pages = _sizes(workload, config.page_bytes)
    trim_thr = round(workload.trim_fraction * SCALE32)
    read_thr = trim_thr + round(workload.read_fraction * SCALE32)
    levels: tuple[int, ...] = ()
    if config.initial_state == "steady":
        levels = steady_levels(
            config.native_blocks,
            config.pages_per_block,
            config.logical_pages,
            config.gc_free_blocks_high,
        )
    return CoreJob(
        logical_pages=config.logical_pages,
        total_blocks=config.total_blocks,
        native_blocks=config.native_blocks,
        pages_per_block=config.pages_per_block,
        slc_pages_per_block=config.slc_pages_per_block,
        slc_dynamic=config.slc_dynamic,
        policy=POLICY_CODES[config.gc_policy.value],
        gc_d=config.gc_d,
        gc_low=config.gc_free_blocks_low,
        gc_high=config.gc_free_blocks_high,
        seed=config.seed,
        initial=INITIAL_CODES[config.initial_state],
        steady_levels=levels,
        sequential=workload.kind == "sequential",
        span_pages=span,
        trim_threshold=trim_thr,
        read_threshold=read_thr,
        zone_thresholds=zone_thr,
        zone_starts=zone_starts,
        zone_pages=zone_pages,
        size_thresholds=size_thr,
        size_pages=size_pages,
        trace_ops=trace[0],
        trace_starts=trace[1],
        trace_counts=trace[2],
        host_pages=host_pages,
        interval_pages=interval_pages,
    )


def job_dict(job: CoreJob) -> dict[str, Any]:
    return {name: getattr(job, name) for name in job.__slots__}


def planned_intervals(job: CoreJob) -> int:
    return math.ceil(job.host_pages / job.interval_pages)


def run_core(
    job: CoreJob, core: str, should_stop: StopCheck | None = None
) -> tuple[list[tuple[int, ...]], str]:
    """Run the job; with `should_stop`, checked every STOP_CHECK_PAGES pages of work, the
    rows end with the last interval that finished before it returned True."""
    core = resolve_core(core)
    if core == "python":
        return run_python(job, should_stop), core
    assert _RUST is not None  # resolve_core refused it otherwise
    return [tuple(row) for row in _RUST.run(job_dict(job), should_stop)], core


def build_intervals(config: SimConfig, rows: list[tuple[int, ...]]) -> tuple[SimInterval, ...]:
    """Counters → bytes, erase statistics and simulated time (the timing model lives here)."""
    page = config.page_bytes
    t = config.timing
    units = t.parallel_units
    out: list[SimInterval] = []
    elapsed = 0.0
    prev = dict.fromkeys(COUNTERS, 0)
    for index, row in enumerate(rows):
        c = dict(zip(COUNTERS, row, strict=True))
        d = {k: c[k] - prev[k] for k in COUNTERS}
        busy_us = (
            d["nand_read_pages"] * t.page_read_us
            + d["native_program_pages"] * t.page_program_us
            + d["slc_program_pages"] * t.slc_program_us
            + d["erases"] * t.block_erase_us
        )
        dt = busy_us / units / 1e6
        elapsed += dt
        written = d["host_write_pages"] * page
        out.append(
            SimInterval(
                index=index,
                host_write_bytes=c["host_write_pages"] * page,
                host_read_bytes=c["host_read_pages"] * page,
                trim_bytes=c["trim_pages"] * page,
                nand_write_bytes=(c["native_program_pages"] + c["slc_program_pages"]) * page,
                erase_count_min=c["erase_min"],
                erase_count_avg=c["erase_sum"] / config.total_blocks,
                erase_count_max=c["erase_max"],
                free_blocks=c["free_blocks"],
                slc_used_bytes=c["slc_valid_pages"] * page,
                elapsed_s=elapsed,
                write_bytes_per_s=written / dt if dt > 0 else math.inf,
            )
        )
        prev = c
    return tuple(out)


def simulate(
    config: SimConfig,
    workload: Workload,
    *,
    host_bytes: int,
    interval_bytes: int,
    core: str = "auto",
    should_stop: StopCheck | None = None,
    memory_limit: MemoryLimit | None = None,
) -> SimResult:
    """Run the workload for `host_bytes` of host writes, one interval per `interval_bytes`.

    `should_stop` is called every few ten thousand pages of work (the cores also let Python's
    signal handlers run then); when it returns True the result holds the intervals that
    finished and `stopped` is set. With `memory_limit`, a configuration whose estimated
    memory (`sim.memory.estimate_memory`) exceeds it is refused before anything is allocated.
    """
    used = resolve_core(core)
    if memory_limit is not None:  # before build_job, which allocates per-block levels
        validate_config(config)
        pages = max(interval_bytes // config.page_bytes, 1)
        intervals = math.ceil(max(host_bytes // config.page_bytes, 1) / pages)
        check_memory(config, workload, used, intervals, memory_limit)
    job = build_job(config, workload, host_bytes, interval_bytes)
    rows, used = run_core(job, used, should_stop)
    planned = planned_intervals(job)
    return SimResult(
        config,
        workload,
        build_intervals(config, rows),
        used,
        stopped=len(rows) < planned,
        planned=planned,
    )
