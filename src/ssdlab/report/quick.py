"""The quick run's result document: a CrystalDiskMark-shaped grid plus the spread of passes."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ssdlab.analysis.passes import TestSummary, summarize_tests
from ssdlab.analysis.run_metrics import kept_figure
from ssdlab.model.health import HealthSample
from ssdlab.model.run import RunKind, RunRecord
from ssdlab.model.step import StepResult
from ssdlab.model.units import (
    MB,
    format_cdm_iops,
    format_cdm_latency_us,
    format_cdm_mb_per_s,
    format_size,
)

DIRECTION_ORDER = ("read", "write", "mix")
FORMAT_VERSION = 1


@dataclass(frozen=True, slots=True)
class QuickRow:
    label: str  # SEQ1M Q8T1
    cells: tuple[TestSummary | None, ...]  # one per QuickReport.directions


@dataclass(frozen=True, slots=True)
class QuickReport:
    run: RunRecord
    directions: tuple[str, ...]
    rows: tuple[QuickRow, ...]
    summaries: tuple[TestSummary, ...]
    steps: tuple[StepResult, ...]
    health: tuple[tuple[str, HealthSample], ...] = ()  # (phase, sample): before / after


def build_quick_report(
    run: RunRecord,
    steps: Sequence[StepResult],
    health: Sequence[tuple[str, HealthSample]] = (),
) -> QuickReport:
    summaries = summarize_tests(steps)
    directions = tuple(d for d in DIRECTION_ORDER if any(s.direction == d for s in summaries))
    labels: list[str] = []
    for step in steps:
        if step.step_label not in labels:
            labels.append(step.step_label)
    by_cell = {(s.label, s.direction): s for s in summaries}
    rows = tuple(
        QuickRow(label, tuple(by_cell.get((label, d)) for d in directions)) for label in labels
    )
    return QuickReport(run, directions, rows, summaries, tuple(steps), tuple(health))


def mb_per_s(bytes_per_s: float) -> float:
    return bytes_per_s / MB


def us(ns: float | None) -> float | None:
    return None if ns is None else ns / 1000


NOISY_MARKER = "‼"


def format_spread(summary: TestSummary) -> str:
    """'512.30 ± 4.10 MB/s (0.8 %), 498.20–515.00, n=5' — what best-of-N hides; a noisy test
    ends with the marker (see noisy_footnote)."""
    mean = summary.mean_bw_bytes_per_s / MB
    if summary.stdev_bw_bytes_per_s is None or summary.cv_pct is None:
        return f"{mean:.2f} MB/s, n=1"
    marker = f" {NOISY_MARKER}" if summary.noisy else ""
    return (
        f"{mean:.2f} ± {summary.stdev_bw_bytes_per_s / MB:.2f} MB/s ({summary.cv_pct:.1f} %), "
        f"{summary.min_bw_bytes_per_s / MB:.2f}–{summary.max_bw_bytes_per_s / MB:.2f}, "
        f"n={summary.passes}{marker}"
    )


def noisy_footnote(summaries: Sequence[TestSummary]) -> str | None:
    """One line for the run: '‼ noisy (passes vary by more than 10 %, CV): SEQ1M Q8T1 read
    55.0 %, RND4K Q1T1 write 12.3 %; their best pass is not a repeatable number'; None when no
    test is noisy."""
    noisy = [s for s in summaries if s.noisy and s.cv_pct is not None]
    if not noisy:
        return None
    limit = noisy[0].noisy_cv_limit_pct
    listed = ", ".join(f"{s.label} {s.direction} {s.cv_pct:.1f} %" for s in noisy)
    which = "its best pass is" if len(noisy) == 1 else "their best passes are"
    return (
        f"{NOISY_MARKER} noisy (passes vary by more than {limit:g} %, CV): {listed}; {which} "
        "not a repeatable number"
    )


MEMORY_FILESYSTEMS = ("tmpfs", "ramfs", "devtmpfs")
MEMORY_PHRASE = "measures memory"  # in a target warning: what the target measures is RAM


def memory_reason(target: Mapping[str, object]) -> str | None:
    """Why a stored target measures memory rather than a drive, None when it does not (as far
    as the target recorded): a file on tmpfs/ramfs/devtmpfs, or a warning recorded when the
    target was resolved (a loop device on a regular file without direct I/O)."""
    filesystem = target.get("filesystem")
    if isinstance(filesystem, dict) and filesystem.get("fs_type") in MEMORY_FILESYSTEMS:
        return (
            f"{filesystem.get('mount_point')} is {filesystem.get('fs_type')}: the test file is "
            "in RAM, so this measures memory, not a drive"
        )
    warnings = target.get("warnings")
    if isinstance(warnings, list | tuple):
        for warning in warnings:
            if isinstance(warning, str) and MEMORY_PHRASE in warning:
                return warning
    return None


def memory_label(target: Mapping[str, object]) -> str | None:
    """The line every rendering of such a run carries, None for a drive."""
    reason = memory_reason(target)
    return None if reason is None else f"MEASURES MEMORY, NOT A DRIVE — {reason}"


def report_footnotes(report: QuickReport) -> tuple[str, ...]:
    """What the numbers above must be read with: memory, then one line of the noisy tests."""
    label = memory_label(report.run.target)
    return tuple(line for line in (label, noisy_footnote(report.summaries)) if line is not None)


def figure_caption(run: RunRecord) -> str:
    """What each figure of the grid is: ssdlab's best pass, or what the imported tool kept
    (KDiskMark's Default profile keeps a mean, fio JSON one run of each job, AS SSD Benchmark
    and Iometer one run of each test)."""
    if run.kind is RunKind.FLEET_LOAD:
        return "One run of the job on every host at once, as fio's client reported it"
    if run.kind is not RunKind.IMPORT:
        return "Best of the measured passes, as CrystalDiskMark reports"
    source = known(run.settings.get("source_tool"))
    kept = kept_figure(run.kind, run.profile, run.settings.get("source_tool"), run.preset)
    if kept == "best":
        return f"Best pass of each test, as {source} reported it"
    if kept == "mean":
        return f"Mean of the passes of each test, as {source} reported it"
    if run.profile == "fio":
        return f"One run of each job, as {source} reported it"
    return f"One run of each test, as {source} reported it"


def grid_cells(report: QuickReport) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """(header, rows) of the CrystalDiskMark-shaped grid: per test, best MB/s, IOPS and µs of
    each direction (empty where the test did not run in it)."""
    header = ["Test"]
    for direction in report.directions:
        header += [f"{direction.capitalize()} MB/s", "IOPS", "µs"]
    rows = []
    for row in report.rows:
        cells = [row.label]
        for summary in row.cells:
            if summary is None:
                cells += ["", "", ""]
            else:
                cells += [
                    format_cdm_mb_per_s(summary.best_bw_bytes_per_s),
                    format_cdm_iops(summary.best_iops),
                    format_cdm_latency_us(summary.best_lat_mean_ns),
                ]
        rows.append(tuple(cells))
    return tuple(header), tuple(rows)


def known(value: object) -> str:
    """A stored setting as text; "n/a" where it was never recorded (unknown is not 0)."""
    return "n/a" if value is None or value == "" else str(value)


def _seconds(value: object) -> str:
    return (
        f"{value:g} s" if isinstance(value, int | float) and not isinstance(value, bool) else "n/a"
    )


FIO_JOB_OPTIONS = ("rw", "bs", "iodepth", "numjobs", "ioengine", "direct", "size", "runtime")


def _fio_jobs_line(settings: dict[str, object]) -> str:
    """What an imported fio JSON ran, from the job options fio recorded in it."""
    jobs = settings.get("jobs")
    if not isinstance(jobs, dict) or not jobs:
        return "fio job options not recorded in the imported file"
    described = []
    for name, options in jobs.items():
        opts = options if isinstance(options, dict) else {}
        shown = ", ".join(f"{key}={opts[key]}" for key in FIO_JOB_OPTIONS if key in opts)
        described.append(f"{name} ({shown or 'options not recorded'})")
    return "fio job(s) as written by hand: " + "; ".join(described)


def _fleet_load_line(run: RunRecord) -> str:
    hosts = run.target.get("hosts")
    names = ", ".join(map(str, hosts)) if isinstance(hosts, list) else "hosts n/a"
    writes = "writes" if run.settings.get("writes") else "reads only"
    return f"fio job {known(run.settings.get('job'))} ({writes}) on {names} at once"


def settings_line(run: RunRecord) -> str:
    s = run.settings
    if run.kind is RunKind.IMPORT and run.profile == "fio":
        return _fio_jobs_line(s)
    if run.kind is RunKind.FLEET_LOAD:
        return _fleet_load_line(run)
    size = s.get("size_bytes")
    size_text = format_size(size) if isinstance(size, int) and not isinstance(size, bool) else "n/a"
    count = s.get("count")
    passes = f"{count} (+ 1 warm-up pass)" if isinstance(count, int) else "n/a"
    direct = s.get("direct_io")
    io_mode = "I/O mode n/a" if direct is None else ("direct I/O" if direct else "--buffered")
    if direct and memory_reason(run.target) is not None:
        io_mode = "direct I/O to a target that sits in memory"
    return (
        f"--preset {known(s.get('preset'))}, --size {size_text}, --count {passes}, "
        f"--measure {_seconds(s.get('measure_s'))}, --interval {_seconds(s.get('interval_s'))}, "
        f"--data {known(s.get('data'))}, {io_mode}, --ioengine {known(s.get('ioengine'))}"
    )


def environment_line(run: RunRecord) -> str:
    """'fio-3.33 · Linux 6.1.0 · host · CPU model': what produced the numbers."""
    env = run.environment
    parts = [
        str(env.get("fio_version") or "fio version unknown"),
        f"Linux {env.get('kernel')}" if env.get("kernel") else None,
        str(env["host"]) if env.get("host") else None,
        str(env["cpu_model"]) if env.get("cpu_model") else None,
    ]
    return " · ".join(p for p in parts if p)
