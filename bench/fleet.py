"""What a fleet costs over running ssdlab on each node by hand (issue 19), on namespaced hosts
of this machine (network namespaces with a real sshd each, as the fleet tests make them).

(a) Start skew. `ssdlab fleet run INVENTORY quick --start-in S` against the anchor, the same
    quick run started on every node at once by hand (`ssh node ssdlab quick …`, one process per
    node, launched together). Skew = latest minus earliest `runs.started_at_s` of the nodes'
    runs, read from the nodes' own stores (the run row is made the instant the wait ends).
    Target: <= 50 ms with --start-at. The wall time of both is shown too; the fleet's includes
    its doctor, the deliberate wait before the start and the collect at the end.

(b) Collect. A node store holding N runs (copies of the runs of the old-store fixture, each
    with a run UUID of its own) collected by `ssdlab fleet collect` into an empty store, then
    collected again (nothing new), against the anchor: the node's store file copied over ssh
    by hand (`ssh node cat STORE > file`), in the same run. Reported per run and per 1,000 runs.

    python bench/fleet.py                     # 3 hosts, 1,000 runs; a few minutes; rewrites
                                              # its block of bench/RESULTS.md
    python bench/fleet.py --tiny --json       # 2 hosts, 14 runs: what CI runs
"""

import argparse
import os
import platform
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))

from results_block import publish  # noqa: E402
from tests.fleet.hosts import FleetLab, missing_requirements, start_hosts  # noqa: E402

FIXTURE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"
RESULTS = ROOT / "bench" / "RESULTS.md"
BEGIN = "<!-- BEGIN bench/fleet.py: generated, edits inside are overwritten -->"
END = "<!-- END bench/fleet.py -->"
QUICK = ["--size", "16MiB", "--measure", "1", "--count", "1", "--interval", "0", "--mode", "read"]
SKEW_TARGET_S = 0.050


def ssdlab_words() -> list[str]:
    return ["env", f"PYTHONPATH={ROOT / 'src'}", sys.executable, "-m", "ssdlab"]


