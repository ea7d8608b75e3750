"""Re-measure every figure of bench/RESULTS.md in one run: each benchmark script in turn, each
rewriting its own generated block, then a line at the top of every block with the machine, the
commit measured and the load while that script ran, and a summary block of the whole run.

    python bench/all.py                      # everything, about 25-30 minutes on 2 CPUs
    python bench/all.py --only overhead-full --only null-modes-real   # some steps
    python bench/all.py --list               # the steps and their commands

The machine is not assumed idle: no step waits for quiet (`--quiet-wait 0` where a script has
it). Instead the load average before and after each step and the CPU time other processes used
while it ran (from /proc/stat, minus this run's own processes) are written beside its figures;
the comparisons themselves alternate the two sides round by round, so their ratios are taken
under the same load. Sizes are chosen to fit the time budget; each step says which (see
STEPS). A step that fails leaves its old block in place, marked as not re-measured.
"""

import argparse
import datetime as dt
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from overhead import cpu_description, git_state, memory_description  # noqa: E402
from results_block import write_block  # noqa: E402

RESULTS = HERE / "RESULTS.md"
BEGIN = "<!-- BEGIN bench/all.py: generated, edits inside are overwritten -->"
END = "<!-- END bench/all.py -->"
STAMP = "> **Measured by `python bench/all.py`**"  # the line put at the top of each block
STALE = "> **Not re-measured**"


@dataclass(frozen=True, slots=True)
class Step:
    name: str
    script: str
    args: tuple[str, ...]
    marker: str  # the start of its block's BEGIN marker in RESULTS.md
    sizes: str  # what was made smaller than the script's default, and why


PY = sys.executable
SSDLAB = f"{PY} -m ssdlab"
STEPS = (
    Step(
        "overhead-full",
        "overhead.py",
        ("--reps", "3", "--wall-reps", "3", "--quiet-wait", "0", "--ssdlab", SSDLAB),
        "<!-- BEGIN bench/overhead.py full:",
        "3 alternating repetitions per case, (b) cases 3 times each",
    ),
    Step(
        "overhead-nvme",
        "overhead.py",
        ("--nvme", "--reps", "3", "--quiet-wait", "0", "--ssdlab", SSDLAB),
        "<!-- BEGIN bench/overhead.py nvme:",
        "3 alternating repetitions",
    ),
    Step(
        "null-modes-real",
        "null_modes.py",
        ("--rounds", "12", "--quiet-wait", "0"),
        "<!-- BEGIN bench/overhead.py null-modes-real:",
        "12 rounds (was 30)",
    ),
    Step(
        "null-modes-nvme",
        "null_modes.py",
        ("--preset", "nvme", "--rounds", "6", "--quiet-wait", "0"),
        "<!-- BEGIN bench/overhead.py null-modes-nvme:",
        "6 rounds (was 10)",
    ),
    Step(
        "sim-speed",
        "sim_speed.py",
        ("--repeat", "3"),
        "<!-- BEGIN bench/overhead.py sim-speed:",
        "as by default",
    ),
    Step(
        "endure-store",
        "endure_store.py",
        ("--results", str(RESULTS)),
        "<!-- BEGIN bench/endure_store.py",
        "as by default (12 iterations of 1 s, scaled to a day)",
    ),
    Step(
        "log-analysis",
        "log_analysis.py",
        ("--lines", "1000000", "--lines", "10000000", "--repeat", "3", "--results", str(RESULTS)),
        "<!-- BEGIN bench/log_analysis.py",
        "10^6 and 10^7 lines, 3 rounds; 10^8 lines left out (over 10 minutes and 4.5 GB of /tmp)",
    ),
    Step(
        "fleet",
        "fleet.py",
        ("--results", str(RESULTS)),
        "<!-- BEGIN bench/fleet.py",
        "as by default (3 hosts, 1,008 runs collected)",
    ),
    Step(
        "fleet-scale",
        "fleet_scale.py",
        ("--hosts", "1,10", "--targets", "10", "--results", str(RESULTS)),
        "<!-- BEGIN bench/fleet_scale.py",
        "as by default (1 and 10 hosts, 10 targets each)",
    ),
    Step(
        "store-scale",
        "store_scale.py",
        ("--runs", "10000", "--repeats", "3", "--results", str(RESULTS)),
        "<!-- BEGIN bench/store_scale.py",
        "10,000 runs (default 100,000: a 6 GB store and over 10 minutes to build); no default "
        "quick run (`--quick-default`, nearly 8 minutes)",
    ),
    Step(
        "model-fit",
        "model_fit_campaign.py",
        ("--results", str(RESULTS)),
        "<!-- BEGIN bench/model_fit_campaign.py",
        "as by default (seeds 1-25, 64 MiB drives)",
    ),
    Step(
        "metrics-scale",
        "metrics_scale.py",
        ("--drives", "200", "--rounds", "3", "--quiet-wait", "0", "--results", str(RESULTS)),
        "<!-- BEGIN bench/metrics_scale.py",
        "200 drives (default 1,000: 1.1 GB and 8 minutes to build)",
    ),
)


