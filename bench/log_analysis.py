"""How fast ssdlab reduces a per-I/O latency log, against polars and fio's own parser, and
whether its memory stays flat.

A seeded synthetic fio per-I/O log (`time_ms, value_ns, ddir, bs, offset`, lognormal latencies,
reads and writes, 100,000 I/Os a second) of N lines is written to a temporary file. Each tool
then does the same job on it in a child process (per-direction percentiles p50..p99.9999 and a
per-second series), the tools taking turns, `--repeat` rounds; the child's wall time (median of
the rounds) and its own peak RSS (VmHWM, highest of the rounds) are recorded:

- ssdlab, compiled core (logcore/: hand-written parser, log-linear histogram, 2 threads);
- ssdlab, numpy core (the reference and fallback), up to 10^7 lines;
- polars (a lazy `scan_csv`, `collect_all(engine="streaming")`: exact nearest-rank percentiles
  per direction and count/mean/p99 per direction and second), when polars is installed
  (`pip install -e '.[bench]'`); its percentiles are the exact ones the errors are taken from;
- fio's tools/fiologparser.py `-a` (per-second averages of the values, all directions together:
  the series half of the job, no percentiles), vendored under bench/vendor/ (GPL-2.0, see
  bench/vendor/README.md), up to 10^6 lines (its own comment calls it O(N^2): at 10^7 lines it
  would run for hours).

    python bench/log_analysis.py                          # 10^6 and 10^7 lines, ~2 min
    python bench/log_analysis.py --lines 100000           # the tiny CI version, seconds
    python bench/log_analysis.py --lines 100000000 --repeat 1   # 10^8 lines, ~4.5 GB of /tmp
    python bench/log_analysis.py --results bench/RESULTS.md     # also rewrite its block there
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from results_block import write_block

ROOT = Path(__file__).resolve().parents[1]
FIOLOGPARSER = ROOT / "bench" / "vendor" / "fiologparser.py"
CHUNK = 1_000_000
PERCENTILES = ("50", "90", "95", "99", "99.9", "99.99", "99.999", "99.9999")
PYTHON_CORE_MAX_LINES = 10**7
FIOLOGPARSER_MAX_LINES = 10**6
BEGIN = "<!-- BEGIN bench/log_analysis.py: generated, edits inside are overwritten -->"
END = "<!-- END bench/log_analysis.py -->"

_HWM = """
def hwm_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
"""

SSDLAB_CHILD = (
    _HWM
    + """
import json, sys
from pathlib import Path
from ssdlab.runner.latency_logs import reduce_latency_logs
result = reduce_latency_logs([Path(sys.argv[1])], sys.argv[2])
out = {
    d: {"count": s.count, "seconds": len(s.series),
        "percentiles": {f"{p:g}": v for p, v in s.percentiles_ns}}
    for d, s in result.directions.items()
}
print(json.dumps({"core": result.core, "result": out, "rss_kib": hwm_kib()}))
"""
)

POLARS_CHILD = (
    _HWM
    + """
import json, sys
import polars as pl
PCTS = [50, 90, 95, 99, 99.9, 99.99, 99.999, 99.9999]
names = ["time_ms", "value_ns", "ddir", "bs", "offset"]
log = pl.scan_csv(sys.argv[1], has_header=False, new_columns=names,
                  schema={n: pl.Int64 for n in names})
