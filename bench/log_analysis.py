"""How fast ssdlab reduces a per-I/O latency log, and whether its memory stays bounded.

A seeded synthetic fio per-I/O log (`time_ms, value_ns, ddir, bs, offset`, lognormal latencies,
reads and writes, 100,000 I/Os a second) of N lines is written to a temporary file; ssdlab's
streaming reducer (`parse/fio_lat_log.py` + `analysis/latency_stream.py`) turns it into
percentiles and a per-second series in a child process, whose wall time and peak RSS are
measured. The same is done by the baseline a user would write by hand (the csv module, every
latency kept in a list, sorted for percentiles) for the sizes it can hold.

    python bench/log_analysis.py                  # 10^6 and 10^7 lines, ~2 min
    python bench/log_analysis.py --lines 100000   # the tiny CI version
    python bench/log_analysis.py --lines 100000000 --skip-baseline   # 10^8 lines, ~4.5 GB

fio's own tools/fiologparser.py is not in Debian's fio package and was not run; fio-plot's
log import was not run either (it needs a network install); fio_jsonplus_clat2csv reads json+
histograms, not per-I/O logs, so it does not do this job.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CHUNK = 1_000_000

SSDLAB_CHILD = """
import json, sys
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
from ssdlab.analysis.latency_stream import reduce_latency_chunks
from ssdlab.parse.fio_lat_log import iter_latency_chunks
with open(sys.argv[1], "rb") as handle:
    result = reduce_latency_chunks(iter_latency_chunks(handle))
out = {d: [s.count, dict(s.percentiles_ns)[99.0], len(s.series)] for d, s in result.items()}
print(json.dumps({"result": out, "rss_kib": hwm()}))
"""

BASELINE_CHILD = """
import csv, json, sys
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
values = {}
with open(sys.argv[1], newline="") as handle:
    for row in csv.reader(handle):
        values.setdefault(int(row[2]), []).append(int(row[1]))
out = {}
for d, v in values.items():
    v.sort()
    out[d] = [len(v), v[min(len(v) - 1, int(0.99 * len(v)))]]
print(json.dumps({"result": out, "rss_kib": hwm()}))
"""


def write_log(path: Path, lines: int, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    with path.open("w", encoding="ascii") as handle:
        for start in range(0, lines, CHUNK):
            n = min(CHUNK, lines - start)
            times = (np.arange(start, start + n) // 100).astype(np.int64)  # 100,000 I/Os a second
            lat = rng.lognormal(11.0, 0.6, n).astype(np.int64)
            ddir = rng.integers(0, 2, n)
            offsets = rng.integers(0, 2**20, n) * 4096
            handle.writelines(
                f"{t}, {v}, {d}, 4096, {o}\n"
                for t, v, d, o in zip(times.tolist(), lat.tolist(), ddir.tolist(),
                                      offsets.tolist(), strict=True)
            )  # fmt: skip


def measure(code: str, log: Path) -> dict[str, float]:
    """Wall time of the child, and its own peak RSS as it reports it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code, str(log)], env=env, capture_output=True,
                          text=True, check=True)  # fmt: skip
    wall = time.monotonic() - started
    report = json.loads(done.stdout)
    return {"wall_s": wall, "peak_rss_mb": report["rss_kib"] * 1024 / 1e6}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, action="append", help="log sizes (repeatable)")
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sizes = args.lines or [10**6, 10**7]
    rows = []
    with tempfile.TemporaryDirectory(prefix="ssdlab-bench-") as folder:
        for n in sizes:
            log = Path(folder) / f"lat-{n}.log"
            write_log(log, n)
            row: dict[str, float] = {"lines": n, "log_bytes": log.stat().st_size}
            ours = measure(SSDLAB_CHILD, log)
            row |= {"ssdlab_s": ours["wall_s"], "ssdlab_rss_mb": ours["peak_rss_mb"]}
            if not args.skip_baseline:
                base = measure(BASELINE_CHILD, log)
                row |= {"baseline_s": base["wall_s"], "baseline_rss_mb": base["peak_rss_mb"]}
            log.unlink()
            rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print("## Per-I/O latency log analysis (`bench/log_analysis.py`)\n")
    print(f"Machine: {platform.node()}, {os.cpu_count()} CPUs, Linux {platform.release()}, "
          f"load average {os.getloadavg()[0]:.2f}.\n")  # fmt: skip
    print("| lines | log MB | ssdlab lines/s | ssdlab peak RSS MB | baseline lines/s | "
          "baseline peak RSS MB |")  # fmt: skip
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        base = (f"{r['lines'] / r['baseline_s']:,.0f} | {r['baseline_rss_mb']:.0f}"
                if "baseline_s" in r else "— | —")  # fmt: skip
        print(
            f"| {r['lines']:,.0f} | {r['log_bytes'] / 1e6:,.0f} | "
            f"{r['lines'] / r['ssdlab_s']:,.0f} | {r['ssdlab_rss_mb']:.0f} | {base} |"
        )
    print("\nPeak RSS is each child's own high-water mark (VmHWM), Python and numpy included.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