def busy_s() -> float:
    """CPU time every CPU has spent busy (user, nice, system, irq, softirq), in seconds."""
    fields = [int(v) for v in Path("/proc/stat").read_text(encoding="utf-8").split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, _steal = fields
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def children_cpu_s() -> float:
    times = os.times()
    return times.children_user + times.children_system


@dataclass(frozen=True, slots=True)
class Done:
    step: Step
    ok: bool
    took_s: float
    load_before: float
    load_after: float
    foreign_share: float  # CPU other processes used meanwhile, in CPUs (1.0 = one CPU busy)
    note: str


def machine() -> str:
    model, cores = cpu_description()
    fio = subprocess.run(["fio", "--version"], capture_output=True, text=True, check=False)
    return (
        f"{model}, {cores}, {memory_description()} RAM, Linux {platform.release()}, "
        f"{fio.stdout.strip() or 'no fio'}, Python {platform.python_version()}; "
        f"ssdlab {git_state()}"
    )


def run_step(step: Step, timeout_s: float) -> Done:
    argv = [PY, str(HERE / step.script), *step.args]
    # this checkout's src/ first; what PYTHONPATH held already (e.g. polars) stays after it
    paths = [str(ROOT / "src"), *filter(None, os.environ.get("PYTHONPATH", "").split(":"))]
    env = dict(os.environ, PYTHONPATH=":".join(dict.fromkeys(paths)))
    print(f"== {step.name}: {shlex.join(argv)}", file=sys.stderr, flush=True)
    load_before = os.getloadavg()[0]
    busy0, own0, started = busy_s(), children_cpu_s(), time.monotonic()
    note = ""
    try:
        done = subprocess.run(
            argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, timeout=timeout_s, check=False
        )
        ok = done.returncode == 0
        if not ok:
            note = f"exited with status {done.returncode}"
    except subprocess.TimeoutExpired:
        ok, note = False, f"stopped after {timeout_s:.0f} s"
    took = time.monotonic() - started
    foreign = max(0.0, (busy_s() - busy0) - (children_cpu_s() - own0)) / took
    result = Done(step, ok, took, load_before, os.getloadavg()[0], foreign, note)
    print(f"== {step.name}: {'ok' if ok else note}, {took:.0f} s", file=sys.stderr, flush=True)
    return result


def stamp_block(results: Path, done: Done, when: str, where: str) -> None:
    """Put the measured-by line at the top of the step's block (or mark the block stale)."""
    text = results.read_text(encoding="utf-8")
    start = text.find(done.step.marker)
    if start < 0:
        return
    line_end = text.index("\n", start) + 1
    rest = text[line_end:]
    if rest.startswith((STAMP, STALE)):
        rest = rest[rest.index("\n\n") + 2 :]
    if done.ok:
        line = (
            f"{STAMP} on {when} (this step took {done.took_s:.0f} s; sizes: "
            f"{done.step.sizes}). Machine: {where}. Load average (1 min) "
            f"{done.load_before:.2f} before, {done.load_after:.2f} after; other processes "
            f"kept {done.foreign_share:.2f} CPUs busy meanwhile.\n\n"
        )
    else:
        line = (
            f"{STALE} on {when}: `bench/{done.step.script}` {done.note}; the figures below are "
            "older (their own date and commit are in the block).\n\n"
        )
    results.write_text(text[:line_end] + line + rest, encoding="utf-8")


def summary_rows(done: list[Done], when: str) -> dict[str, str]:
    rows = {}
    for d in done:
        command = shlex.join(["python", f"bench/{d.step.script}", *d.step.args])
        command = command.replace(str(RESULTS), "bench/RESULTS.md").replace(SSDLAB, "…")
        rows[d.step.name] = (
            f"| {d.step.name} | {when} | `{command}` | {d.took_s:.0f} s | {d.load_before:.2f} → "
            f"{d.load_after:.2f} | {d.foreign_share:.2f} | "
            f"{'re-measured' if d.ok else 'not re-measured: ' + d.note} |"
        )
    return rows


def earlier_rows(text: str) -> dict[str, str]:
    """The summary rows of the block already in RESULTS.md, by step name (kept for the steps
    an `--only` run leaves out)."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < 0:
        return {}
    names = {s.name for s in STEPS}
    block = text[start:end]
    dated = re.search(r"on (\d{4}-\d\d-\d\d \d\d:\d\d UTC)", block)
    rows = {}
    for line in block.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 2 and cells[1] in names:
            if len(cells) == 8 and dated:  # the first layout, without the "run on" column
                cells.insert(2, dated.group(1))
                line = " | ".join(cells).strip()
            rows[cells[1]] = line
    return rows


def summary(rows: dict[str, str], when: str, where: str, argv: list[str]) -> str:
    lines = [
        BEGIN,
        "## How these figures were made (`bench/all.py`)",
        "",
        f"`{shlex.join(['python', 'bench/all.py', *argv])}` last ran on {when}. Machine: "
        f"{where}. Each step's row says when it ran; `python bench/all.py` with no options "
        "runs them all.",
        "",
        "| step | run on | command | took | load avg before → after | other processes (CPUs) "
        "| result |",
        "| --- | --- | --- | ---: | --- | ---: | --- |",
    ]
    lines += [rows[s.name] for s in STEPS if s.name in rows]
    lines += [
        "",
        "The machine was shared: the *other processes* column is the CPU time everything "
        "outside this run used while the step ran, in CPUs kept busy on average (2.00 = both "
        "of the 2 CPUs). Ratios below alternate their two sides round by round, so both sides "
        "ran under that load; absolute times and rates are slower than on an idle machine.",
        END,
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="run only this step (repeatable)")
    parser.add_argument("--list", action="store_true", help="print the steps and exit")
    parser.add_argument("--timeout", type=float, default=900.0, help="per step, seconds")
    args = parser.parse_args()
    if args.list:
        for step in STEPS:
            print(f"{step.name}: python bench/{step.script} {shlex.join(step.args)}")
        return 0
    chosen = [s for s in STEPS if not args.only or s.name in args.only]
    unknown = set(args.only or ()) - {s.name for s in STEPS}
    if unknown:
        parser.error(f"unknown step(s): {', '.join(sorted(unknown))}")
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    where = machine()
    done = []
    for step in chosen:
        result = run_step(step, args.timeout)
        stamp_block(RESULTS, result, when, where)
        done.append(result)
    given = sys.argv[1:]
    text = RESULTS.read_text(encoding="utf-8")
    rows = {**earlier_rows(text), **summary_rows(done, when)}
    block = summary(rows, when, where, given)
    if BEGIN not in text:  # first time: right under the title and its introduction
        head, sep, tail = text.partition("\n<!-- BEGIN ")
        RESULTS.write_text(f"{head}\n{block}\n{sep}{tail}", encoding="utf-8")
    else:
        write_block(RESULTS, BEGIN, END, block)
    return 0 if all(d.ok for d in done) else 1


if __name__ == "__main__":
    raise SystemExit(main())
