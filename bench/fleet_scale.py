"""`ssdlab fleet` at scale (issue 32, item 5): N namespaced sshd hosts of this machine, each
with T file targets, through every phase a user runs: `fleet doctor`, `fleet run` (start to
all runs done, `--no-collect`), `fleet status`, `fleet collect`.

For each phase: its wall time and the seat's CPU time (the `ssdlab fleet` process and the ssh
clients it starts: the CPU of this script's waited-for children), per host. For the run: the
start skew (latest minus earliest `runs.started_at_s` over every run of every node, read
from the nodes' own stores: the run row is made the instant the wait for the start time
ends), how many runs started late (they record `start_late_s`) and how many failed to start.
For collect, the anchor is the nodes' store files copied by hand over the same ssh, as many
at once as the fleet works on (16): collect / copy is the ratio to reach (≤ 3).

The nodes share this machine's CPUs and memory, which real nodes do not: every node's ssdlab
start-up, fio and store writes run beside the seat's, so the figures are the seat's work plus
N nodes' on two cores. The workload is quick on the null engine (`QUICK` below), which
measures ssdlab and fio, not a drive; its runs are time based, so they take as long whatever
CPU they get.

    python bench/fleet_scale.py                       # N = 1, 10 with 10 targets; rewrites
                                                      # its block of bench/RESULTS.md
    python bench/fleet_scale.py --hosts 1,10,50 --targets 2
    python bench/fleet_scale.py --tiny --json         # 2 hosts x 2 targets: what the suite runs
"""

import argparse
import concurrent.futures
import os
import platform
import resource
import shlex
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from results_block import publish  # noqa: E402
from tests.fleet.hosts import (  # noqa: E402
    MAX_HOSTS,
    FleetLab,
    TestHost,
    missing_requirements,
    start_hosts,
)

RESULTS = ROOT / "bench" / "RESULTS.md"
BEGIN = "<!-- BEGIN bench/fleet_scale.py: generated, edits inside are overwritten -->"
END = "<!-- END bench/fleet_scale.py -->"
QUICK = (
    "--ioengine", "null", "--size", "1MiB", "--measure", "1", "--count", "1",
    "--interval", "0", "--mode", "read",
)  # fmt: skip
PARALLEL = 16  # `fleet`'s default --parallel, also the hand copy's
PHASES = ("doctor", "run", "status", "collect")
SKEW_TARGET_S = 0.050
COLLECT_TARGET = 3.0
SEAT_CPU_TARGET_S = 0.1


def ssdlab_words() -> list[str]:
    return ["env", f"PYTHONPATH={ROOT / 'src'}", sys.executable, "-m", "ssdlab"]


