"""What ssdlab itself costs, measured against fio run by hand (issue 2).

(a) IOPS agreement. ssdlab runs a quick suite (`--mode read`) on a test file; then the measured
    passes of that very run (the job files as stored in `captures.input_text`) are run again by
    hand, started exactly as ssdlab starts fio (bench/fio_anchor.py: the stored argv
    `fio --output-format=json+ /tmp/…/job.fio`, its own session, the same environment), and
    IOPS are read straight from fio's JSON
    (`jobs[0].read.iops`, the one group-reported job). Per test:
        best ratio = ssdlab best-pass IOPS / hand-run best-pass IOPS
        mean ratio = ssdlab mean IOPS / hand-run mean IOPS
    ssdlab and hand runs alternate (A B, B A, A B ...) so drift hits both alike; the table shows
    median [min–max] over repetitions (3 by default).
    Target: median ratios >= 0.98 with the null ioengine. libaio on a real file is reported
    too, without a target (a real drive is noisier than the gap being measured).

(b) Wall-time overhead. `ssdlab quick --interval 0` is timed from outside (time.monotonic around
    the subprocess) and compared with the wall time of every fio process of that run, as the
    store records it (`captures.started_at_s/ended_at_s`, including the test-file fill):
        overhead = (ssdlab wall - sum of fio process walls) / sum of fio process walls
    Target: <= 5 %. Also shown against the runtimes fio reports for its jobs, and broken down
    into before the run row (Python start-up, imports, target checks, tool versions), between
    fio processes (parsing, store writes, process start) and after the run (report, exit).

Run `python bench/overhead.py` (about 3¼ minutes), `--nvme` (the NVMe preset's RND4K Q32T16
case, about 40 s) or `--quick` (under a minute, prints only). Full and --nvme runs rewrite their
generated block of bench/RESULTS.md; see bench/README.md.
"""

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import resource
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "src"))

from fio_anchor import AnchorRun, run_anchor  # noqa: E402
from ssdlab.store.raw import unpack_raw  # noqa: E402  (raw outputs are stored compressed)

DEFAULT_RESULTS = HERE / "RESULTS.md"
BEGIN_MARK = "<!-- BEGIN bench/overhead.py {mode}: generated, edits inside are overwritten -->"
END_MARK = "<!-- END bench/overhead.py {mode} -->"
DISTURBED_SHARE = 0.10  # other processes used more than this share of one CPU meanwhile
IOPS_RATIO_TARGET = 0.98
OVERHEAD_TARGET = 0.05
PROBE_REPEATS = 5
PROBE_INTERPRETER = "Python interpreter alone (`-c pass`)"
PROBE_IMPORT = "Python + `import ssdlab.cli.main`"

# --------------------------------------------------------------------------------------------
# What to run


@dataclass(frozen=True, slots=True)
class QuickOptions:
    """The `ssdlab quick` options of one case (always `--interval 0`)."""

    ioengine: str
    preset: str
    size: str
    count: int
    measure_s: float
    mode: str = "read"

    def argv(self) -> list[str]:
        return [
            "--ioengine",
            self.ioengine,
            "--mode",
            self.mode,
            "--preset",
            self.preset,
            "--size",
            self.size,
            "--count",
            str(self.count),
            "--measure",
            f"{self.measure_s:g}",
            "--interval",
            "0",
        ]


@dataclass(frozen=True, slots=True)
class AgreementCase:
    name: str
    options: QuickOptions
    reps: int
    target: float | None  # None: reported without a target
    note: str


@dataclass(frozen=True, slots=True)
class WallCase:
    name: str
    options: QuickOptions


@dataclass(frozen=True, slots=True)
class Suite:
    agreement: tuple[AgreementCase, ...]
    wall: tuple[WallCase, ...]


def full_suite(reps: int | None) -> Suite:
    r = reps or 3
    return Suite(
        agreement=(
            AgreementCase(
                "null/real",
                QuickOptions("null", "real", "64MiB", count=5, measure_s=2),
                r,
                IOPS_RATIO_TARGET,
                "SEQ1M Q1T1 and RND4K Q1T1, null ioengine: fio and ssdlab only, no device",
            ),
            AgreementCase(
                "libaio/real",
                QuickOptions("libaio", "real", "64MiB", count=2, measure_s=0.5),
                r,
                None,
                "real file in a temporary directory, O_DIRECT; RND4K Q1T1 is the case asked "
                "for, SEQ1M Q1T1 comes with the preset; short passes to fit the time budget",
            ),
        ),
        wall=(
            WallCase("libaio real 256MiB c3 m2", QuickOptions("libaio", "real", "256MiB", 3, 2)),
            WallCase("libaio real 256MiB c3 m5", QuickOptions("libaio", "real", "256MiB", 3, 5)),
        ),
    )


def nvme_suite(reps: int | None) -> Suite:
    """The NVMe preset (with RND4K Q32T16) on its own: it does not fit the full run's budget."""
    return Suite(
        agreement=(
            AgreementCase(
                "null/nvme",
                QuickOptions("null", "nvme", "64MiB", count=2, measure_s=0.5),
                reps or 3,
                IOPS_RATIO_TARGET,
                "NVMe preset incl. RND4K Q32T16 (16 fio processes), null ioengine; two short "
                "passes per test",
            ),
        ),
        wall=(),
    )


def quick_suite(reps: int | None) -> Suite:
    r = reps or 2
    return Suite(
        agreement=(
            AgreementCase(
                "null/real",
                QuickOptions("null", "real", "64MiB", count=2, measure_s=1),
                r,
                IOPS_RATIO_TARGET,
                "--quick: 2 passes of 1 s",
            ),
            AgreementCase(
                "libaio/real",
                QuickOptions("libaio", "real", "16MiB", count=1, measure_s=1),
                1,
                None,
                "--quick: 1 pass of 1 s",
            ),
        ),
        wall=(
            WallCase("libaio real 256MiB c1 m2", QuickOptions("libaio", "real", "256MiB", 1, 2)),
        ),
    )


# --------------------------------------------------------------------------------------------
# Running processes


