"""Why null-ioengine passes scatter: one fio job, run three ways, many times, interleaved.

With `ioengine=null` fio does no I/O and its IOPS measure fio itself, so they depend on the CPU
its processes land on. This runs the measured-pass job files of the `real` preset's read tests
(SEQ1M Q1T1, RND4K Q1T1, as `ssdlab plan quick` prints them; `--preset nvme` for that preset's
four) round after round, each round in a rotated order:

- *fio by hand*: `fio --output-format=json+ /tmp/…/job.fio` started the way ssdlab starts it
  (bench/fio_anchor.py: a fresh folder in the temporary directory, its own session, the same
  environment), but by this script's own code;
- *ssdlab's runner*: the very function `ssdlab quick` runs every pass with
  (`ssdlab.system.fio.run_fio_job`, through `ssdlab.system.process.ProcessRunner`);
- *fio by hand, pinned*: the same as by hand under `taskset -c 0`, so fio's processes share
  one CPU.

If ssdlab's way of starting fio cost IOPS, the runner's passes would sit lower than the hand
runs'; the pinned runs show how much of the scatter is the placement of fio's processes.
Besides the ratio of means over all passes, every round gives a paired ratio (runner / by hand
of the same test in the same round, a few seconds apart), shown as median [min–max] over the
rounds: load that comes and goes hits both passes of a pair alike.

    python bench/null_modes.py --rounds 30                # about 2.5 min; updates bench/RESULTS.md
    python bench/null_modes.py --preset nvme --rounds 10  # about 1.5 min; its own block
"""

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from fio_anchor import run_anchor
from overhead import (
    DEFAULT_RESULTS,
    Clock,
    Interference,
    checked,
    cpu_description,
    cpu_snapshot,
    find_fio,
    find_ssdlab,
    fio_iops,
    fio_json,
    git_state,
    md_table,
    run_timed,
    write_results,
)
from ssdlab.system.fio import find_fio as ssdlab_fio_tool
from ssdlab.system.fio import run_fio_job
from ssdlab.system.process import ProcessRunner

LOW_SHARE = 0.8  # a pass below 80 % of the median of all passes of its test is "low"
BOOTSTRAP_SAMPLES = 4000


def ratio_interval(
    values: Sequence[float], reference: Sequence[float], seed: int = 2
) -> tuple[float, float, float]:
    """mean(values) / mean(reference) and a 95 % percentile-bootstrap interval (seeded)."""
    rng = random.Random(seed)
    ratios = sorted(
        statistics.fmean(rng.choices(values, k=len(values)))
        / statistics.fmean(rng.choices(reference, k=len(reference)))
        for _ in range(BOOTSTRAP_SAMPLES)
    )
    low, high = ratios[int(0.025 * len(ratios))], ratios[int(0.975 * len(ratios)) - 1]
    return statistics.fmean(values) / statistics.fmean(reference), low, high


def planned_jobs(ssdlab: list[str], folder: Path, preset: str, measure_s: float) -> dict[str, str]:
    """The measured-pass job file of every read test of `preset`, by test key."""
    argv = [*ssdlab, "plan", "quick", str(folder / "ssdlab-null-modes.tmp")]
    argv += ["--ioengine", "null", "--mode", "read", "--preset", preset, "--size", "64MiB"]
    argv += ["--count", "1", "--measure", f"{measure_s:g}", "--interval", "0", "--json"]
    jobs = json.loads(checked(run_timed(argv)).stdout)["jobs"]
    return {
        job["name"].removesuffix("-read-p1"): job["text"]
        for job in jobs
        if job["name"].endswith("-read-p1")
    }


def pinned(cpus: str | None) -> list[str]:
    """The prefix that pins a command (and what it starts) to `cpus`; [] for no pinning."""
    if cpus is None:
        return []
    taskset = shutil.which("taskset")
    if taskset is None:
        raise RuntimeError("taskset (util-linux) is needed to pin fio to a CPU")
    return [taskset, "-c", cpus]


