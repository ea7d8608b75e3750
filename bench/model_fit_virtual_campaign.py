"""Issue #34's campaign measured through the virtual drive: random hidden drives served with
`ssdlab sim serve MOUNTPOINT --random-config SEED --secret FILE` (FUSE), measured only through
ssdlab's ordinary profiles and health readings on a loop device over the served file, fitted
with `ssdlab model fit`, asked with `ssdlab model predict` about a workload no fitting run
wrote, that workload then run on the same virtual drive and `ssdlab model verify` comparing;
the secret file gives the truth. Figures against issue #34's targets: spare within ±2
percentage points, cache size within ±5 %, GC class right on ≥ 90 % of drives, held-out
steady-state WAF within ±10 %, post-cliff throughput within ±10 %, days to end of life within
±15 %, each as "k of n" with the misses named.

    sudo nice -n 19 env PYTHONPATH=$PWD/src python bench/model_fit_virtual_campaign.py
    sudo env PYTHONPATH=$PWD/src python bench/model_fit_virtual_campaign.py --drives 3 \\
        --results bench/RESULTS.md

Needs root (loop devices), fio, /dev/fuse, libfuse 3 and mfusepy (docs/sim.md). Per drive
(32 MiB; `--capacity-mib N` for another size, every run's size scaled with it, its block
beside this one in RESULTS.md; the steps and settings of tests/e2e/test_model_fit.py,
through the `ssdlab` CLI):

1. served at `--time-scale 360`: `blkdiscard`, `ssdlab run cache` over the whole drive
   (16 KiB writes at queue depth 8, a 50 ms log) — the cliff and the two write rates;
2. served again at `--time-scale 0` (the same seed draws the same drive; no waits, so fills
   take seconds): `ssdlab run endurance --workload randwrite-4k` over 26 MiB (81 %) and
   32 MiB (100 %), ten fills each, `--workload jesd219-enterprise` over all of it, and the
   held-out run: randwrite-4k over 16 MiB (50 %), twenty fills; each from a discarded drive;
3. `ssdlab model fit` of the first four runs, `ssdlab model predict FIT randwrite-4k --span
   50%`, `ssdlab model verify FIT HELD-OUT` (WAF and days to end of life at 3000 P/E and 1 GB a
   day, measured from the drive's health readings).

Post-cliff throughput has no held-out run here (a second cache run would be the same write):
the prediction is held against the hidden drive's own rate after its true cliff (simulated
from the secret, as bench/model_fit_campaign.py does) divided by the time scale the cache run
was served at; FUSE's own cost per request is in the measurement and not in that truth.
Every drive is cleaned up whatever happens (Ctrl-C, SIGTERM, an error): loop devices detached,
servers stopped, mounts undone. With `--results`, the block is written after every drive, so a
stopped campaign keeps the drives it measured (a partial run, named as such).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_fit_campaign import _post_cliff_truth, _seeds, _truth_class  # noqa: E402
from overhead import cpu_description, git_state  # noqa: E402
from results_block import write_block  # noqa: E402
from ssdlab.sim.config import SimConfig  # noqa: E402
from ssdlab.sim.random_config import config_digest, draw_config  # noqa: E402
from tests.unit.analysis.test_model_fit import true_cache_bytes  # noqa: E402

MiB = 2**20
CAPACITY = 32 * MiB
CACHE_SCALE = 360.0
SPARE_POINTS = 0.02
CACHE_SHARE = 0.05
GC_RIGHT_SHARE = 0.90
WAF_SHARE = 0.10
POST_CLIFF_SHARE = 0.10
DAYS_SHARE = 0.15
LIFE = ("--daily", "1GB", "--pe-cycles", "3000")


@dataclass(frozen=True)
class Layout:
    """The drive's size and the runs' sizes over it: uniform over 81 % and 100 % of it, ten
    fills each, and the held-out uniform run over 50 %, twenty fills (`--size`,
    `--until-written`); JESD219 ten fills of the whole drive."""

    capacity: int = CAPACITY

    @property
    def mib(self) -> int:
        return self.capacity // MiB

    @property
    def fitting(self) -> tuple[tuple[str, str], ...]:
        share = round(self.mib * 0.81)
        return ((f"{share}MiB", f"{share * 10}MiB"), (f"{self.mib}MiB", f"{self.mib * 10}MiB"))

    @property
    def held_out(self) -> tuple[str, str]:  # randwrite-4k over 50 %: no fitting run wrote that
        return (f"{self.mib // 2}MiB", f"{self.mib * 10}MiB")

    @property
    def markers(self) -> tuple[str, str]:
        """The results block's: the 32 MiB campaign's own, another size's beside it."""
        name = "bench/model_fit_virtual_campaign.py"
        if self.capacity != CAPACITY:
            name += f" --capacity-mib {self.mib}"
        return (
            f"<!-- BEGIN {name}: generated, edits inside are overwritten -->",
            f"<!-- END {name} -->",
        )


