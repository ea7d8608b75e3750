"""Draw the figures of docs/sim.md and print its model-vs-analytic table (Markdown).

    .venv/bin/python bench/sim_figures.py     # about 20 s with the Rust core

Writes docs/sim-wa.png (simulated WA against the closed forms) and docs/sim-cliff.png (a
TLC drive with a pseudo-SLC cache written from empty: the cache cliff, folding and steady state).
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from ssdlab.sim import GcPolicy, SimConfig, Workload, available_cores, simulate
from ssdlab.sim.analytic import wa_fifo, wa_greedy, wa_random

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGE = 4096
SPARES = (0.07, 0.125, 0.2, 0.28, 0.4, 0.5)  # of logical capacity


def measured_waf(blocks: int, pages_per_block: int, alpha: float, policy: GcPolicy) -> float:
    logical = round(blocks * pages_per_block / alpha)
    config = SimConfig(
        logical_bytes=logical * PAGE,
        physical_bytes=blocks * pages_per_block * PAGE,
        pages_per_block=pages_per_block,
        gc_policy=policy,
        initial_state="steady",
    )
    r = simulate(config, Workload(), host_bytes=3 * logical * PAGE, interval_bytes=logical * PAGE)
    a, b = r.intervals[0], r.intervals[-1]
    return (b.nand_write_bytes - a.nand_write_bytes) / (b.host_write_bytes - a.host_write_bytes)


def wa_figure() -> list[str]:
    series = {
        "greedy Np=64": (4096, 64, GcPolicy.GREEDY, lambda a: wa_greedy(a, 64)),
        "greedy Np=256": (2048, 256, GcPolicy.GREEDY, lambda a: wa_greedy(a, 256)),
        "FIFO": (4096, 64, GcPolicy.FIFO, wa_fifo),
        "random": (4096, 64, GcPolicy.RANDOM, wa_random),
    }
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    rows: list[str] = []
    curve_x = [0.05 + i * 0.005 for i in range(111)]
    for (label, (blocks, np_, policy, model)), colour in zip(
        series.items(), ("C0", "C1", "C2", "C3"), strict=True
    ):
        ax.plot(
            [100 * s for s in curve_x],
            [model(1 + s) for s in curve_x],
            color=colour,
            label=f"{label}: closed form",
        )
        sims = [measured_waf(blocks, np_, 1 + s, policy) for s in SPARES]
        ax.plot([100 * s for s in SPARES], sims, "o", color=colour, label=f"{label}: simulated")
        for spare, sim in zip(SPARES, sims, strict=True):
            m = model(1 + spare)
            diff = 100 * (sim / m - 1)
            rows.append(f"| {label} | {100 * spare:g} % | {m:.3f} | {sim:.3f} | {diff:+.2f} % |")
    ax.set_xlabel("spare, % of logical capacity (OP)")
    ax.set_ylabel("write amplification")
    ax.set_yscale("log")
    ax.set_title("Uniform random 4 KiB writes: simulator vs closed forms")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(DOCS / "sim-wa.png", dpi=110)
    plt.close(fig)
    return [
        "| policy | spare (OP) | closed form | simulated | difference |",
        "| --- | ---: | ---: | ---: | ---: |",
        *rows,
    ]


def cliff_figure() -> None:
    gib = 2**30
    config = SimConfig.from_spare(
        8 * gib,
        0.1,
        "logical",
        pages_per_block=256,
        bits_per_cell=3,
        slc_static_bytes=64 * 2**20,
        slc_dynamic=True,
    )
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.5, 5.5), sharex=True)
    for workload, label in (
        (Workload(kind="sequential", request_pages=32), "sequential 128 KiB"),
        (Workload(), "random 4 KiB"),
    ):
        r = simulate(config, workload, host_bytes=64 * gib, interval_bytes=gib // 4)
        x = [i.host_write_bytes / 1e9 for i in r.intervals]
        top.plot(x, [i.write_bytes_per_s / 1e6 for i in r.intervals], label=label)
        prev = [(0, 0), *((i.host_write_bytes, i.nand_write_bytes) for i in r.intervals)]
        waf = [(n1 - n0) / (h1 - h0) for (h0, n0), (h1, n1) in itertools.pairwise(prev)]
        bottom.plot(x, waf, label=label)
    top.set_ylabel("host write MB/s (simulated)")
    top.set_yscale("log")
    top.set_title("8 GiB TLC drive, 10 % OP, 64 MiB static + dynamic SLC, written from empty")
    bottom.set_ylabel("WAF of each interval")
    bottom.set_xlabel("host GB written")
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(DOCS / "sim-cliff.png", dpi=110)
    plt.close(fig)


def main() -> int:
    if "rust" not in available_cores():
        print("the Rust core is not built (make install); this would take hours", file=sys.stderr)
        return 1
    print("\n".join(wa_figure()))
    cliff_figure()
    return 0


if __name__ == "__main__":
    sys.exit(main())