value = pl.col("value_ns")
pcts = [value.quantile(p / 100, interpolation="higher").alias(f"{p:g}") for p in PCTS]
by_direction = log.group_by("ddir").agg(pl.len().alias("count"), *pcts)
per_second = log.group_by("ddir", (pl.col("time_ms") // 1000).alias("second")).agg(
    pl.len().alias("ios"), value.mean().alias("mean_ns"),
    value.quantile(0.99, interpolation="higher").alias("p99_ns"))
totals, seconds = pl.collect_all([by_direction, per_second], engine="streaming")
names = {0: "read", 1: "write", 2: "trim"}
out = {}
for row in totals.iter_rows(named=True):
    n = int(seconds.filter(pl.col("ddir") == row["ddir"]).height)
    out[names[row["ddir"]]] = {"count": row["count"], "seconds": n,
        "percentiles": {f"{p:g}": float(row[f"{p:g}"]) for p in PCTS}}
print(json.dumps({"result": out, "rss_kib": hwm_kib()}))
"""
)

FIOLOGPARSER_CHILD = (
    _HWM
    + """
import contextlib, io, json, runpy, sys
sys.argv = [sys.argv[2], "-a", sys.argv[1]]
printed = io.StringIO()
with contextlib.redirect_stdout(printed):
    runpy.run_path(sys.argv[0], run_name="__main__")
lines = [line for line in printed.getvalue().splitlines() if line.strip()]
print(json.dumps({"result": {"all": {"seconds": len(lines)}}, "rss_kib": hwm_kib()}))
"""
)


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


def measure(code: str, *argv: str) -> dict[str, object]:
    """Wall time of the child and its own peak RSS as it reports it (its last stdout line)."""
    paths = [str(ROOT / "src"), *filter(None, os.environ.get("PYTHONPATH", "").split(":"))]
    env = dict(os.environ, PYTHONPATH=":".join(dict.fromkeys(paths)))  # polars may be there
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code, *argv], env=env, capture_output=True,
                          text=True, check=True)  # fmt: skip
    wall = time.monotonic() - started
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return {"wall_s": wall, "peak_rss_mb": report["rss_kib"] * 1024 / 1e6, **report}


def have(module: str) -> bool:
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True)
    return done.returncode == 0


def contenders(lines: int) -> dict[str, tuple[str, ...]]:
    """name -> (child code, argv...) of the tools that run at this size."""
    log = "{log}"
    found: dict[str, tuple[str, ...]] = {}
    if have("ssdlab_logcore"):
        found["ssdlab compiled"] = (SSDLAB_CHILD, log, "compiled")
    if lines <= PYTHON_CORE_MAX_LINES:
        found["ssdlab numpy"] = (SSDLAB_CHILD, log, "python")
    if have("polars"):
        found["polars streaming"] = (POLARS_CHILD, log)
    if lines <= FIOLOGPARSER_MAX_LINES and FIOLOGPARSER.exists():
        found["fiologparser -a"] = (FIOLOGPARSER_CHILD, log, str(FIOLOGPARSER))
    return found


def percentile_error(result: dict[str, object], exact: dict[str, object]) -> float | None:
    """The largest relative error of any percentile of any direction against `exact`."""
    worst = None
    for direction, found in result.items():
        want = exact.get(direction)
        if not isinstance(found, dict) or "percentiles" not in found or not isinstance(want, dict):
            continue
        for key, value in found["percentiles"].items():
            truth = want["percentiles"][key]
            error = abs(value - truth) / truth
            worst = error if worst is None else max(worst, error)
    return worst


def run_size(lines: int, repeat: int, folder: Path) -> dict[str, object]:
    log = folder / f"lat-{lines}.log"
    write_log(log, lines)
    row: dict[str, object] = {"lines": lines, "log_bytes": log.stat().st_size, "tools": {}}
    tools = contenders(lines)
    walls: dict[str, list[float]] = {name: [] for name in tools}
    rss: dict[str, float] = {}
    results: dict[str, dict[str, object]] = {}
    names = list(tools)
    for number in range(repeat):  # the tools take turns (order rotated each round): drift in
        order = names[number % len(names) :] + names[: number % len(names)]  # the machine
        for name in order:  # hits all alike
            code, *argv = tools[name]
            done = measure(code, *(str(log) if a == "{log}" else a for a in argv))
            walls[name].append(float(done["wall_s"]))  # type: ignore[arg-type]
            rss[name] = max(rss.get(name, 0.0), float(done["peak_rss_mb"]))  # type: ignore[arg-type]
            results[name] = done["result"]  # type: ignore[assignment]
    log.unlink()
    exact = results.get("polars streaming")
    for name in tools:
        wall = statistics.median(walls[name])
        row["tools"][name] = {  # type: ignore[index]
            "wall_s": wall,
            "lines_per_s": lines / wall,
            "peak_rss_mb": rss[name],
            "percentile_error": None if exact is None else percentile_error(results[name], exact),
            "counts": {d: r.get("count") for d, r in results[name].items()},  # type: ignore[union-attr]
            "seconds": {d: r.get("seconds") for d, r in results[name].items()},  # type: ignore[union-attr]
        }
    polars = row["tools"].get("polars streaming")  # type: ignore[union-attr]
    for name, found in row["tools"].items():  # type: ignore[union-attr]
        found["vs_polars"] = (
            None if polars is None else found["lines_per_s"] / polars["lines_per_s"]
        )
        # the same ratio round by round (polars' wall / this tool's wall in the same round)
        found["vs_polars_rounds"] = (
            None
            if polars is None
            else [p / w for p, w in zip(walls["polars streaming"], walls[name], strict=True)]
        )
    return row


def machine() -> str:
    cpu = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")), "unknown CPU")  # fmt: skip
    mem_kib = next(
        int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
        if line.startswith("MemTotal:"))  # fmt: skip
    return (
        f"{platform.node()}: {cpu}, {os.cpu_count()} CPUs, {mem_kib * 1024 / 1e9:.1f} GB RAM, "
        f"Linux {platform.release()}, Python {platform.python_version()}, "
        f"load average {os.getloadavg()[0]:.2f} at the start"
    )


def markdown(rows: list[dict[str, object]], repeat: int, host: str) -> str:
    out = [
        "## Per-I/O latency log analysis (`bench/log_analysis.py`)",
        "",
        f"Machine: {host}. Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"lines/s from the median wall time of {repeat} round(s), the tools taking turns on "
        "the same log (order rotated each round); × polars is the ratio of wall times within "
        "each round, median [min–max] over the rounds.",
        "",
        "| lines | log MB | tool | lines/s | × polars | peak RSS MB | max percentile error |",
        "| ---: | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        for name, found in row["tools"].items():  # type: ignore[attr-defined]
            rounds = found["vs_polars_rounds"]
            ratio = "—"
            if rounds is not None:
                low, mid, high = min(rounds), statistics.median(rounds), max(rounds)
                ratio = f"{mid:.2f} [{low:.2f}–{high:.2f}]"
            error = found["percentile_error"]
            shown = "exact (reference)" if name == "polars streaming" else (
                "— (no percentiles)" if name.startswith("fiologparser") else
                "—" if error is None else f"{error:.3%}")  # fmt: skip
            out.append(
                f"| {row['lines']:,} | {row['log_bytes'] / 1e6:,.0f} | {name} | "  # type: ignore[str-format]
                f"{found['lines_per_s']:,.0f} | {ratio} | {found['peak_rss_mb']:.0f} | {shown} |"
            )
    out += [
        "",
        "Every tool does per-direction percentiles (p50 … p99.9999) and a per-second series "
        "(count, mean, p99) except fiologparser, which does the per-second averages only. Peak "
        "RSS is each child's own high-water mark (VmHWM), Python included. Errors are against "
        "polars' exact percentiles (interpolation 'higher', the nearest-rank value); ssdlab's "
        "bound is 0.39 % (half a bucket of 2^7 per power of two). The load average counts "
        "whatever else ran on the machine: the ratios come from the same rounds, the tools "
        "taking turns.",
    ]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, action="append", help="log sizes (repeatable)")
    parser.add_argument("--repeat", type=int, default=None, help="rounds (default 3, 1 tiny)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--results", type=Path, help="rewrite this file's log_analysis block")
    args = parser.parse_args()
    sizes = args.lines or [10**6, 10**7]
    repeat = args.repeat or (1 if max(sizes) <= 100_000 else 3)
    host = machine()
    with tempfile.TemporaryDirectory(prefix="ssdlab-bench-") as folder:
        rows = [run_size(n, repeat, Path(folder)) for n in sizes]
    text = markdown(rows, repeat, host)
    if args.results:
        marker = "<!-- BEGIN bench/log_analysis.py"  # older blocks had another marker text
        write_block(args.results, marker, END, f"{BEGIN}\n{text}\n{END}")
    if args.json:
        print(json.dumps({"machine": host, "repeat": repeat, "rows": rows}, indent=2))
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