MOUNT_WAIT_S = 180.0  # a loaded machine under `nice -n 19` took over 60 s to mount one
STOP_WAIT_S = 30.0


class Stopped(Exception):
    """SIGTERM or SIGHUP: unwound like Ctrl-C so that every drive is cleaned up."""


def _stop(signum: int, _frame: FrameType | None) -> None:
    raise Stopped(signal.Signals(signum).name)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("COLUMNS", None)
    return env


def _start(argv: list[str]) -> subprocess.Popen[str]:
    """`argv` started with this checkout's ssdlab on its path, its output piped."""
    return subprocess.Popen(argv, env=_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip


def ssdlab(*args: str) -> dict[str, Any]:
    """`ssdlab ARGS --json` as a user runs it; its document, or an error naming the command."""
    argv = [sys.executable, "-m", "ssdlab", *args, "--json"]
    child = _start(argv)
    try:
        stdout, stderr = child.communicate()
    except BaseException:  # Ctrl-C, SIGTERM: the run stops its fio before the drive goes
        child.terminate()
        try:
            child.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        raise
    done = subprocess.CompletedProcess(argv, child.returncode, stdout, stderr)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(f"ssdlab {' '.join(args)} failed ({done.returncode}): {last}")
    parsed: dict[str, Any] = json.loads(done.stdout) if done.stdout.strip() else {}
    return parsed


def _mounted(path: Path) -> bool:
    return os.path.ismount(path)


def _detach(loop: str) -> None:
    subprocess.run(["losetup", "-d", loop], capture_output=True, check=False)
    backing = Path(f"/sys/block/{Path(loop).name}/loop/backing_file")
    deadline = time.monotonic() + STOP_WAIT_S
    while backing.exists() and time.monotonic() < deadline:  # fio may still hold it
        time.sleep(0.1)


def _stop_server(server: subprocess.Popen[str], mount: Path) -> None:
    if server.poll() is None:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(STOP_WAIT_S)
    if _mounted(mount):  # the server died without unmounting: do it for it
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, check=False)


class Refused(Exception):
    """The server did not start: the seed draws no drive at this capacity, or FUSE is missing."""


@contextmanager
def served(work: Path, seed: int, scale: float, name: str, capacity: int) -> Iterator[str]:
    """Drive `seed` served at `scale` under `work`, a loop device over it; the loop's path.
    Detached, stopped and unmounted after, whatever happened."""
    mount = work / name
    mount.mkdir()
    argv = [sys.executable, "-m", "ssdlab", "sim", "serve", str(mount), "--random-config",
            str(seed), "--secret", str(work / "secret.json"), "--capacity", str(capacity),
            "--time-scale", str(scale), "--backing", str(work)]  # fmt: skip
    server = _start(argv)
    loop = ""
    try:
        deadline = time.monotonic() + MOUNT_WAIT_S
        while not (_mounted(mount) and (mount / "drive").exists()):
            if server.poll() is not None:
                _, err = server.communicate()
                raise Refused((err.strip().splitlines() or ["(no output)"])[-1])
            if time.monotonic() > deadline:
                raise RuntimeError(f"the virtual drive of seed {seed} did not mount in time")
            time.sleep(0.05)
        attach = ["losetup", "--find", "--show", "--direct-io=on", str(mount / "drive")]
        done = subprocess.run(attach, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"cannot attach a loop device: {done.stderr.strip()}")
        loop = done.stdout.strip()
        yield loop
    finally:
        if loop:
            _detach(loop)
        _stop_server(server, mount)


@dataclass
class Drive:
    seed: int
    config: SimConfig
    fit: dict[str, dict[str, Any]]  # parameter name → estimate
    predicted: dict[str, dict[str, Any]]  # figure name → figure
    verified: dict[str, dict[str, Any]]  # figure name → comparison row
    measure_s: float  # wall time of the virtual measurement (serving and the five runs)
    total_s: float  # with fit, predict and verify
    notes: list[str] = field(default_factory=list)


