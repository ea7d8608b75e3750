"""`ssdlab metrics` on a fleet's store: how long a scrape takes and how much memory it needs.

A store of N drives (default 1,000) is built through ssdlab's own store functions
(`create_run`, `add_health_sample`, `add_capture`, `add_step_result`, `add_finding`), spread
over 100 hosts; per drive:

- its device (`upsert_device`), half of the drives SATA (the MX500 capture of
  `tests/data/smart/ata-crucial-mx500-devstat-wrap.json`, with NAND counters and erase
  counts), half NVMe (`tests/data/smart/nvme-cli-2.x-smart-log.json`, named);
- a `watch` run of 10 health samples, one every 6 hours, the counters moving as a drive
  written 40 GB an hour moves them (the wear indicator one step every two days);
- 20 complete `quick` runs, one every 9 hours, each with its health samples before and after
  (50 samples per drive in all), its passes those of the real quick run 1 of
  `tests/data/store/main-98b38bc.sqlite` (12 tests, a warm-up and a measured pass each, its
  stored settings and plan), each pass with a capture of its own (fio's output left out: no
  scrape reads it, and compressing 480,000 outputs would take the build an hour);
- every other drive's latest quick run judged against a baseline (a `baseline` finding).

Both source trees are compiled to bytecode first (`compileall`), as `pip install` leaves them.
Then, in alternating rounds (at least 3), each a new process timed end to end with its peak
RSS (GNU time's %M):

- `ssdlab metrics` of this tree, to stdout, and with `--textfile DIR`;
- the anchor: `ssdlab metrics` of the commit before the exporter read indexes (`--anchor`,
  default bd33ceb: it loads every finished run and every health sample), from that commit's
  `src/` (`git archive`), on a copy of the store with the schema version it knows (the columns
  and indexes schema 9 adds are there, unused by it).

Every output is checked: stdout and the textfile are the same text, and the anchor printed
the same (the store has no samples read from saved files, whose host label changed). One
untimed run of each warms the page cache first.

    python bench/metrics_scale.py                 # ~15 min; writes its block in RESULTS.md
    python bench/metrics_scale.py --drives 20     # the tiny CI version (prints only)
"""

import argparse
import dataclasses
import io
import json
import math
import os
import platform
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from results_block import write_block  # noqa: E402
from ssdlab.model.health import HealthSample, HealthValue  # noqa: E402
from ssdlab.model.run import Capture, RunStatus  # noqa: E402
from ssdlab.model.step import StepResult  # noqa: E402
from ssdlab.model.target import DeviceIdentity  # noqa: E402
from ssdlab.parse.nvme_json import parse_nvme_smart_log  # noqa: E402
from ssdlab.parse.smartctl_json import parse_smartctl_json  # noqa: E402
from ssdlab.store.captures import add_capture  # noqa: E402
from ssdlab.store.db import SCHEMA_VERSION, open_store  # noqa: E402
from ssdlab.store.devices import upsert_device  # noqa: E402
from ssdlab.store.findings import add_finding  # noqa: E402
from ssdlab.store.health import add_health_sample  # noqa: E402
from ssdlab.store.lifecycle import NewRun, create_run, finish_run  # noqa: E402
from ssdlab.store.steps import add_step_result, load_step_results  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
BEGIN = "<!-- BEGIN bench/metrics_scale.py: generated, edits inside are overwritten -->"
END = "<!-- END bench/metrics_scale.py -->"
TEMPLATE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"
SMART = ROOT / "tests" / "data" / "smart"
ANCHOR = "bd33ceb"  # the last commit whose `ssdlab metrics` loads everything
HOSTS = 100
QUICK_RUNS = 20
WATCH_SAMPLES = 10
HOUR_S = 3600.0
GB = 1e9
START_S = 1_767_225_600.0
GNU_TIME = "/usr/bin/time"
QUIET_SHARE = 0.1  # other processes under 10 % of one CPU: the machine is quiet
MB = 1e6


# ---- building the store -------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Template:
    """What every quick run is made of: run 1 of the template store."""

    steps: list[StepResult]
    target_json: str
    settings_json: str
    plan_json: str
    environment_json: str