def by_hand(fio: str, text: str, pin: str | None) -> float:
    run = run_anchor(fio, text, prefix=pinned(pin))
    if run.returncode != 0:
        raise RuntimeError(f"{run.argv!r} exited with {run.returncode}: {run.stderr[-500:]}")
    return fio_iops(fio_json(run.stdout))


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="rounds (default 15)")
    parser.add_argument(
        "--preset", default="real", help="quick preset whose read tests to run (default real)"
    )
    parser.add_argument("--measure", type=float, default=0.5, help="seconds per pass (0.5)")
    parser.add_argument("--directory", default="/tmp", help="temporary directory (/tmp)")
    parser.add_argument("--quiet-wait", type=float, default=20.0, metavar="SECONDS")
    parser.add_argument("--output", type=Path, help=f"results file (default {DEFAULT_RESULTS})")
    parser.add_argument("--no-write", action="store_true", help="only print")
    args = parser.parse_args(given)
    if args.rounds < 2:
        parser.error("--rounds must be at least 2 (a spread needs two passes)")

    clock = Clock(args.quiet_wait)
    ssdlab, fio = find_ssdlab(None), find_fio()
    processes = ProcessRunner()
    tool = ssdlab_fio_tool(processes)
    folder = Path(tempfile.mkdtemp(prefix="ssdlab-null-modes-", dir=args.directory))
    variants: dict[str, Callable[[str], float]] = {
        "fio by hand": lambda text: by_hand(fio, text, None),
        "ssdlab's runner": lambda text: fio_iops(
            fio_json(run_fio_job(processes, tool, text, timeout_s=60).capture.stdout)
        ),
        "fio by hand, taskset -c 0": lambda text: by_hand(fio, text, "0"),
    }
    results: dict[tuple[str, str], list[float]] = {}
    try:
        jobs = planned_jobs(ssdlab, folder, args.preset, args.measure)
        names = list(variants)
        clock.settle()
        started = cpu_snapshot()
        for number in range(args.rounds):
            clock.say(f"round {number + 1}/{args.rounds}")
            order = names[number % len(names) :] + names[: number % len(names)]
            for test in jobs:
                for name in order:
                    results.setdefault((test, name), []).append(variants[name](jobs[test]))
        interference = Interference.between(started, cpu_snapshot())
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    rows = []
    for test in jobs:
        everything = [v for (t, _), values in results.items() if t == test for v in values]
        threshold = LOW_SHARE * statistics.median(everything)
        reference = results[(test, names[0])]
        for name in names:
            values = results[(test, name)]
            ratio, low, high = ratio_interval(values, reference)
            versus = "1 (reference)" if name == names[0] else f"{ratio:.3f} [{low:.3f}–{high:.3f}]"
            paired = [v / r for v, r in zip(values, reference, strict=True)]
            per_round = (
                "—"
                if name == names[0]
                else f"{statistics.median(paired):.3f} [{min(paired):.3f}–{max(paired):.3f}]"
            )
            rows.append(
                [
                    test,
                    name,
                    str(len(values)),
                    str(sum(v < threshold for v in values)),
                    f"{statistics.fmean(values) / 1e6:.3f}",
                    f"{statistics.median(values) / 1e6:.3f}",
                    f"{min(values) / 1e6:.2f}–{max(values) / 1e6:.2f}",
                    f"{statistics.stdev(values) / statistics.fmean(values) * 100:.1f} %",
                    versus,
                    per_round,
                ]
            )
    model, cores = cpu_description()
    command = " ".join(["python", "bench/null_modes.py", *given])
    lines = [
        f"## Diagnostic: null-engine scatter, preset {args.preset} (`bench/null_modes.py`)",
        "",
        f"Reproduce: `{command}`. {args.rounds} rounds × {len(jobs)} tests × 3 ways, "
        f"{args.measure:g} s "
        f"passes, interleaved; {model}, {cores}; ssdlab {git_state()}. Meanwhile: "
        f"{interference.describe()}. A *low* pass is below {LOW_SHARE:.0%} of the median of "
        "all passes of its test. The interval is a percentile bootstrap over passes "
        f"({BOOTSTRAP_SAMPLES} resamples, fixed seed).",
        "",
    ]
    headers = ["test", "run as", "passes", "low", "mean M IOPS", "median", "range", "CV"]
    headers += ["mean / by-hand mean [95 % CI]", "paired per round, median [min–max]"]
    lines += md_table(headers, rows, [False, False, *([True] * 8)])
    text = "\n".join(lines) + "\n"
    print(text)
    output = args.output or DEFAULT_RESULTS
    if not args.no_write:
        write_results(output, f"null-modes-{args.preset}", text)
        clock.say(f"results written to {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
