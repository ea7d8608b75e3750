"""How fast the simulator's two cores run: simulated NAND page writes per second.

Uniform random 4 KiB writes with greedy GC (the issue's target: ≥ 20 M page writes/s on one
core for the Rust core), from the analytic steady-state warm start, on drives of increasing
size; the pure-Python core on the small drive for comparison. Only the core's run is timed
(the job is built before the clock starts); each case runs --repeat times and the best and
median are reported. Both cores are single-threaded.

    python bench/sim_speed.py              # about a minute; updates its block in RESULTS.md
    python bench/sim_speed.py --no-write   # print only
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from overhead import DEFAULT_RESULTS, cpu_description, git_state, md_table, write_results
from ssdlab.sim import GcPolicy, SimConfig, Workload, available_cores, parse_workload
from ssdlab.sim.engine import build_job, run_core
from ssdlab.sim.ftl import COUNTERS

PAGE = 4096
NATIVE = COUNTERS.index("native_program_pages")
SLC = COUNTERS.index("slc_program_pages")
HOST = COUNTERS.index("host_write_pages")


@dataclass(frozen=True)
class Case:
    label: str
    blocks: int
    pages_per_block: int
    spare: float  # of logical
    workload: str = "uniform"
    policy: GcPolicy = GcPolicy.GREEDY
    capacities: float = 4.0  # host writes, in logical capacities

    def config(self) -> SimConfig:
        physical = self.blocks * self.pages_per_block * PAGE
        logical = round(physical / (1 + self.spare) / PAGE) * PAGE
        return SimConfig(
            logical_bytes=logical,
            physical_bytes=physical,
            pages_per_block=self.pages_per_block,
            gc_policy=self.policy,
            initial_state="steady",
        )


RUST_CASES = [
    Case("1 GiB, 4096 × 64, 7 % OP", 4096, 64, 0.07),
    Case("1 GiB, 4096 × 64, 28 % OP", 4096, 64, 0.28),
    Case("4 GiB, 4096 × 256, 7 % OP", 4096, 256, 0.07),
    Case("4 GiB, 4096 × 256, 28 % OP", 4096, 256, 0.28),
    Case("16 GiB, 16384 × 256, 7 % OP", 16384, 256, 0.07, capacities=2.0),
    Case("1 GiB, hot/cold 90/10, FIFO, 7 % OP", 4096, 64, 0.07, "hotcold:90/10", GcPolicy.FIFO),
]
SMALL = Case("32 MiB, 512 × 16, 7 % OP", 512, 16, 0.07)


@dataclass(frozen=True)
class Measured:
    case: Case
    core: str
    host_pages: int
    nand_pages: int
    seconds: list[float]

    @property
    def best_s(self) -> float:
        return min(self.seconds)


def time_case(case: Case, core: str, repeat: int) -> Measured:
    config = case.config()
    job = build_job(
        config,
        parse_workload(case.workload) if case.workload != "uniform" else Workload(),
        host_bytes=round(config.logical_bytes * case.capacities),
        interval_bytes=config.logical_bytes // 2,
    )
    seconds: list[float] = []
    rows: list[tuple[int, ...]] = []
    for _ in range(repeat):
        start = time.perf_counter()
        rows, _ = run_core(job, core)
        seconds.append(time.perf_counter() - start)
    last = rows[-1]
    return Measured(case, core, last[HOST], last[NATIVE] + last[SLC], seconds)


def machine_rows() -> list[tuple[str, str]]:
    model, cpus = cpu_description()
    return [
        ("date", dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")),
        ("CPU", model),
        ("cores", cpus),
        ("Python", f"{platform.python_version()} ({sys.executable})"),
        ("cores available", ", ".join(available_cores())),
        ("ssdlab", git_state()),
    ]


def render(timings: Sequence[Measured], repeat: int, took_s: float) -> str:
    lines = [
        "## Simulator speed (`bench/sim_speed.py`)",
        "",
        f"Reproduce: `python bench/sim_speed.py` (this run took {took_s:.0f} s).",
        "",
        *md_table(["", ""], [list(r) for r in machine_rows()], [False, False]),
        "",
        f"Uniform random single-page writes unless named, analytic steady-state start; "
        f"each case run {repeat} times, only the core timed. NAND page writes include GC "
        "copies. M = 10^6.",
        "",
    ]
    rows = []
    for t in timings:
        median = statistics.median(t.seconds)
        rows.append(
            [
                t.case.label,
                t.core,
                f"{t.nand_pages / t.host_pages:.2f}",
                f"{t.nand_pages / 1e6:,.1f}",
                f"{t.best_s:.3f}",
                f"{t.nand_pages / t.best_s / 1e6:,.2f}",
                f"{t.nand_pages / median / 1e6:,.2f}",
                f"{t.host_pages / t.best_s / 1e6:,.2f}",
            ]
        )
    headers = [
        "case",
        "core",
        "WAF",
        "NAND page writes (M)",
        "best s",
        "M NAND writes/s (best)",
        "(median)",
        "M host writes/s (best)",
    ]
    lines += md_table(headers, rows, [False, False, True, True, True, True, True, True])
    by_core = {t.core: t for t in timings if t.case == SMALL}
    if {"rust", "python"} <= by_core.keys():
        ratio = by_core["python"].best_s / by_core["rust"].best_s
        lines += ["", f"On the small drive the Rust core is {ratio:,.0f}× faster than Python."]
    return "\n".join(lines) + "\n"


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="simulated page writes per second, both cores")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (default 3)")
    parser.add_argument("--output", type=Path, default=DEFAULT_RESULTS)
    parser.add_argument("--no-write", action="store_true", help="print only")
    return parser.parse_args(argv)


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    timings: list[Measured] = []
    if "rust" in available_cores():
        for case in [*RUST_CASES, SMALL]:
            print(f"rust: {case.label}", file=sys.stderr)
            timings.append(time_case(case, "rust", args.repeat))
    else:
        print("the Rust core is not built (make install); timing Python only", file=sys.stderr)
    print(f"python: {SMALL.label}", file=sys.stderr)
    timings.append(time_case(SMALL, "python", 1))
    block = render(timings, args.repeat, time.perf_counter() - started)
    print(block)
    if not args.no_write:
        write_results(args.output, "sim-speed", block)
        print(f"written to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