@dataclass(frozen=True, slots=True)
class Timed:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    wall_s: float  # time.monotonic around the child
    started_epoch_s: float  # time.time, comparable with the store's timestamps
    ended_epoch_s: float


def run_timed(argv: Sequence[str], cwd: Path | None = None) -> Timed:
    """Run a command (argument list, no shell) and time it from outside."""
    started_epoch = time.time()
    started = time.monotonic()
    done = subprocess.run(
        list(argv),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
    )
    wall = time.monotonic() - started
    return Timed(
        argv=tuple(argv),
        returncode=done.returncode,
        stdout=done.stdout,
        stderr=done.stderr,
        wall_s=wall,
        started_epoch_s=started_epoch,
        ended_epoch_s=time.time(),
    )


def checked(timed: Timed) -> Timed:
    if timed.returncode != 0:
        tail = "\n".join((timed.stderr or timed.stdout).strip().splitlines()[-10:])
        raise RuntimeError(f"{shlex.join(timed.argv)} exited with {timed.returncode}:\n{tail}")
    return timed


def find_ssdlab(spec: str | None) -> list[str]:
    if spec:
        return shlex.split(spec)
    found = shutil.which("ssdlab")
    return [found] if found else [sys.executable, "-m", "ssdlab"]


def find_fio() -> str:
    wanted = os.environ.get("SSDLAB_FIO") or "fio"  # the fio ssdlab itself would use
    found = shutil.which(wanted)
    if found is None:
        raise RuntimeError(f"fio not found ({wanted!r})")
    return found


@dataclass(frozen=True, slots=True)
class CpuSnapshot:
    busy_s: float  # every CPU: user, nice, system, irq, softirq
    steal_s: float  # taken by the hypervisor
    own_s: float  # this process and its children (fio included once waited for)
    at: float  # time.monotonic