def _discard(loop: str) -> None:
    subprocess.run(["blkdiscard", loop], check=True, capture_output=True)


def measure(seed: int, work: Path, layout: Layout) -> Drive | str:
    """One drive measured, fitted, predicted and verified; or why the seed has no drive."""
    db = str(work / "db")
    start = time.monotonic()
    whole = f"{layout.mib}MiB"
    try:
        with served(work, seed, CACHE_SCALE, "timed", layout.capacity) as loop:
            _discard(loop)
            ssdlab("run", "cache", loop, "--destroy-data", loop, "--size", whole,
                   "--log-interval", "0.05", "--iodepth", "8", "--block-size", "16KiB",
                   "--db", db)  # fmt: skip
    except Refused as refused:
        return str(refused)
    with served(work, seed, 0.0, "fast", layout.capacity) as loop:
        for size, written in (*layout.fitting, layout.held_out):
            if (size, written) == layout.held_out:
                _discard(loop)
                ssdlab("run", "endurance", loop, "--destroy-data", loop, "--workload",
                       "jesd219-enterprise", "--until-written", f"{layout.mib * 10}MiB",
                       "--health-every",
                       "0.2s", "--db", db)  # fmt: skip
            _discard(loop)
            ssdlab("run", "endurance", loop, "--destroy-data", loop, "--size", size,
                   "--workload", "randwrite-4k", "--iteration-bytes", "64MiB",
                   "--until-written", written, "--health-every", "0.2s", "--iodepth", "16",
                   "--db", db)  # fmt: skip
    measure_s = time.monotonic() - start
    # runs 1 cache, 2 and 3 uniform, 4 JESD219, 5 the held-out uniform run over half
    fitted = ssdlab("model", "fit", "1", "2", "3", "4", "--db", db)
    inputs = [i["run_id"] for i in fitted["inputs"]]
    if inputs != [1, 2, 3, 4]:
        raise RuntimeError(f"seed {seed}: the fit read runs {inputs}, not 1-4")
    fit_id = str(fitted["run"]["id"])
    predicted = ssdlab("model", "predict", fit_id, "randwrite-4k", "--span", "50%", *LIFE,
                       "--db", db)  # fmt: skip
    verified = ssdlab("model", "verify", fit_id, "5", *LIFE, "--db", db)
    secret = json.loads((work / "secret.json").read_text(encoding="utf-8"))
    config = draw_config(seed, layout.capacity)
    if config_digest(config) != secret["config_sha256"]:
        raise RuntimeError(f"seed {seed}: the secret names another drive than the draw")
    return Drive(
        seed,
        config,
        {p["name"]: p for p in fitted["parameters"]},
        {f["name"]: f for f in predicted["figures"]},
        {c["name"]: c for c in verified["comparison"]},
        measure_s,
        time.monotonic() - start,
    )


def _value(entry: dict[str, Any] | None) -> Any:
    return None if entry is None else entry.get("value")


def _cache_kind(config: SimConfig) -> str:
    static = config.slc_static_bytes > 0
    if static and config.slc_dynamic:
        return "hybrid"
    return "static" if static else "dynamic" if config.slc_dynamic else "none"


@dataclass(frozen=True, slots=True)
class Scored:
    """Each figure's error (None: not measured or not predicted) and whether it is in target."""

    seed: int
    spare_points: float | None
    cache_error: float | None  # None also for a drive without a cache
    cache_truth: int
    gc_fit: str
    gc_truth: str
    waf_error: float | None
    post_cliff_error: float | None
    days_error: float | None
    measure_s: float
    total_s: float


def score(drive: Drive) -> Scored:
    config = drive.config
    spare = _value(drive.fit.get("spare (of logical)"))
    cache = _value(drive.fit.get("cache size"))
    truth_cache = true_cache_bytes(config)
    post = _value(drive.predicted.get("post-cliff throughput"))
    truth_post = _post_cliff_truth(config)
    post_error = (
        post / (truth_post / CACHE_SCALE) - 1
        if isinstance(post, (int, float)) and truth_post
        else None
    )

    def relative(name: str) -> float | None:
        row = drive.verified.get(name) or {}
        error = row.get("relative_error")
        return float(error) if isinstance(error, (int, float)) else None

    return Scored(
        drive.seed,
        (spare - config.spare_of_logical) if isinstance(spare, (int, float)) else None,
        cache / truth_cache - 1 if isinstance(cache, (int, float)) and truth_cache else None,
        truth_cache,
        str(_value(drive.fit.get("GC class")) or "—"),
        str(_truth_class(config.gc_policy.value)),
        relative("steady-state WAF"),
        post_error,
        relative("days to end of life"),
        drive.measure_s,
        drive.total_s,
    )