def children_cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(argv: Sequence[str]) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run the seat's `argv` to its end: what it printed, its wall time and its CPU time (with
    the ssh clients it waited for)."""
    cpu, began = children_cpu_s(), time.monotonic()
    done = subprocess.run(
        list(argv),
        env=dict(os.environ, PYTHONPATH=str(ROOT / "src")),
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    return done, time.monotonic() - began, children_cpu_s() - cpu


def fleet(*words: str) -> list[str]:
    return [sys.executable, "-m", "ssdlab", "fleet", *words]


class Lab:
    """N hosts from as many `start_hosts` labs as it takes (one lab holds at most MAX_HOSTS),
    named lab<L>-node<I> in one inventory."""

    def __init__(self, stack: ExitStack, hosts: int, folder: Path) -> None:
        self.labs: list[FleetLab] = []
        self.names: dict[str, tuple[FleetLab, TestHost]] = {}
        left, index = hosts, 0
        while left > 0:
            count = min(left, MAX_HOSTS)
            lab = stack.enter_context(start_hosts(count, folder / f"lab{index}"))
            self.labs.append(lab)
            for host in lab.hosts:
                self.names[f"lab{index}-{host.name}"] = (lab, host)
            left -= count
            index += 1

    def inventory(self, path: Path, targets: int, folder: Path) -> dict[str, str]:
        """An INI inventory: each host's store and `targets` folders under `folder`; the
        stores by host name."""
        stores, lines = {}, ["[ssdlab_nodes]"]
        for name, (lab, host) in self.names.items():
            node = folder / name
            paths = [node / f"target{t}" for t in range(targets)]
            for target in paths:
                target.mkdir(parents=True, exist_ok=True)
            stores[name] = str(node / "ssdlab.db")
            values = {
                "ansible_host": host.address,
                "ansible_port": str(host.port),
                "ansible_user": "root",
                "ansible_ssh_common_args": shlex.join(["-F", str(lab.ssh_config)]),
                "ssdlab_db": stores[name],
                "ssdlab_targets": ",".join(str(p) for p in paths),
                "ssdlab_command": shlex.join(ssdlab_words()),
            }
            lines.append(" ".join([name, *(f"{k}={shlex.quote(v)}" for k, v in values.items())]))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return stores

    def copy_by_hand(self, stores: dict[str, str], into: Path) -> float:
        """Every node's store file over ssh (`ssh node cat STORE`), PARALLEL at once: the
        wall time."""
        into.mkdir()

        def copy(name: str) -> None:
            lab, host = self.names[name]
            with (into / f"{name}.db").open("wb") as sink:
                subprocess.run(
                    lab.ssh_argv(host, ["cat", stores[name]]),
                    stdout=sink,
                    stdin=subprocess.DEVNULL,
                    check=True,
                )

        began = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(PARALLEL) as pool:
            list(pool.map(copy, stores))
        return time.monotonic() - began


def node_runs(stores: dict[str, str]) -> tuple[list[float], int]:
    """Every node run's start time, and how many recorded a late start."""
    starts, late = [], 0
    for store in stores.values():
        if not Path(store).exists():
            continue
        with sqlite3.connect(store) as conn:
            for started, plan in conn.execute("SELECT started_at_s, plan_json FROM runs"):
                starts.append(float(started))
                late += '"start_late_s"' in plan
    return starts, late


def measure(hosts: int, targets: int, folder: Path) -> dict[str, Any]:
    with ExitStack() as stack:
        began = time.monotonic()
        lab = Lab(stack, hosts, folder / "labs")
        setup_s = time.monotonic() - began
        inventory = folder / "fleet.ini"
        stores = lab.inventory(inventory, targets, folder / "nodes")
        central = str(folder / "central.db")
        run = ("run", str(inventory), "quick", "--no-collect", "--db", central, "--json")
        commands = {
            "doctor": fleet("doctor", str(inventory), "--json"),
            "run": fleet(*run, "--", *QUICK),
            "status": fleet("status", str(inventory), "--json"),
            "collect": fleet("collect", str(inventory), "--db", central, "--json"),
        }
        phases: dict[str, dict[str, Any]] = {}
        for phase in PHASES:
            done, wall, cpu = timed(commands[phase])
            phases[phase] = {
                "wall_s": wall,
                "seat_cpu_s": cpu,
                "seat_cpu_per_host_s": cpu / hosts,
                "exit": done.returncode,
                "said": done.stderr.strip().splitlines()[-1:] if done.returncode else [],
            }
        starts, late = node_runs(stores)
        copy_s = lab.copy_by_hand(stores, folder / "by-hand")
        store_bytes = sum(Path(s).stat().st_size for s in stores.values() if Path(s).exists())
        with sqlite3.connect(central) as conn:
            collected = int(conn.execute("SELECT count(*) FROM runs").fetchone()[0])
    return {
        "hosts": hosts,
        "targets": targets,
        "setup_s": setup_s,
        "phases": phases,
        "runs": len(starts),
        "runs_expected": hosts * targets,
        "late": late,
        "skew_s": max(starts) - min(starts) if starts else None,
        "collected": collected,
        "store_bytes": store_bytes,
        "copy_by_hand_s": copy_s,
        "collect_over_copy": phases["collect"]["wall_s"] / copy_s if copy_s > 0 else None,
    }