def cpu_snapshot() -> CpuSnapshot:
    fields = [int(v) for v in Path("/proc/stat").read_text(encoding="utf-8").split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    tick = os.sysconf("SC_CLK_TCK")
    own = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        own += usage.ru_utime + usage.ru_stime
    return CpuSnapshot(
        (user + nice + system + irq + softirq) / tick, steal / tick, own, time.monotonic()
    )


@dataclass(frozen=True, slots=True)
class Interference:
    """CPU time other processes used (and the hypervisor stole) while we measured."""

    wall_s: float
    foreign_cpu_s: float
    steal_s: float

    @staticmethod
    def between(start: CpuSnapshot, end: CpuSnapshot) -> "Interference":
        foreign = (end.busy_s - start.busy_s) - (end.own_s - start.own_s)
        return Interference(end.at - start.at, max(0.0, foreign), end.steal_s - start.steal_s)

    @property
    def disturbed(self) -> bool:
        return self.wall_s > 0 and self.foreign_cpu_s / self.wall_s > DISTURBED_SHARE

    def describe(self) -> str:
        share = self.foreign_cpu_s / self.wall_s * 100 if self.wall_s > 0 else 0.0
        return (
            f"{self.foreign_cpu_s:.1f} s of CPU used by other processes in {self.wall_s:.0f} s "
            f"({share:.1f} % of one CPU), {self.steal_s:.1f} s stolen by the hypervisor"
        )


class Clock:
    """Progress lines on stderr with the time since the benchmark started, and a gate that
    waits for other processes to leave the CPUs alone before each measurement."""

    def __init__(self, quiet_limit_s: float) -> None:
        self.started = time.monotonic()
        self.quiet_limit_s = quiet_limit_s
        self.gates = 0
        self.gates_timed_out = 0
        self.waited_s = 0.0

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def say(self, text: str) -> None:
        print(f"[{self.elapsed():6.1f} s] {text}", file=sys.stderr, flush=True)

    def settle(self) -> None:
        """Wait (at most quiet_limit_s) until other processes use less than DISTURBED_SHARE of
        one CPU over half a second. Applied before every A and B alike; 0 disables it."""
        if self.quiet_limit_s <= 0:
            return
        self.gates += 1
        started = time.monotonic()
        told = False
        while True:
            before = cpu_snapshot()
            time.sleep(0.5)
            if not Interference.between(before, cpu_snapshot()).disturbed:
                break
            if time.monotonic() - started > self.quiet_limit_s:
                self.gates_timed_out += 1
                self.say("other processes still busy; measuring anyway (marked disturbed)")
                break
            if not told:
                self.say("waiting for other processes to leave the CPUs alone")
                told = True
        self.waited_s += time.monotonic() - started - 0.5

    def describe_gates(self) -> str:
        if self.quiet_limit_s <= 0:
            return "off (--quiet-wait 0)"
        return (
            f"before each of {self.gates} measurements: waited {self.waited_s:.0f} s beyond "
            f"the 0.5 s check in total, {self.gates_timed_out} gave up after "
            f"{self.quiet_limit_s:g} s"
        )


# --------------------------------------------------------------------------------------------
# Reading fio's JSON and ssdlab's store (independently of ssdlab's own code)


def fio_json(text: str) -> dict[str, Any]:
    """fio's JSON document; fio may print notes before it, so start at the first '{'."""
    start = text.find("{")
    if start < 0:
        raise ValueError("no JSON in fio's output")
    document: dict[str, Any] = json.loads(text[start:])
    return document


def fio_iops(document: dict[str, Any]) -> float:
    """IOPS of the one group-reported job: jobs[0].read.iops (+ write, 0 for read tests)."""
    jobs = document["jobs"]
    if len(jobs) != 1:
        raise ValueError(f"expected one group-reported job, fio reported {len(jobs)}")
    return float(jobs[0]["read"]["iops"]) + float(jobs[0]["write"]["iops"])


def fio_runtime_s(document: dict[str, Any]) -> float:
    """The run time fio reports for its job (ms in JSON). With group_reporting, job_runtime adds
    up all threads, so take the per-direction runtime (the longest thread) instead."""
    runtimes = [
        float(job[direction]["runtime"])
        for job in document["jobs"]
        for direction in ("read", "write", "trim")
        if direction in job
    ]
    return max(runtimes, default=0.0) / 1000


@dataclass(frozen=True, slots=True)
class StoredCapture:
    capture_id: int
    tool: str  # fio, or e.g. smartctl for the health samples taken around a run
    started_at_s: float
    ended_at_s: float
    runtime_s: float | None

    @property
    def wall_s(self) -> float:
        return self.ended_at_s - self.started_at_s


@dataclass(frozen=True, slots=True)
class MeasuredPass:
    name: str  # as `ssdlab plan` names it: <test key>-p<pass>
    test_key: str
    stored_iops: float  # step_results.iops, what ssdlab reports
    capture_iops: float  # parsed here from the stored fio output of that pass
    job_text: str
    argv: tuple[str, ...]  # how ssdlab started fio for it (captures.argv_json)


@dataclass(frozen=True, slots=True)
class StoredRun:
    run_id: int
    status: str
    started_at_s: float
    ended_at_s: float
    captures: tuple[StoredCapture, ...]
    measured: tuple[MeasuredPass, ...]


def read_stored_run(db: Path, run_id: int) -> StoredRun:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        status, started, ended = conn.execute(
            "SELECT status, started_at_s, ended_at_s FROM runs WHERE id = ?", (run_id,)
        ).fetchone()
        captures = []
        for capture_id, tool, c_started, c_ended, stdout in conn.execute(
            "SELECT id, tool, started_at_s, ended_at_s, stdout FROM captures WHERE run_id = ? "
            "ORDER BY id",
            (run_id,),
        ):
            runtime: float | None = None
            if tool == "fio":
                try:
                    runtime = fio_runtime_s(fio_json(unpack_raw(conn, stdout)))
                except (ValueError, KeyError):
                    runtime = None
            captures.append(StoredCapture(capture_id, tool, c_started, c_ended, runtime))
        measured = []
        for key, round_index, iops, stdout, text, argv_json in conn.execute(
            "SELECT s.step_key, s.round_index, s.iops, c.stdout, c.input_text, c.argv_json "
            "FROM step_results s JOIN captures c ON c.id = s.capture_id "
            "WHERE s.run_id = ? AND s.discarded = 0 ORDER BY s.id",
            (run_id,),
        ):
            measured.append(
                MeasuredPass(
                    name=f"{key}-p{round_index}",
                    test_key=key,
                    stored_iops=iops,
                    capture_iops=fio_iops(fio_json(unpack_raw(conn, stdout))),
                    job_text=unpack_raw(conn, text),
                    argv=tuple(json.loads(argv_json)),
                )
            )
    finally:
        conn.close()
    if ended is None:
        raise RuntimeError(f"run {run_id} has no end time (status {status})")
    return StoredRun(run_id, status, started, ended, tuple(captures), tuple(measured))


# --------------------------------------------------------------------------------------------
# One ssdlab run, and its wall-time accounting


@dataclass(frozen=True, slots=True)
class SsdlabRun:
    label: str
    timed: Timed
    document: dict[str, Any]
    stored: StoredRun
    interference: Interference

    @property
    def tests(self) -> dict[str, dict[str, Any]]:
        return {test["key"]: test for test in self.document["tests"]}


def run_ssdlab(
    ssdlab: list[str],
    target: Path,
    options: QuickOptions,
    db: Path,
    *,
    keep: bool,
    label: str,
) -> SsdlabRun:
    argv = [*ssdlab, "quick", str(target), *options.argv(), "--json", "--db", str(db)]
    if keep:
        argv.append("--keep")
    before = cpu_snapshot()
    timed = checked(run_timed(argv))
    interference = Interference.between(before, cpu_snapshot())
    document: dict[str, Any] = json.loads(timed.stdout)
    run_id = int(document["run"]["id"])
    stored = read_stored_run(db, run_id)
    if stored.status != "complete":
        raise RuntimeError(f"run {run_id} ended {stored.status}")
    return SsdlabRun(label, timed, document, stored, interference)


@dataclass(frozen=True, slots=True)
class WallRow:
    label: str
    fio_calls: int
    ssdlab_wall_s: float
    fio_wall_s: float
    fio_runtime_s: float
    other_tools: str  # other stored tool runs, e.g. "2 smartctl"
    other_tools_s: float  # their wall time: ssdlab's overhead, not fio's
    before_s: float  # process start → run row written
    between_s: float  # run row → run end, outside every stored tool run
    after_s: float  # run end → process exit
    dedicated: bool  # a (b) case, rather than an (a) run counted as well
    command: str
    foreign_cpu_s: float  # CPU other processes used meanwhile (see Interference)

    @property
    def overhead(self) -> float:
        return (self.ssdlab_wall_s - self.fio_wall_s) / self.fio_wall_s

    @property
    def fio_fixed_per_call_s(self) -> float:
        """fio's own start-up and exit: process wall beyond the runtime it reports."""
        return (self.fio_wall_s - self.fio_runtime_s) / self.fio_calls

    @property
    def overhead_vs_runtime(self) -> float:
        return (self.ssdlab_wall_s - self.fio_runtime_s) / self.fio_runtime_s


def wall_row(run: SsdlabRun, *, dedicated: bool) -> WallRow:
    stored = run.stored
    fio = [c for c in stored.captures if c.tool == "fio"]
    other = [c for c in stored.captures if c.tool != "fio"]
    fio_wall = sum(c.wall_s for c in fio)
    other_wall = sum(c.wall_s for c in other)
    tools = sorted({c.tool for c in other})
    return WallRow(
        label=run.label,
        fio_calls=len(fio),
        ssdlab_wall_s=run.timed.wall_s,
        fio_wall_s=fio_wall,
        fio_runtime_s=sum(c.runtime_s or 0.0 for c in fio),
        other_tools=", ".join(f"{sum(c.tool == t for c in other)} {t}" for t in tools) or "none",
        other_tools_s=other_wall,
        before_s=stored.started_at_s - run.timed.started_epoch_s,
        between_s=(stored.ended_at_s - stored.started_at_s) - fio_wall - other_wall,
        after_s=run.timed.ended_epoch_s - stored.ended_at_s,
        dedicated=dedicated,
        command=shlex.join(run.timed.argv),
        foreign_cpu_s=run.interference.foreign_cpu_s,
    )


# --------------------------------------------------------------------------------------------
# (a) IOPS agreement


@dataclass(frozen=True, slots=True)
class HandPass:
    name: str
    test_key: str
    iops: float
    wall_s: float
    runtime_s: float


def run_by_hand(fio: str, measured: Sequence[MeasuredPass]) -> list[HandPass]:
    """Each measured job file run by hand, started exactly as ssdlab started it (bench/
    fio_anchor.py: the argv ssdlab stored with only the folder swapped, its own session, a job
    folder in the same temporary directory, stdin on /dev/null, pipes, the same environment)."""
    results = []
    for job in measured:
        timed = checked_anchor(run_anchor(fio, job.job_text, ssdlab_argv=job.argv))
        document = fio_json(timed.stdout)
        results.append(
            HandPass(
                job.name, job.test_key, fio_iops(document), timed.wall_s, fio_runtime_s(document)
            )
        )
    return results


def checked_anchor(run: AnchorRun) -> AnchorRun:
    if run.returncode != 0:
        tail = "\n".join((run.stderr or run.stdout).strip().splitlines()[-10:])
        raise RuntimeError(f"{shlex.join(run.argv)} exited with {run.returncode}:\n{tail}")
    return run


def coefficient_of_variation(values: Sequence[float]) -> float | None:
    if len(values) < 2:
        return None
    return statistics.stdev(values) / statistics.fmean(values)


@dataclass(frozen=True, slots=True)
class AgreementSample:
    case: str
    rep: int
    test_key: str
    label: str
    passes: int
    ssdlab_best: float
    ssdlab_mean: float
    hand_best: float
    hand_mean: float
    ssdlab_cv: float | None  # pass-to-pass coefficient of variation of IOPS
    hand_cv: float | None
    ssdlab_passes: tuple[float, ...]  # IOPS of every measured pass, in order
    hand_passes: tuple[float, ...]

    @property
    def best_ratio(self) -> float:
        return self.ssdlab_best / self.hand_best

    @property
    def mean_ratio(self) -> float:
        return self.ssdlab_mean / self.hand_mean


@dataclass(frozen=True, slots=True)
class AgreementOutcome:
    case: AgreementCase
    samples: tuple[AgreementSample, ...]
    runs: tuple[SsdlabRun, ...]
    hand: tuple[HandPass, ...]
    plan_identical: int
    plan_compared: int
    parser_max_deviation: float  # max |step_results.iops / fio's iops in the capture - 1|
    interference: Interference


def compare_plan(
    ssdlab: list[str], target: Path, case: AgreementCase, run: SsdlabRun
) -> tuple[int, int]:
    """How many stored measured job files equal `ssdlab plan quick` output, byte for byte."""
    timed = checked(
        run_timed([*ssdlab, "plan", "quick", str(target), *case.options.argv(), "--json"])
    )
    planned = {job["name"]: job["text"] for job in json.loads(timed.stdout)["jobs"]}
    measured = run.stored.measured
    return sum(planned.get(m.name) == m.job_text for m in measured), len(measured)


def run_agreement(
    ssdlab: list[str], fio: str, case: AgreementCase, workdir: Path, db: Path, clock: Clock
) -> AgreementOutcome:
    folder = workdir / case.name.replace("/", "-")
    folder.mkdir()
    # One test file for every ssdlab and hand run of this case: the same target throughout.
    # (ssdlab keeps it with --keep; the null ioengine never creates it.)
    target = folder / f"ssdlab-bench-{folder.name}.tmp"
    samples: list[AgreementSample] = []
    runs: list[SsdlabRun] = []
    hand_all: list[HandPass] = []
    plan_identical = plan_compared = 0
    started = cpu_snapshot()
    for rep in range(1, case.reps + 1):
        # Sides alternate A B, B A, A B ...: in even repetitions the anchor goes first, on the
        # job files of the previous ssdlab run (byte-identical to every run's, checked below).
        anchor_first = rep % 2 == 0 and bool(runs)
        hand: list[HandPass] = []
        if anchor_first:
            clock.settle()
            clock.say(f"(a) {case.name} rep {rep}/{case.reps}: the job files by hand (first)")
            hand = run_by_hand(fio, runs[-1].stored.measured)
        clock.settle()
        clock.say(f"(a) {case.name} rep {rep}/{case.reps}: ssdlab quick")
        run = run_ssdlab(
            ssdlab,
            target,
            case.options,
            db,
            keep=True,
            label=f"(a) {case.name} rep {rep}",
        )
        if anchor_first and [m.job_text for m in run.stored.measured] != [
            m.job_text for m in runs[-1].stored.measured
        ]:
            raise RuntimeError(f"{case.name}: job files changed between repetitions")
        runs.append(run)
        if rep == 1:
            plan_identical, plan_compared = compare_plan(ssdlab, target, case, run)
        if not anchor_first:
            clock.settle()
            clock.say(f"(a) {case.name} rep {rep}/{case.reps}: the same job files by hand")
            hand = run_by_hand(fio, run.stored.measured)
        hand_all.extend(hand)
        for key, test in run.tests.items():
            mine = [h.iops for h in hand if h.test_key == key]
            theirs = [m.stored_iops for m in run.stored.measured if m.test_key == key]
            samples.append(
                AgreementSample(
                    case=case.name,
                    rep=rep,
                    test_key=key,
                    label=test["label"],
                    passes=int(test["passes"]),
                    ssdlab_best=float(test["best_iops"]),
                    ssdlab_mean=float(test["mean_iops"]),
                    hand_best=max(mine),
                    hand_mean=statistics.fmean(mine),
                    ssdlab_cv=coefficient_of_variation(theirs),
                    hand_cv=coefficient_of_variation(mine),
                    ssdlab_passes=tuple(theirs),
                    hand_passes=tuple(mine),
                )
            )
    deviation = max(
        abs(m.stored_iops / m.capture_iops - 1) for r in runs for m in r.stored.measured
    )
    return AgreementOutcome(
        case,
        tuple(samples),
        tuple(runs),
        tuple(hand_all),
        plan_identical,
        plan_compared,
        deviation,
        Interference.between(started, cpu_snapshot()),
    )


# --------------------------------------------------------------------------------------------
# Start-up probes: where the time before the first fio process goes


@dataclass(frozen=True, slots=True)
class Probe:
    label: str
    argv: tuple[str, ...]
    median_s: float | None


def probe(label: str, argv: list[str]) -> Probe:
    if shutil.which(argv[0]) is None:
        return Probe(label, tuple(argv), None)
    walls = []
    for _ in range(PROBE_REPEATS):
        timed = run_timed(argv)
        if timed.returncode != 0:
            return Probe(label, tuple(argv), None)
        walls.append(timed.wall_s)
    return Probe(label, tuple(argv), statistics.median(walls))


def startup_probes(ssdlab: list[str], fio: str) -> list[Probe]:
    probes = [
        probe(PROBE_INTERPRETER, [sys.executable, "-c", "pass"]),
        probe(PROBE_IMPORT, [sys.executable, "-c", "import ssdlab.cli.main"]),
        probe("`ssdlab --version` as run by the benchmark", [*ssdlab, "--version"]),
    ]
    resolved = [sys.executable, "-m", "ssdlab", "--version"]
    if ssdlab[:3] != resolved[:3]:
        probe_m = probe("`python -m ssdlab --version` (no launcher)", resolved)
        probes.append(probe_m)
    probes += [
        probe("`fio --version` (ssdlab runs it once)", [fio, "--version"]),
        probe("`smartctl --version` (environment record)", ["smartctl", "--version"]),
        probe("`nvme version` (environment record)", ["nvme", "version"]),
    ]
    return probes


def import_breakdown(repeats: int = 3) -> list[tuple[str, float]]:
    """Self time of `import ssdlab.cli.main` (python -X importtime) by where modules come from,
    median over `repeats` runs, in seconds, largest first."""
    runs: list[dict[str, float]] = []
    for _ in range(repeats):
        timed = run_timed([sys.executable, "-X", "importtime", "-c", "import ssdlab.cli.main"])
        if timed.returncode != 0:
            return []
        groups: dict[str, float] = {}
        for line in timed.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            self_us, _, name = line.split(":", 1)[1].split("|")
            top = name.strip().split(".")[0]
            if top == "ssdlab":
                group = "ssdlab's own modules"
            elif top in sys.stdlib_module_names or top.startswith("_") or top == "site":
                group = "standard library"
            else:
                group = f"third party: {top}"
            groups[group] = groups.get(group, 0.0) + int(self_us) / 1e6
        runs.append(groups)
    names = {name for groups in runs for name in groups}
    medians = [(n, statistics.median(g.get(n, 0.0) for g in runs)) for n in names]
    return sorted(medians, key=lambda item: -item[1])


# --------------------------------------------------------------------------------------------
# The machine


def _first_match(path: str, prefix: str) -> str | None:
    try:
        for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith(prefix):
                return line.split(":", 1)[1].strip() if ":" in line else line
    except OSError:
        return None
    return None


def cpu_description() -> tuple[str, str]:
    model = _first_match("/proc/cpuinfo", "model name") or platform.processor() or "unknown"
    logical = 0
    cores: set[tuple[str, str]] = set()
    physical = core = ""
    virtual = False
    for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
        name, _, value = (part.strip() for part in line.partition(":"))
        if name == "processor":
            logical += 1
        elif name == "physical id":
            physical = value
        elif name == "core id":
            core = value
            cores.add((physical, core))
        elif name == "flags" and "hypervisor" in value.split():
            virtual = True
    usable = len(os.sched_getaffinity(0))
    text = f"{logical} logical CPUs ({len(cores) or '?'} cores), {usable} usable by this process"
    if virtual:
        text += "; virtual machine (hypervisor CPU flag)"
    return model, text


def memory_description() -> str:
    total = _first_match("/proc/meminfo", "MemTotal")
    if total is None:
        return "unknown"
    return f"{int(total.split()[0]) / 1024**2:.1f} GiB"


def filesystem_of(path: Path) -> str:
    """Filesystem type, source and mount point of `path`, from /proc/self/mountinfo."""
    st = os.stat(path)
    wanted = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    real = str(path.resolve())
    best: tuple[int, str] | None = None
    for line in Path("/proc/self/mountinfo").read_text(encoding="utf-8").splitlines():
        fields = line.split()
        sep = fields.index("-")
        mount_point, device = fields[4], fields[2]
        inside = real == mount_point or real.startswith(mount_point.rstrip("/") + "/")
        if device == wanted and inside and (best is None or len(mount_point) > best[0]):
            fs_type, source = fields[sep + 1], fields[sep + 2]
            best = (len(mount_point), f"{fs_type} on {source}, mounted at {mount_point}")
    return best[1] if best else "unknown"


def git_state() -> str:
    if shutil.which("git") is None:
        return "unknown (no git)"
    head = run_timed(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    if head.returncode != 0:
        return "unknown (not a git checkout)"
    dirty = run_timed(["git", "-C", str(REPO), "status", "--porcelain", "--", "src"])
    state = "with uncommitted changes under src/" if dirty.stdout.strip() else "clean src/"
    return f"commit {head.stdout.strip()}, {state} (src/ digest {source_digest()})"


def source_digest() -> str:
    """A short hash of every file under src/ssdlab, to tell which code a result came from."""
    digest = hashlib.sha256()
    for path in sorted((REPO / "src" / "ssdlab").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def machine_facts(
    ssdlab: list[str], fio: str, workdir: Path, device: str | None
) -> list[tuple[str, str]]:
    model, cpus = cpu_description()
    version = run_timed([*ssdlab, "--version"]).stdout.strip()
    os_name = None
    try:
        for line in Path("/etc/os-release").read_text(encoding="utf-8").splitlines():
            if line.startswith("PRETTY_NAME="):
                os_name = line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return [
        ("date", dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")),
        ("CPU", model),
        ("cores", cpus),
        ("RAM", memory_description()),
        ("OS", os_name or "unknown"),
        ("kernel", platform.release()),
        ("fio", run_timed([fio, "--version"]).stdout.strip() + f" ({fio})"),
        ("Python", f"{platform.python_version()} ({sys.executable})"),
        ("ssdlab", f"{version}, {git_state()}; run as `{shlex.join(ssdlab)}`"),
        ("target directory", str(workdir)),
        ("filesystem of target", filesystem_of(workdir)),
        ("device under it", device or "unknown"),
    ]


def device_summary(run: SsdlabRun) -> str | None:
    device = run.document["run"]["target"].get("device")
    if not device:
        return None
    queue = device.get("queue") or {}
    parts = [
        f"/dev/{device['name']}",
        device.get("model") or "no model string",
        device.get("transport") or "?",
        f"rotational={queue.get('rotational', '?')}",
        f"scheduler={queue.get('scheduler', '?')}",
    ]
    return ", ".join(parts)


# --------------------------------------------------------------------------------------------
# Tables


def md_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]
) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        padded = [
            c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)
        ]
        return "| " + " | ".join(padded) + " |"

    rule = (
        "| "
        + " | ".join(
            ("-" * (w - 1) + ":") if r else "-" * w for w, r in zip(widths, right, strict=True)
        )
        + " |"
    )
    return [line(headers), rule, *(line(r) for r in rows)]


def format_cdm_iops(value: float) -> str:
    return f"{value:,.0f}"


def format_ratio(values: Sequence[float]) -> str:
    med = statistics.median(values)
    if len(values) == 1:
        return f"{med:.4f}"
    return f"{med:.4f} [{min(values):.4f}–{max(values):.4f}]"


def fmt_cv(values: Sequence[float | None]) -> str:
    known = [v for v in values if v is not None]
    return f"{statistics.median(known) * 100:.1f} %" if known else "n/a"


def verdict(ok: bool | None) -> str:
    return "—" if ok is None else ("met" if ok else "**missed**")


def agreement_section(outcomes: Sequence[AgreementOutcome], fio: str) -> list[str]:
    lines = [
        "### (a) IOPS agreement: ssdlab vs the same job files run by hand",
        "",
        "ratio = ssdlab IOPS / hand-run fio IOPS, per test and repetition; the table shows "
        "the median [min–max] over repetitions. *best* = best pass (what CrystalDiskMark and "
        "ssdlab's headline show), *mean* = mean over the measured passes. *pass CV* = "
        "standard deviation / mean of the passes within one run (median over repetitions). "
        "A verdict marked *(disturbed)*: other processes used more than "
        f"{DISTURBED_SHARE:.0%} of one CPU during the case (see *Meanwhile* below), which "
        "makes the CPU-bound null-engine passes noisier on both sides.",
        "",
    ]
    headers = [
        "case",
        "test",
        "reps × passes",
        "ssdlab best IOPS",
        "hand best IOPS",
        "best ratio",
        "mean ratio",
        "pass CV ssdlab / hand",
        "target",
        "verdict best / mean",
    ]
    rows = []
    for outcome in outcomes:
        keys = list(dict.fromkeys(s.test_key for s in outcome.samples))
        for key in keys:
            group = [s for s in outcome.samples if s.test_key == key]
            best = [s.best_ratio for s in group]
            mean = [s.mean_ratio for s in group]
            target = outcome.case.target
            verdicts = "—"
            if target is not None:
                verdicts = " / ".join(
                    verdict(statistics.median(values) >= target) for values in (best, mean)
                )
                if outcome.interference.disturbed:
                    verdicts += " (disturbed)"
            rows.append(
                [
                    outcome.case.name,
                    group[0].label,
                    f"{len(group)} × {group[0].passes}",
                    format_cdm_iops(statistics.median(s.ssdlab_best for s in group)),
                    format_cdm_iops(statistics.median(s.hand_best for s in group)),
                    format_ratio(best),
                    format_ratio(mean),
                    fmt_cv([s.ssdlab_cv for s in group])
                    + " / "
                    + fmt_cv([s.hand_cv for s in group]),
                    f"≥ {target:.2f}" if target is not None else "none",
                    verdicts,
                ]
            )
    lines += md_table(headers, rows, [False, False, *([True] * 6), False, False])
    lines += ["", "Per case:", ""]
    for outcome in outcomes:
        best = [s.best_ratio for s in outcome.samples]
        mean = [s.mean_ratio for s in outcome.samples]
        fixed = [h.wall_s - h.runtime_s for h in outcome.hand]
        lines.append(
            f"- **{outcome.case.name}** — {outcome.case.note}. All tests: best ratio "
            f"{format_ratio(best)}, mean ratio {format_ratio(mean)}. Job files: "
            f"{outcome.plan_identical}/{outcome.plan_compared} stored measured job files are "
            "byte-identical to `ssdlab plan quick` output. ssdlab's stored IOPS vs fio's JSON "
            f"in the same capture: max deviation {outcome.parser_max_deviation:.1e}. fio's "
            "own start-up and exit per hand-run pass (process wall − reported runtime): "
            f"median {statistics.median(fixed) * 1000:.0f} ms. Meanwhile: "
            f"{outcome.interference.describe()}."
        )
    lines += [
        "",
        "Commands (repetition 1 of each case; the others are the same with the same target):",
        "",
        "```sh",
    ]
    for outcome in outcomes:
        lines.append(shlex.join(outcome.runs[0].timed.argv))
    lines += [
        "# then, for every measured job file of that run (captures.input_text), started as "
        "ssdlab starts fio",
        "# (bench/fio_anchor.py: own session, /dev/null stdin, pipes, the same environment),",
        "# in a fresh folder of the temporary directory, with the argv ssdlab stored:",
        f"setsid {fio} --output-format=json+ $TMPDIR/ssdlab-bench-hand-XXXX/job.fio",
        "```",
        "",
        *pass_table(outcomes),
    ]
    return lines


def pass_table(outcomes: Sequence[AgreementOutcome]) -> list[str]:
    """Every measured pass's IOPS, so two-level (bimodal) passes can be seen, not just CVs."""
    rows = []
    for outcome in outcomes:
        for sample in outcome.samples:
            for side, values in (("ssdlab", sample.ssdlab_passes), ("hand", sample.hand_passes)):
                shown = "  ".join(f"{v / 1e6:.2f}" if v >= 1e6 else f"{v:,.0f}" for v in values)
                rows.append([outcome.case.name, sample.label, str(sample.rep), side, shown])
    return [
        "<details><summary>IOPS of every measured pass (millions when ≥ 1 M)</summary>",
        "",
        *md_table(["case", "test", "rep", "side", "passes in order"], rows, [False] * 5),
        "",
        "</details>",
    ]


def row_verdict(row: WallRow) -> str:
    if not row.dedicated:
        return ""
    text = verdict(row.overhead <= OVERHEAD_TARGET)
    if row.foreign_cpu_s / row.ssdlab_wall_s > DISTURBED_SHARE:
        text += " (disturbed)"
    return text


def wall_section(rows: Sequence[WallRow]) -> list[str]:
    lines = [
        "### (b) Wall-time overhead of `ssdlab quick --interval 0`",
        "",
        "overhead = (ssdlab wall − Σ fio process wall) / Σ fio process wall, every fio process "
        "of the run counted (test-file fill included); *vs runtime* uses the runtimes fio "
        "reports instead, so it also contains fio's own start-up and exit. ssdlab wall − Σ fio "
        "wall is split into: *other tools* (non-fio tool runs ssdlab stores with the run, "
        "such as smartctl health samples), *before* the run row is written (Python start-up, "
        "imports, target checks, `fio --version`, environment), *between* stored tool runs "
        "(parse, store writes, process start), and *after* the run ends (report, JSON, exit). "
        "*foreign CPU* is the CPU time other processes on the machine used during the run "
        "(/proc/stat minus the benchmark's own and its children's): a disturbed run shows "
        "there. Rows marked (b) are the dedicated runs; (a) rows are the agreement runs, "
        "timed the same way.",
        "",
    ]
    headers = [
        "run",
        "fio calls",
        "ssdlab wall s",
        "Σ fio wall s",
        "Σ fio runtime s",
        "overhead",
        "vs runtime",
        "verdict",
        "other tools",
        "other s",
        "before s",
        "between s",
        "after s",
        "fio fixed ms/call",
        "foreign CPU s",
    ]
    table = []
    for row in rows:
        table.append(
            [
                row.label,
                str(row.fio_calls),
                f"{row.ssdlab_wall_s:.3f}",
                f"{row.fio_wall_s:.3f}",
                f"{row.fio_runtime_s:.3f}",
                f"{row.overhead * 100:.2f} %",
                f"{row.overhead_vs_runtime * 100:.1f} %",
                row_verdict(row),
                row.other_tools,
                f"{row.other_tools_s:.3f}",
                f"{row.before_s:.3f}",
                f"{row.between_s:.3f}",
                f"{row.after_s:.3f}",
                f"{row.fio_fixed_per_call_s * 1000:.0f}",
                f"{row.foreign_cpu_s:.1f}",
            ]
        )
    lines += md_table(headers, table, [False, *([True] * 6), False, False, *([True] * 6)])
    lines += ["", "Commands:", "", "```sh"]
    lines += [row.command for row in rows if row.dedicated]
    lines += ["```"]
    return lines


def breakdown_section(results: "Results") -> list[str]:
    rows, probes = results.rows, results.probes
    calls = sum(r.fio_calls for r in rows)
    between = sum(r.between_s for r in rows)
    before = statistics.median(r.before_s for r in rows)
    after = statistics.median(r.after_s for r in rows)
    by_label = {p.label: p.median_s for p in probes}
    other = sum(r.other_tools_s for r in rows)
    lines = [
        "### Where ssdlab's own time goes",
        "",
        f"- **Before the run row** (median over {len(rows)} runs): {before * 1000:.0f} ms. The "
        "probes below account for it: Python start-up with ssdlab's imports, then "
        "`fio --version`, `smartctl --version` and `nvme version`; the rest is target checks "
        "(mountinfo, sysfs, an O_DIRECT probe write), opening the store and planning.",
        f"- **Between fio processes**: {between * 1000:.0f} ms over {calls} fio processes, "
        f"{between / calls * 1000:.1f} ms per process (temporary folder and job file, process "
        "start, parsing JSON+ and the per-second logs, two store transactions).",
        f"- **Other tools stored with the run** (smartctl health samples and the like): "
        f"{other * 1000:.0f} ms in total over {len(rows)} runs.",
        f"- **After the run** (median): {after * 1000:.0f} ms (removing the test file, "
        "building the report, JSON on stdout, interpreter exit).",
        "- **fio's own start-up and exit** (process wall − reported runtime): median "
        f"{statistics.median(r.fio_fixed_per_call_s for r in rows) * 1000:.0f} ms "
        "per process over the runs above (column *fio fixed ms/call*). It lies inside "
        "Σ fio wall, so it is not ssdlab overhead, but it is why *vs runtime* is much larger "
        "than *overhead* for short passes.",
        "",
        f"Start-up probes (median of {PROBE_REPEATS} runs each):",
        "",
    ]
    table = [
        [p.label, shlex.join(p.argv), "n/a" if p.median_s is None else f"{p.median_s * 1000:.0f}"]
        for p in probes
    ]
    lines += md_table(["probe", "command", "ms"], table, [False, False, True])
    if results.imports:
        total = sum(seconds for _, seconds in results.imports)
        lines += [
            "",
            "Import time of `import ssdlab.cli.main` by origin (`python -X importtime`, self "
            f"times, median of 3; total {total * 1000:.0f} ms):",
            "",
        ]
        lines += md_table(
            ["modules", "ms"],
            [[name, f"{seconds * 1000:.1f}"] for name, seconds in results.imports],
            [False, True],
        )
    interpreter = by_label.get(PROBE_INTERPRETER)
    imported = by_label.get(PROBE_IMPORT)
    if interpreter is not None and imported is not None:
        lines += [
            "",
            f"So of the ~{before * 1000:.0f} ms before the run row, about "
            f"{(imported - interpreter) * 1000:.0f} ms are imports and "
            f"{interpreter * 1000:.0f} ms the bare interpreter (start and exit).",
        ]
    return lines


@dataclass(frozen=True, slots=True)
class Results:
    mode: str
    argv: tuple[str, ...]
    facts: tuple[tuple[str, str], ...]
    outcomes: tuple[AgreementOutcome, ...]
    rows: tuple[WallRow, ...]
    probes: tuple[Probe, ...]
    imports: tuple[tuple[str, float], ...]
    fio: str
    elapsed_s: float


def render(results: Results) -> str:
    command = shlex.join(["python", "bench/overhead.py", *results.argv])
    title = {
        "full": "Full run",
        "nvme": "NVMe-preset agreement (`--nvme`)",
        "quick": "Quick run (`--quick`)",
    }[results.mode]
    lines = [
        f"## {title}",
        "",
        f"Reproduce: `{command}` (from the repository root; this run took "
        f"{results.elapsed_s:.0f} s).",
        "",
    ]
    lines += md_table(["", ""], [[k, v] for k, v in results.facts], [False, False])
    lines += ["", *agreement_section(results.outcomes, results.fio), ""]
    lines += [*wall_section(results.rows), "", *breakdown_section(results)]
    return "\n".join(lines) + "\n"


def write_results(path: Path, mode: str, block: str) -> None:
    """Replace this mode's generated block of `path`, keeping everything written around it."""
    begin, end_mark = BEGIN_MARK.format(mode=mode), END_MARK.format(mode=mode)
    generated = f"{begin}\n{block}{end_mark}\n"
    if path.exists():
        text = path.read_text(encoding="utf-8")
        start, end = text.find(begin), text.find(end_mark)
        if start >= 0 and end > start:
            rest = text[end + len(end_mark) :].lstrip("\n")
            text = text[:start] + generated + ("\n" + rest if rest else "")
        else:
            text = text.rstrip("\n") + "\n\n" + generated
    else:
        text = "# ssdlab benchmark results\n\n" + generated
    path.write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="ssdlab vs fio by hand: IOPS agreement and wall-time overhead (issue 2)"
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--quick", action="store_true", help="shorter run (under a minute)")
    which.add_argument(
        "--nvme",
        action="store_true",
        help="only the NVMe-preset agreement case incl. RND4K Q32T16 (about 40 s)",
    )
    parser.add_argument(
        "--reps", type=int, help="alternating repetitions per agreement case (default 3)"
    )
    parser.add_argument(
        "--wall-reps", type=int, default=1, help="runs of each (b) wall-time case (default 1)"
    )
    parser.add_argument(
        "--directory", default="/tmp", help="where the temporary target and store go (/tmp)"
    )
    parser.add_argument("--ssdlab", help="the ssdlab command to time (default: ssdlab on PATH)")
    parser.add_argument(
        "--output",
        type=Path,
        help=f"Markdown results file to update (default for full and --nvme: {DEFAULT_RESULTS})",
    )
    parser.add_argument(
        "--quiet-wait",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="before each measurement, wait up to this long for other processes to go quiet "
        "(default 20; 0 = never wait)",
    )
    parser.add_argument("--no-write", action="store_true", help="only print, write no file")
    args = parser.parse_args(argv)
    if args.reps is not None and args.reps < 1:
        parser.error("--reps must be 1 or more")
    if args.wall_reps < 1:
        parser.error("--wall-reps must be 1 or more")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return run(list(sys.argv[1:] if argv is None else argv))
    except RuntimeError as error:
        print(f"overhead.py: error: {error}", file=sys.stderr)
        return 1


def run(given: list[str]) -> int:
    args = parse_args(given)
    clock = Clock(args.quiet_wait)
    ssdlab = find_ssdlab(args.ssdlab)
    fio = find_fio()
    mode = "quick" if args.quick else "nvme" if args.nvme else "full"
    suite = {"quick": quick_suite, "nvme": nvme_suite, "full": full_suite}[mode](args.reps)
    workdir = Path(tempfile.mkdtemp(prefix="ssdlab-bench-", dir=args.directory))
    db = workdir / "bench.db"
    overall = cpu_snapshot()
    load_before = os.getloadavg()
    try:
        clock.say(f"work directory {workdir}; ssdlab = {shlex.join(ssdlab)}; fio = {fio}")
        probes = startup_probes(ssdlab, fio)
        imports = import_breakdown()
        outcomes = [
            run_agreement(ssdlab, fio, case, workdir, db, clock) for case in suite.agreement
        ]
        rows: list[WallRow] = []
        for number in range(1, args.wall_reps + 1):
            for case in suite.wall:
                label = case.name if args.wall_reps == 1 else f"{case.name} #{number}"
                folder = workdir / label.replace(" ", "-").replace("#", "")
                folder.mkdir()
                clock.settle()
                clock.say(f"(b) {label}: ssdlab quick (fresh test file, fill included)")
                run = run_ssdlab(ssdlab, folder, case.options, db, keep=False, label=f"(b) {label}")
                rows.append(wall_row(run, dedicated=True))
        rows += [wall_row(r, dedicated=False) for o in outcomes for r in o.runs]
        device = next((d for o in outcomes for r in o.runs if (d := device_summary(r))), None)
        facts = machine_facts(ssdlab, fio, workdir, device)
        facts.append(("quiet gate", clock.describe_gates()))
        facts.append(("other processes", Interference.between(overall, cpu_snapshot()).describe()))
        load_after = os.getloadavg()
        facts.append(
            (
                "load average",
                "before "
                + " / ".join(f"{v:.2f}" for v in load_before)
                + ", after "
                + " / ".join(f"{v:.2f}" for v in load_after)
                + " (1 / 5 / 15 min)",
            )
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    results = Results(
        mode=mode,
        argv=tuple(given),
        facts=tuple(facts),
        outcomes=tuple(outcomes),
        rows=tuple(rows),
        probes=tuple(probes),
        imports=tuple(imports),
        fio=fio,
        elapsed_s=clock.elapsed(),
    )
    text = render(results)
    print(text)
    output = args.output or (None if mode == "quick" else DEFAULT_RESULTS)
    if output is not None and not args.no_write:
        write_results(output, mode, text)
        clock.say(f"results written to {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