def template_run(folder: Path) -> Template:
    copy = folder / "template.sqlite"
    shutil.copyfile(TEMPLATE, copy)
    conn = open_store(copy)
    try:
        row = conn.execute(
            "SELECT target_json, settings_json, plan_json, environment_json FROM runs WHERE id = 1"
        ).fetchone()
        steps = load_step_results(conn, 1, with_series=False)
    finally:
        conn.close()
    blobs = []
    for text in row:  # as ssdlab writes them: create_run puts the version in
        data = json.loads(text)
        data.pop("blob_version", None)
        blobs.append(json.dumps(data))
    return Template(steps, *blobs)


def moved(sample: HealthSample, taken_at_s: float, **values: float) -> HealthSample:
    """The sample at another time with some counters at other values, each keeping the
    provenance (source, unit, resolution) the parser gave it."""
    changed: dict[str, HealthValue] = {}
    for name, value in values.items():
        changed[name] = dataclasses.replace(getattr(sample, name), value=value)
    return dataclasses.replace(sample, taken_at_s=taken_at_s, **changed)  # type: ignore[arg-type]


def drive_samples(index: int) -> tuple[HealthSample, DeviceIdentity]:
    """The drive's first sample and its device."""
    serial = f"BENCH{index:06d}"
    if index % 2 == 0:
        sample = parse_smartctl_json((SMART / "ata-crucial-mx500-devstat-wrap.json").read_text())
    else:
        sample = parse_nvme_smart_log((SMART / "nvme-cli-2.x-smart-log.json").read_text())
        sample = dataclasses.replace(
            sample,
            identity=dataclasses.replace(
                sample.identity,
                model="Samsung SSD 980 PRO 1TB",
                firmware="5B2QGXA7",
                capacity_bytes=1_000_204_886_016,
            ),
        )
    identity = dataclasses.replace(sample.identity, serial=serial, device_path=f"/dev/sd{index}")
    device = DeviceIdentity(
        f"sd{index}",
        f"/dev/sd{index}",
        model=identity.model,
        serial=serial,
        firmware=identity.firmware,
        capacity_bytes=identity.capacity_bytes,
    )
    return dataclasses.replace(sample, identity=identity), device