def _verdict(met: bool) -> str:
    return "met" if met else "**missed**"


def markdown(results: list[dict[str, Any]]) -> str:
    load = os.getloadavg()
    lines = [
        BEGIN,
        "## `ssdlab fleet` at scale (`bench/fleet_scale.py`)",
        "",
        f"Machine: {platform.node()}, {os.cpu_count()} CPUs, Linux {platform.release()}, "
        f"load average {load[0]:.2f} at the end; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. "
        f"Workload: quick `{' '.join(QUICK)}` on every target. The nodes are namespaces of "
        "this machine: their work shares its two CPUs with the seat's.",
        "",
        "| hosts × targets | phase | wall | seat CPU | seat CPU / host | exit |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for result in results:
        shape = f"{result['hosts']} × {result['targets']}"
        for phase in PHASES:
            p = result["phases"][phase]
            lines.append(
                f"| {shape} | {phase} | {p['wall_s']:.2f} s | {p['seat_cpu_s']:.2f} s | "
                f"{p['seat_cpu_per_host_s']:.3f} s | {p['exit']} |"
            )
    lines += [
        "",
        "| hosts × targets | runs started | late | start skew | collect / copy by hand |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for result in results:
        skew = result["skew_s"]
        ratio = result["collect_over_copy"]
        lines.append(
            f"| {result['hosts']} × {result['targets']} | {result['runs']} of "
            f"{result['runs_expected']} | {result['late']} | "
            f"{'—' if skew is None else f'{skew * 1000:.1f} ms'} | "
            f"{'—' if ratio is None else f'{ratio:.1f}×'} "
            f"({result['phases']['collect']['wall_s']:.2f} s / "
            f"{result['copy_by_hand_s']:.2f} s, {result['store_bytes'] / 1e6:.1f} MB) |"
        )
    worst_cpu = max(r["phases"][p]["seat_cpu_per_host_s"] for r in results for p in PHASES)
    skews = [r["skew_s"] for r in results if r["skew_s"] is not None]
    ratios = [r["collect_over_copy"] for r in results if r["collect_over_copy"] is not None]
    lines += [
        "",
        f"Targets: start skew ≤ {SKEW_TARGET_S * 1000:.0f} ms "
        f"({_verdict(bool(skews) and max(skews) <= SKEW_TARGET_S)}); collect ≤ "
        f"{COLLECT_TARGET:g}× the copy by hand "
        f"({_verdict(bool(ratios) and max(ratios) <= COLLECT_TARGET)}); seat CPU ≤ "
        f"{SEAT_CPU_TARGET_S:g} s per host per phase "
        f"({_verdict(worst_cpu <= SEAT_CPU_TARGET_S)}, worst {worst_cpu:.3f} s); no run "
        f"late ({_verdict(all(r['late'] == 0 for r in results))}).",
        "",
        END,
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", default="1,10", help="host counts, comma separated")
    parser.add_argument("--targets", type=int, default=10, help="file targets per host")
    parser.add_argument("--tiny", action="store_true", help="2 hosts x 2 targets (the suite)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
    parser.add_argument("--results", type=Path, help=f"the file whose block to rewrite ({RESULTS})")
    args = parser.parse_args()
    missing = missing_requirements()
    if missing is not None:
        raise SystemExit(f"bench/fleet_scale.py needs namespaced hosts: {missing}")
    counts = [2] if args.tiny else [int(word) for word in args.hosts.split(",")]
    targets = 2 if args.tiny else args.targets
    results = []
    for hosts in counts:
        with tempfile.TemporaryDirectory(prefix="ssdlab-bench-fleet-scale-") as scratch:
            results.append(measure(hosts, targets, Path(scratch)))
    default = None if args.tiny else RESULTS
    publish(results, markdown(results), as_json=args.json, results=args.results, default=default)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