def _pct(error: float | None) -> str:
    return "—" if error is None else f"{100 * error:+.1f} %"


def _tally(label: str, seeds: list[int], hits: list[int], extra: str = "") -> str:
    misses = [s for s in seeds if s not in hits]
    missed = f"; misses: seed {', '.join(map(str, misses))}" if misses else ""
    return f"- {label}: {len(hits)} of {len(seeds)}{extra}{missed}"


def block(
    drives: list[tuple[Drive, Scored]],
    skipped: dict[int, str],
    partial: str,
    layout: Layout,
    failed: dict[int, str] | None = None,
) -> str:
    rows = []
    for drive, s in drives:
        c = drive.config
        cache = (
            "none" if s.cache_truth == 0 else f"{s.cache_truth / 1e6:.2f} MB: {_pct(s.cache_error)}"
        )
        rows.append(
            f"| {s.seed} | {c.bits_per_cell} | {_cache_kind(c)} | {c.gc_policy.value} | "
            f"{100 * c.spare_of_logical:.1f} % | "
            f"{'—' if s.spare_points is None else f'{100 * s.spare_points:+.2f}'} | {cache} | "
            f"{s.gc_fit} / {s.gc_truth} | {_pct(s.waf_error)} | {_pct(s.post_cliff_error)} | "
            f"{_pct(s.days_error)} | {s.measure_s:.0f} s | {s.total_s:.0f} s |"
        )
    scored = [s for _, s in drives]
    seeds = [s.seed for s in scored]
    cached = [s.seed for s in scored if s.cache_truth > 0]

    def within(attr: str, share: float) -> list[int]:
        return [s.seed for s in scored if (e := getattr(s, attr)) is not None and abs(e) <= share]

    gc_right = [s.seed for s in scored if s.gc_fit == s.gc_truth]
    share = len(gc_right) / len(scored) if scored else 0.0
    times = sorted(s.measure_s for s in scored)
    summary = [
        _tally(
            "spare within ±2 points",
            seeds,
            [
                s.seed
                for s in scored
                if s.spare_points is not None and abs(s.spare_points) <= SPARE_POINTS
            ],
        ),
        _tally(
            "cache size within ±5 % (drives with a cache)",
            cached,
            [s for s in within("cache_error", CACHE_SHARE) if s in cached],
        ),
        _tally("GC class right", seeds, gc_right, f" ({share:.0%}; target ≥ {GC_RIGHT_SHARE:.0%})"),
        _tally(
            "held-out steady-state WAF within ±10 % (model verify)",
            seeds,
            within("waf_error", WAF_SHARE),
        ),
        _tally(
            "post-cliff throughput within ±10 % (against the secret)",
            cached,
            [s for s in within("post_cliff_error", POST_CLIFF_SHARE) if s in cached],
        ),
        _tally(
            "days to end of life within ±15 % (model verify)",
            seeds,
            within("days_error", DAYS_SHARE),
        ),
    ]
    if times:
        summary.append(
            f"- virtual measurement per drive: {times[0]:.0f}–{times[-1]:.0f} s "
            f"(median {times[len(times) // 2]:.0f} s)"
        )
    if skipped:
        summary.append(
            f"- seeds that draw no drive at {layout.mib} MiB: "
            + "; ".join(f"{seed} ({why})" for seed, why in skipped.items())
        )
    if failed:
        summary.append(
            "- drives that failed to be measured (not scored): "
            + "; ".join(f"{seed} ({why})" for seed, why in failed.items())
        )
    return "\n".join(
        [
            layout.markers[0],
            "",
            "### `ssdlab model fit` on random hidden virtual drives, measured through FUSE "
            f"(bench/model_fit_virtual_campaign.py, {layout.mib} MiB drives)",
            "",
            *([partial, ""] if partial else []),
            f"Each drive {layout.mib} MiB, served by `ssdlab sim serve --random-config SEED "
            "--secret FILE` and measured only through `ssdlab run cache` and `run endurance` "
            "on a loop device over it; fitted, predicted and verified with `ssdlab model`. "
            "Errors are fit or prediction against truth: spare and cache size against the "
            "secret; WAF and days "
            "to end of life (3000 P/E, 1 GB a day) against the held-out run (randwrite-4k over "
            "50 %) as `model verify` measured it from the drive's health readings; post-cliff "
            "throughput against the secret drive's rate after its cliff ÷ the time scale "
            f"({CACHE_SCALE:g}). Class: fit / truth (FIFO is FIFO-like, every other policy "
            "greedy-like). Times are wall time on this machine, under `nice -n 19` beside "
            f"other work (load average {{load}}), measured at {git_state()} on "
            f"{' '.join(cpu_description())}, Python {platform.python_version()}.",
            "",
            "| seed | bits/cell | cache | GC policy | spare (truth) | spare (points) | cache "
            "(truth: error) | class | held-out WAF | post-cliff | days to EOL | measuring "
            "| with fit |",
            "| ---: | ---: | --- | --- | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: "
            "| ---: |",
            *rows,
            "",
            *summary,
            "",
            layout.markers[1],
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seeds",
        default="1-25",
        help="ranges or seeds to draw from, e.g. 12,13,22-24 (default 1-25)",
    )
    parser.add_argument(
        "--drives",
        type=int,
        default=20,
        help="stop after this many drives the draw accepts (default 20)",
    )
    parser.add_argument(
        "--capacity-mib",
        type=int,
        default=CAPACITY // MiB,
        help="each drive's size in MiB (default 32; another size's block sits beside it)",
    )
    parser.add_argument("--results", type=Path, help="write the block into this RESULTS.md")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("needs root for loop devices: sudo env PYTHONPATH=$PWD/src python "
              "bench/model_fit_virtual_campaign.py", file=sys.stderr)  # fmt: skip
        return 2
    layout = Layout(args.capacity_mib * MiB)
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGHUP, _stop)
    load_before = os.getloadavg()[0]
    drives: list[tuple[Drive, Scored]] = []
    skipped: dict[int, str] = {}
    failed: dict[int, str] = {}
    for seed in _seeds(args.seeds):
        if len(drives) >= args.drives:
            break
        try:
            with tempfile.TemporaryDirectory(prefix=f"ssdlab-vcampaign-{seed}-") as folder:
                found = measure(seed, Path(folder), layout)
        except (KeyboardInterrupt, Stopped) as stopped:
            kept = f"; the {len(drives)} drives before it are in the block" if drives else ""
            print(f"stopped at seed {seed} ({stopped or 'Ctrl-C'}): its drive unmounted, "
                  f"its loop device detached{kept}", file=sys.stderr)  # fmt: skip
            return 130
        except (RuntimeError, subprocess.CalledProcessError) as error:
            failed[seed] = str(error)  # named in the block; the next drive is measured
            print(f"seed {seed}: failed ({error})", file=sys.stderr)
            continue
        if isinstance(found, str):
            skipped[seed] = found
            print(f"seed {seed}: no drive ({found})", file=sys.stderr)
            continue
        scored = score(found)
        drives.append((found, scored))
        print(f"seed {seed}: measured in {scored.measure_s:.0f} s, {scored.total_s:.0f} s "
              f"with fit ({scored})", file=sys.stderr)  # fmt: skip
        if args.results is not None:  # every drive kept as it is measured: a stop loses none
            write_block(
                args.results, *layout.markers, _text(drives, skipped, failed, layout, load_before)
            )
    text = _text(drives, skipped, failed, layout, load_before)
    print(text)
    if args.results is not None:
        write_block(args.results, *layout.markers, text)
    return 0


def _text(
    drives: list[tuple[Drive, Scored]],
    skipped: dict[int, str],
    failed: dict[int, str],
    layout: Layout,
    load_before: float,
) -> str:
    totals = sorted(s.total_s for _, s in drives)
    minutes = 20 * totals[len(totals) // 2] / 60 if totals else 0.0
    partial = (
        f"**Partial run**: {len(drives)} of the 20 drives (seeds "
        f"{', '.join(str(s.seed) for _, s in drives)}); the full "
        f"campaign is `python bench/model_fit_virtual_campaign.py"
        f"{'' if layout.capacity == CAPACITY else f' --capacity-mib {layout.mib}'}`, "
        f"about {minutes:.0f} minutes "
        "at this run's median per drive."
        if len(drives) < 20
        else ""
    )
    return block(drives, skipped, partial, layout, failed).replace(
        "{load}", f"{load_before:.2f} before, {os.getloadavg()[0]:.2f} after"
    )


if __name__ == "__main__":
    raise SystemExit(main())