def sample_at(first: HealthSample, hours: float) -> HealthSample:
    """The drive `hours` after its first sample: 40 GB written an hour, WAF 2.5 where the drive
    counts NAND writes, the wear indicator a step every 48 h."""
    values = {
        "host_written_bytes": (first.host_written_bytes.value or 0.0) + hours * 40 * GB,
        "wear_used_pct": (first.wear_used_pct.value or 0.0) + hours // 48,
        "power_on_hours": (first.power_on_hours.value or 0.0) + hours // 1,
        "temperature_c": 30.0 + (hours // 3) % 9,
    }
    if first.nand_written_bytes.value is not None:
        values["nand_written_bytes"] = first.nand_written_bytes.value + hours * 100 * GB
    if first.erase_count_avg.value is not None:
        values["erase_count_avg"] = first.erase_count_avg.value + hours // 4
    return moved(first, START_S + hours * HOUR_S, **values)


def _run(conn: sqlite3.Connection, kind: str, template: Template, **fields: Any) -> int:
    quick = kind == "quick"
    return create_run(
        conn,
        NewRun(
            kind=kind,
            profile=kind,
            profile_version=1,
            preset=None,
            target_kind="device",
            target_json=template.target_json if quick else "{}",
            settings_json=template.settings_json if quick else "{}",
            plan_json=template.plan_json if quick else "{}",
            environment_json=template.environment_json,
            pid=1,
            boot_id=None,
            **fields,
        ),
    )


def build_drive(conn: sqlite3.Connection, index: int, template: Template) -> None:
    first, device = drive_samples(index)
    device_id = upsert_device(conn, device)
    host = f"lab-{index % HOSTS}"
    path = device.path
    watch = _run(
        conn, "watch", template, target_path=path, device_id=device_id,
        started_at_s=START_S, host=host,
    )  # fmt: skip
    for n in range(WATCH_SAMPLES):
        add_health_sample(conn, watch, "watch", sample_at(first, 6.0 * n))
    finish_run(conn, watch, RunStatus.COMPLETE, None, START_S + 6 * WATCH_SAMPLES * HOUR_S)
    run_id = 0
    for n in range(QUICK_RUNS):
        hours = 6.0 * WATCH_SAMPLES + 9.0 * n
        started = START_S + hours * HOUR_S
        run_id = _run(
            conn, "quick", template, target_path=path, device_id=device_id,
            started_at_s=started, host=host,
        )  # fmt: skip
        add_health_sample(conn, run_id, "before", sample_at(first, hours))
        speed = 0.9 + 0.01 * ((index + n) % 20)
        for step in template.steps:
            capture = Capture("fio", ("fio", "--output-format=json+", "job.fio"), 0, "", "", 0, 1)
            capture_id = add_capture(conn, run_id, capture)
            add_step_result(
                conn,
                run_id,
                dataclasses.replace(
                    step,
                    capture_id=capture_id,
                    bw_bytes_per_s=step.bw_bytes_per_s * speed,
                    iops=step.iops * speed,
                ),
            )
        add_health_sample(conn, run_id, "after", sample_at(first, hours + 0.2))
        finish_run(conn, run_id, RunStatus.COMPLETE, None, started + 0.2 * HOUR_S)
    if index % 2 == 0:
        keys = sorted({s.step_key for s in template.steps})
        body = {
            "name": "nightly",
            "reference_run_ids": [run_id - 1],
            "tests": [{"key": k, "regression": i == index % len(keys)} for i, k in enumerate(keys)],
        }
        add_finding(conn, run_id, "baseline", "verdict", body, START_S)


def build_store(path: Path, drives: int, folder: Path) -> float:
    """The store of `drives` drives; the seconds it took."""
    started = time.monotonic()
    template = template_run(folder)
    conn = open_store(path)
    conn.execute("PRAGMA synchronous = OFF")  # a benchmark's store: no crash to survive
    try:
        for index in range(drives):
            build_drive(conn, index, template)
            if drives >= 100 and (index + 1) % (drives // 10) == 0:
                print(f"built {index + 1}/{drives} drives", file=sys.stderr, flush=True)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return time.monotonic() - started


# ---- the anchor ---------------------------------------------------------------------------


def anchor_tree(folder: Path, commit: str) -> tuple[Path, int]:
    """`src/` of `commit`, and the store schema version it knows."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, "src"], capture_output=True, check=False
    )
    if archive.returncode != 0:
        raise SystemExit(f"git archive {commit}: {archive.stderr.decode().strip()}")
    target = folder / f"anchor-{commit}"
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(target, filter="data")
    migrations = target / "src" / "ssdlab" / "store" / "migrations"
    schema = max(int(p.name.split("_", 1)[0]) for p in migrations.glob("*.sql"))
    return target / "src", schema


def anchor_store(path: Path, copy: Path, schema: int) -> Path:
    """A copy of the store that says it is of `schema`, for an ssdlab that knows no newer one.
    What ssdlab stores since the anchor and metrics exports none of is left out, as the anchor
    wrote its rows: a health sample's `choices` (which source was set aside) and a direction's
    `lat_percentiles_ns` (fio's total-latency percentiles)."""
    shutil.copyfile(path, copy)
    conn = sqlite3.connect(copy)
    with conn:
        conn.execute(
            "UPDATE health_samples SET sample_json = json_remove(sample_json, '$.choices')"
        )
        for column in ("read_json", "write_json"):
            conn.execute(
                f"UPDATE step_results SET {column} = json_remove({column}, '$.lat_percentiles_ns')"
                f" WHERE {column} IS NOT NULL"
            )
    conn.execute(f"PRAGMA user_version = {schema:d}")
    conn.close()
    return copy


# ---- timing -------------------------------------------------------------------------------


def _busy_s() -> tuple[float, float]:
    """CPU seconds every CPU has been busy (/proc/stat: user, nice, system, irq, softirq), and
    those of this process and its children."""
    fields = [int(v) for v in Path("/proc/stat").read_text(encoding="utf-8").split()[1:8]]
    user, nice, system, _idle, _iowait, irq, softirq = fields
    own = sum(
        usage.ru_utime + usage.ru_stime
        for usage in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    )
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK"), own


def settle(limit_s: float) -> float:
    """Wait, at most `limit_s`, until other processes use less than QUIET_SHARE of one CPU
    over half a second; the seconds waited."""
    started = time.monotonic()
    while limit_s > 0:
        busy, own = _busy_s()
        time.sleep(0.5)
        busy_after, own_after = _busy_s()
        if (busy_after - busy) - (own_after - own) < QUIET_SHARE * 0.5:
            break
        if time.monotonic() - started > limit_s:
            break
    return time.monotonic() - started


def run_measured(argv: list[str], src: Path, quiet_wait_s: float = 0.0) -> dict[str, Any]:
    """Wall seconds, CPU seconds (user + system), peak RSS (MB) — GNU time's %U, %S, %M —, the
    load average before, the share of one CPU other processes used meanwhile, and stdout of
    one process (started once other processes are quiet, or after `quiet_wait_s`)."""
    settle(quiet_wait_s)
    env = dict(os.environ, PYTHONPATH=str(src))
    load = os.getloadavg()[0]
    busy, own = _busy_s()
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        timed = os.path.exists(GNU_TIME)
        command = [GNU_TIME, "-f", "%U %S %M", "-o", report.name, *argv] if timed else argv
        started = time.monotonic()
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        wall = time.monotonic() - started
        if done.returncode != 0:
            raise SystemExit(f"{argv} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
        user, system, peak_kib = (
            (float(v) for v in report.read().split()[-3:]) if timed else (math.nan,) * 3
        )
    busy_after, own_after = _busy_s()
    foreign = max(0.0, (busy_after - busy) - (own_after - own))
    return {
        "wall_s": wall,
        "cpu_s": user + system,
        "peak_rss_mb": peak_kib * 1024 / MB,
        "load": load,
        "others_cpus": foreign / wall,
        "out": done.stdout,
    }


FLOAT_TOLERANCE = 1e-9  # relative; the wear fit moved to scipy and differs in the last digits


def same_text(theirs: str, ours: str) -> bool:
    """The same text, each number equal within FLOAT_TOLERANCE (the anchor's wear fit was
    numpy's least squares, today's is scipy's: they differ in the 16th digit)."""
    a, b = theirs.split(), ours.split()
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if x == y:
            continue
        try:
            fx, fy = float(x), float(y)
        except ValueError:
            return False
        if abs(fx - fy) > FLOAT_TOLERANCE * max(abs(fx), abs(fy)):
            return False
    return True


def _stats(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def measure(
    drives: int, rounds: int, anchor: str | None, keep: Path | None, quiet_wait_s: float
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ssdlab-bench-metrics-") as scratch:
        folder = Path(scratch)
        db = (keep or folder) / f"metrics-{drives}-drives-schema{SCHEMA_VERSION}.sqlite"
        build_s = float("nan")
        if not db.exists():  # built under another name: a build cut short is not reused
            building = db.with_suffix(".building")
            building.unlink(missing_ok=True)
            build_s = build_store(building, drives, folder)
            building.rename(db)
        python = sys.executable
        textfiles = folder / "textfile"
        textfiles.mkdir()
        cases: dict[str, tuple[list[str], Path]] = {
            "ssdlab metrics": ([python, "-m", "ssdlab", "metrics", "--db", str(db)], ROOT / "src"),
            "ssdlab metrics --textfile": (
                [python, "-m", "ssdlab", "metrics", "--db", str(db), "--textfile", str(textfiles)],
                ROOT / "src",
            ),
        }
        anchor_schema = None
        anchor_case = f"anchor: ssdlab metrics at {anchor}"
        if anchor is not None:
            src, anchor_schema = anchor_tree(folder, anchor)
            old_db = anchor_store(db, folder / "anchor.sqlite", anchor_schema)
            argv = [python, "-m", "ssdlab", "metrics", "--db", str(old_db)]
            cases[anchor_case] = (argv, src)
        for src in {src for _, src in cases.values()}:  # as pip install does, on both sides
            subprocess.run([python, "-m", "compileall", "-q", str(src)], check=True)
        for argv, src in cases.values():  # warm the page cache
            run_measured(argv, src)
        timings: dict[str, list[dict[str, Any]]] = {name: [] for name in cases}
        for _ in range(rounds):
            for name, (argv, src) in cases.items():
                timings[name].append(run_measured(argv, src, quiet_wait_s))
        printed = timings["ssdlab metrics"][-1]["out"]
        written = (textfiles / "ssdlab.prom").read_text(encoding="utf-8")
        outputs = {name: {t["out"] for t in runs} for name, runs in timings.items()}
        checks = {
            "textfile_same_as_stdout": written == printed,
            "stdout_same_every_round": len(outputs["ssdlab metrics"]) == 1,
            "anchor_same_text": None
            if anchor is None
            else all(same_text(out, printed) for out in outputs[anchor_case]),
        }
        conn = sqlite3.connect(db)
        counts = {
            table: int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
            for table in ("runs", "health_samples", "step_results")
        }
        conn.close()
        return {
            "drives": drives,
            "rounds": rounds,
            "build_s": build_s,
            "store_mb": db.stat().st_size / MB,
            "rows": counts,
            "anchor": anchor,
            "quiet_wait_s": quiet_wait_s,
            "anchor_schema": anchor_schema,
            "output_lines": printed.count("\n"),
            "output_bytes": len(printed.encode("utf-8")),
            "checks": checks,
            "cases": {
                name: {
                    key: _stats([t[key] for t in runs])
                    for key in ("wall_s", "cpu_s", "peak_rss_mb", "load", "others_cpus")
                }
                for name, runs in timings.items()
            },
        }


# ---- report -------------------------------------------------------------------------------


def _commit() -> str:
    done = subprocess.run(
        ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return done.stdout.strip() or "unknown"


def _machine() -> str:
    model = "unknown CPU"
    with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return (
        f"{platform.node()}, {model}, {os.cpu_count()} CPUs (shared with other work), "
        f"{pages / 2**30:.1f} GiB RAM, Linux {platform.release()}, Python "
        f"{platform.python_version()}, SQLite {sqlite3.sqlite_version}, ssdlab {_commit()}"
    )


def _span(stats: dict[str, float], digits: int, unit: str = "") -> str:
    """median (min–max)"""
    low, high = f"{stats['min']:.{digits}f}", f"{stats['max']:.{digits}f}"
    return f"{stats['median']:.{digits}f}{unit} ({low}–{high})"


def render(result: dict[str, Any]) -> str:
    rows = result["rows"]
    lines = [
        BEGIN,
        "## `ssdlab metrics` on a fleet's store (`bench/metrics_scale.py`)",
        "",
        f"Machine: {_machine()}. Store: {result['drives']:,} drives on {HOSTS} hosts, "
        f"{WATCH_SAMPLES + 2 * QUICK_RUNS} health samples and {QUICK_RUNS} quick runs each "
        f"({rows['runs']:,} runs, {rows['health_samples']:,} health samples, "
        f"{rows['step_results']:,} step results), {result['store_mb']:,.0f} MB. Output: "
        f"{result['output_lines']:,} lines, {result['output_bytes'] / MB:.1f} MB.",
        "",
        "Each a new process, end to end (interpreter, store, query, text, exit), from source "
        f"compiled to bytecode beforehand as pip installs it; {result['rounds']} alternating "
        "rounds after one untimed warm-up each, each run started "
        f"once other processes used under {QUIET_SHARE:.0%} of one CPU for half a second (or "
        f"after {result['quiet_wait_s']:g} s); median (min–max). *Others*: CPUs other processes "
        "kept busy during the run (1.0 = one of the two); on a shared machine the wall time "
        "follows them, the CPU time much less.",
        "",
        "| command | wall | CPU (user + system) | peak RSS | load average before | others |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, case in result["cases"].items():
        lines.append(
            f"| {name} | {_span(case['wall_s'], 2, ' s')} | {_span(case['cpu_s'], 2, ' s')} | "
            f"{_span(case['peak_rss_mb'], 0, ' MB')} | {_span(case['load'], 2)} | "
            f"{_span(case['others_cpus'], 2)} |"
        )
    checks = result["checks"]
    lines += [
        "",
        f"Checks: the textfile is the text printed: {checks['textfile_same_as_stdout']}; the "
        f"same text every round: {checks['stdout_same_every_round']}; the anchor printed the "
        f"same text (numbers within a relative {FLOAT_TOLERANCE:g}): "
        f"{checks['anchor_same_text']} (the anchor ran on a copy of the store marked "
        f"schema {result['anchor_schema']}).",
        "",
        END,
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drives", type=int, default=1000, help="drives in the store")
    parser.add_argument("--rounds", type=int, default=3, help="alternating timed rounds")
    parser.add_argument("--anchor", default=ANCHOR, help="the commit to time as the anchor")
    parser.add_argument("--no-anchor", action="store_true", help="time this tree only")
    parser.add_argument(
        "--keep", type=Path, metavar="DIR", help="keep the store in DIR (and reuse it there)"
    )
    parser.add_argument(
        "--quiet-wait",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="before each run, wait at most this long for other processes to be quiet (0: off)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
    parser.add_argument(
        "--results", type=Path, help=f"rewrite this file's block at any size ({RESULTS})"
    )
    args = parser.parse_args()
    anchor = None if args.no_anchor else args.anchor
    result = measure(args.drives, args.rounds, anchor, args.keep, args.quiet_wait)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    text = render(result)
    print(text)
    if args.results is not None or (args.drives >= 1000 and args.rounds >= 3):
        write_block(args.results or RESULTS, BEGIN, END, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