def local(*args: str, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run(
        [sys.executable, "-m", "ssdlab", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    return done


def node_vars(lab: FleetLab, folder: Path) -> dict[str, dict[str, str]]:
    found = {}
    for host in lab.hosts:
        (folder / host.name / "target").mkdir(parents=True, exist_ok=True)
        found[host.name] = {
            "ssdlab_db": str(folder / host.name / "ssdlab.db"),
            "ssdlab_targets": str(folder / host.name / "target"),
            "ssdlab_command": shlex.join(ssdlab_words()),
        }
    return found


def started_at(db: str) -> list[float]:
    with sqlite3.connect(db) as conn:
        return [float(row[0]) for row in conn.execute("SELECT started_at_s FROM runs")]


def hand_words(node: dict[str, str]) -> list[str]:
    """The quick run a user would start on one node by hand."""
    target, db = node["ssdlab_targets"], node["ssdlab_db"]
    return [*ssdlab_words(), "quick", target, *QUICK, "--db", db, "--json"]


def skew_and_wall(lab: FleetLab, folder: Path, start_in: float) -> dict[str, Any]:
    """(a): the fleet run, then the same runs started by hand on every node at once."""
    fleet_vars = node_vars(lab, folder / "fleet")
    inventory = lab.write_inventory_ini(folder / "fleet.ini", fleet_vars)
    began = time.monotonic()
    done = local(
        "fleet", "run", str(inventory), "quick", "--start-in", str(start_in),
        "--db", str(folder / "central.db"), "--json", "--", *QUICK,
    )  # fmt: skip
    fleet_wall = time.monotonic() - began
    if done.returncode != 0:
        raise SystemExit(f"fleet run failed ({done.returncode}): {done.stderr[-2000:]}")
    fleet_starts = [t for v in fleet_vars.values() for t in started_at(v["ssdlab_db"])]

    hand_vars = node_vars(lab, folder / "hand")
    began = time.monotonic()
    children = [
        subprocess.Popen(
            lab.ssh_argv(host, hand_words(hand_vars[host.name])),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for host in lab.hosts
    ]
    for child in children:
        _, err = child.communicate(timeout=600)
        if child.returncode != 0:
            raise SystemExit(f"hand run failed: {err.decode()[-2000:]}")
    hand_wall = time.monotonic() - began
    hand_starts = [t for v in hand_vars.values() for t in started_at(v["ssdlab_db"])]
    return {
        "hosts": len(lab.hosts),
        "start_in_s": start_in,
        "fleet_skew_s": max(fleet_starts) - min(fleet_starts),
        "hand_skew_s": max(hand_starts) - min(hand_starts),
        "fleet_wall_s": fleet_wall,
        "hand_wall_s": hand_wall,
    }


def node_store(path: Path, runs: int, scratch: Path) -> int:
    """A store of at least `runs` runs: fresh copies of the fixture (each copy's migration gives
    its runs new UUIDs) merged in until there are enough."""
    from ssdlab.store.db import open_store
    from ssdlab.store.merge import copy_runs

    dest = open_store(path)
    try:
        count = 0
        round_ = 0
        while count < runs:
            copy = scratch / f"fixture-{round_}.sqlite"
            shutil.copyfile(FIXTURE, copy)
            source = open_store(copy)
            try:
                copy_runs(source, dest, host=None, collected_at_s=None)
            finally:
                source.close()
            copy.unlink()
            round_ += 1
            count = int(dest.execute("SELECT count(*) FROM runs").fetchone()[0])
        dest.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return count
    finally:
        dest.close()


def collect_cost(lab: FleetLab, folder: Path, runs: int) -> dict[str, Any]:
    """(b): one node's store of `runs` runs collected twice, and copied over ssh by hand."""
    host = lab.hosts[0]
    store = folder / "collect" / host.name / "ssdlab.db"
    store.parent.mkdir(parents=True)
    held = node_store(store, runs, folder)
    inventory = lab.write_inventory_ini(
        folder / "collect.ini",
        {host.name: {"ssdlab_db": str(store), "ssdlab_command": shlex.join(ssdlab_words())}},
        hosts=[host],
    )
    central = folder / "collect-central.db"
    walls = []
    for _ in range(2):
        began = time.monotonic()
        done = local("fleet", "collect", str(inventory), "--db", str(central), "--json")
        walls.append(time.monotonic() - began)
        if done.returncode != 0:
            raise SystemExit(f"fleet collect failed: {done.stderr[-2000:]}")
    with sqlite3.connect(central) as conn:
        collected = int(conn.execute("SELECT count(*) FROM runs").fetchone()[0])
    copied = folder / "by-hand.db"
    began = time.monotonic()
    with copied.open("wb") as sink:
        subprocess.run(
            lab.ssh_argv(host, ["cat", str(store)]),
            stdout=sink,
            stdin=subprocess.DEVNULL,
            check=True,
        )
    by_hand = time.monotonic() - began
    return {
        "runs": held,
        "collected": collected,
        "store_bytes": store.stat().st_size,
        "first_collect_s": walls[0],
        "second_collect_s": walls[1],
        "ssh_cat_s": by_hand,
        "per_run_ms": walls[0] / held * 1000,
        "per_1000_runs_s": walls[0] / held * 1000,
    }


def machine() -> str:
    load = os.getloadavg()[0]
    return (
        f"{platform.node()}, {os.cpu_count()} CPUs, Linux {platform.release()}, "
        f"load average {load:.2f} at the end"
    )


def markdown(result: dict[str, Any]) -> str:
    a, b = result["start"], result["collect"]
    verdict = "met" if a["fleet_skew_s"] <= SKEW_TARGET_S else "missed"
    return "\n".join(
        [
            BEGIN,
            "## Fleet runs on namespaced hosts (`bench/fleet.py`)",
            "",
            f"Machine: {machine()}; {time.strftime('%Y-%m-%d')}.",
            "",
            f"### (a) Start skew, {a['hosts']} hosts, quick `{' '.join(QUICK)}`",
            "",
            "| | start skew | wall time |",
            "| --- | ---: | ---: |",
            f"| `fleet run --start-in {a['start_in_s']:g}` | {a['fleet_skew_s'] * 1000:.1f} ms "
            f"| {a['fleet_wall_s']:.1f} s |",
            f"| by hand: `ssh node ssdlab quick` on every node at once | "
            f"{a['hand_skew_s'] * 1000:.1f} ms | {a['hand_wall_s']:.1f} s |",
            "",
            f"Target ≤ {SKEW_TARGET_S * 1000:.0f} ms: **{verdict}**. The fleet's wall time "
            f"includes its doctor, the {a['start_in_s']:g} s wait before the start and the "
            "collect at the end.",
            "",
            f"### (b) Collect, one node holding {b['runs']:,} runs "
            f"({b['store_bytes'] / 1e6:,.1f} MB store)",
            "",
            "| | time |",
            "| --- | ---: |",
            f"| first `fleet collect` (all {b['collected']:,} runs) | "
            f"{b['first_collect_s']:.2f} s |",
            f"| per run | {b['per_run_ms']:.1f} ms |",
            f"| per 1,000 runs | {b['per_1000_runs_s']:.1f} s |",
            f"| second `fleet collect` (nothing new) | {b['second_collect_s']:.2f} s |",
            f"| anchor: the store file by hand (`ssh node cat STORE > file`) | "
            f"{b['ssh_cat_s']:.2f} s |",
            "",
            END,
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="2 hosts, 14 runs (CI)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
    parser.add_argument("--results", type=Path, help=f"the file whose block to rewrite ({RESULTS})")
    args = parser.parse_args()
    missing = missing_requirements()
    if missing is not None:
        raise SystemExit(f"bench/fleet.py needs namespaced hosts: {missing}")
    with tempfile.TemporaryDirectory(prefix="ssdlab-bench-fleet-") as scratch:
        folder = Path(scratch)
        with start_hosts(2 if args.tiny else 3, folder / "lab") as lab:
            result = {
                "start": skew_and_wall(lab, folder, 3.0),
                "collect": collect_cost(lab, folder, 14 if args.tiny else 1000),
            }
    default = None if args.tiny else RESULTS
    publish(result, markdown(result), as_json=args.json, results=args.results, default=default)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
