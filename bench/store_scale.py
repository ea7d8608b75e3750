"""A store at fleet size: `ssdlab runs` over 100,000 stored runs, and how fast a store grows.

1. **Listing.** A store of N runs (default 100,000) is built with SQL from the runs of a real
   store (`tests/data/store/main-98b38bc.sqlite`: quick runs, profile runs, imports, a
   simulation, an endurance run, written by ssdlab itself), each copied with its captures,
   step results, series, health samples and findings under new ids and a new UUID, spread
   over 300 hosts and one start every 10 minutes. `ssdlab runs` is then timed end to end
   (a new process each time: interpreter start, store open, query, table) with its peak RSS
   — all runs, `--json`, `--host`, a page deep in the store, `--profile` — beside the
   `sqlite3` shell answering the same query, and the store query alone in this process.
   `show` of one run is timed in the small store and the big one: its time must not grow
   with the store.
2. **Growth.** One drive-day of an endurance run at the defaults of `ssdlab endure`
   (a 10-minute iteration with a log point every 10 s: 144 iterations of 60 points; a health
   sample every 5 minutes: 288 samples, each with the raw `smartctl -x -j` of a real drive,
   its counters moving from sample to sample) is written through the store functions into a
   store as ssdlab writes it (raw compressed) and into one with compression off (the anchor,
   in the same run), and the store files compared. The same for the quick runs of the real
   store (compressed by `compress_stored_text` against the text they were stored as), and,
   with `--quick-default`, for a real `ssdlab quick` at its defaults on a file (minutes).

    python bench/store_scale.py                  # ~3 min; writes its block in RESULTS.md
    python bench/store_scale.py --runs 1000      # the tiny CI version (prints only)
"""

import argparse
import json
import os
import platform
import random
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from results_block import write_block  # noqa: E402
from ssdlab.model.result import SeriesPoint  # noqa: E402
from ssdlab.model.run import Capture  # noqa: E402
from ssdlab.store import raw  # noqa: E402
from ssdlab.store.captures import add_capture  # noqa: E402
from ssdlab.store.compaction import compress_stored_text  # noqa: E402
from ssdlab.store.db import open_store  # noqa: E402
from ssdlab.store.health import add_health_sample, load_health_samples  # noqa: E402
from ssdlab.store.lifecycle import NewRun, create_run  # noqa: E402
from ssdlab.store.listing import (  # noqa: E402
    RunFilter,
    count_run_listings,
    list_run_listings,
    listing_query,
)
from ssdlab.store.steps import add_step_result, load_step_results  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
BEGIN = "<!-- BEGIN bench/store_scale.py: generated, edits inside are overwritten -->"
END = "<!-- END bench/store_scale.py -->"
TEMPLATE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"
# the shared test data sits beside the project (/work/shared for /work/main); from a git
# worktree (/work/wt/NAME) it is one level further up: both are looked for, so a worktree
# measures with the same 38 KB capture and not with the smaller fallback
_SMART_NAME = Path("shared") / "testdata" / "smart" / "samsung-860evo-500GB-sata-x.json"
LIVE_SMART = next(
    (up / _SMART_NAME for up in ROOT.parents if (up / _SMART_NAME).exists()),
    ROOT.parent / _SMART_NAME,
)
SMART_FALLBACK = ROOT / "tests" / "data" / "smart" / "ata-crucial-mx500-devstat-wrap.json"
HOSTS = 300
DAY_S = 86400.0
ITERATION_S = 600.0  # ssdlab endure's defaults
LOG_INTERVAL_S = 10.0
HEALTH_EVERY_S = 300.0
ENDURANCE_RUN = 14  # the endurance run of the template store
MB = 1e6


def _ssdlab() -> list[str]:
    return [sys.executable, "-m", "ssdlab"]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT / "src"), COLUMNS="120")


# ---- building the big store ---------------------------------------------------------------


def compressed_copy(source: Path, path: Path) -> Path:
    """A copy of the store `source` migrated to today's schema, its raw text compressed (what
    `ssdlab store compact` does) and vacuumed."""
    shutil.copyfile(source, path)
    conn = open_store(path)
    compress_stored_text(conn)
    conn.execute("VACUUM")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path


def template_store(folder: Path) -> Path:
    """The real store, migrated to today's schema and its raw text compressed."""
    return compressed_copy(TEMPLATE, folder / "template.sqlite")


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")]


def build_store(path: Path, runs: int, template: Path) -> float:
    """A store of `runs` runs copied from the template's; the seconds it took."""
    started = time.monotonic()
    open_store(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("ATTACH DATABASE ? AS tpl", (str(template),))
    ids = [int(r[0]) for r in conn.execute("SELECT id FROM tpl.runs ORDER BY id")]
    stride = 1 + max(
        int(conn.execute(f"SELECT COALESCE(MAX(id), 0) FROM tpl.{table}").fetchone()[0])
        for table in ("captures", "step_results", "health_samples", "findings")
    )
    conn.execute("BEGIN")
    conn.execute("CREATE TEMP TABLE tmap (t INTEGER PRIMARY KEY, run_id INTEGER)")
    conn.executemany("INSERT INTO tmap VALUES (?, ?)", list(enumerate(ids)))
    conn.execute(
        "CREATE TEMP TABLE seq AS WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s"
        f" WHERE n + 1 < {runs:d}) SELECT n, n % {len(ids):d} AS t FROM s"
    )
    conn.execute("INSERT INTO devices SELECT * FROM tpl.devices")
    conn.execute("INSERT INTO raw_dictionaries SELECT * FROM tpl.raw_dictionaries")
    base_s = time.time() - runs * 600.0
    run_columns = [c for c in _columns(conn, "runs") if c != "id"]
    values = {
        c: f"r.{c}" for c in run_columns if c not in ("source_tool", "drive_model", "drive_serial")
    }
    values.update(
        status="CASE r.status WHEN 'running' THEN 'interrupted' ELSE r.status END",
        started_at_s=f"{base_s} + s.n * 600.0",
        ended_at_s=f"{base_s} + s.n * 600.0 + COALESCE(r.ended_at_s - r.started_at_s, 60.0)",
        host=f"'lab-' || (s.n % {HOSTS:d})",
        uuid="printf('%08x-0000-4000-8000-%012x', abs(random()) % 4294967296, s.n)",
        node_host=f"'node-' || (s.n % {HOSTS:d})",
        collected_at_s=f"{base_s} + s.n * 600.0 + 3600.0",
    )
    names = list(values)
    conn.execute(
        f"INSERT INTO runs (id, {', '.join(names)}) SELECT s.n + 1, "
        + ", ".join(values[n] for n in names)
        + " FROM seq s JOIN tmap m ON m.t = s.t JOIN tpl.runs r ON r.id = m.run_id"
    )
    new = f"s.n * {stride:d} + "
    joins = "FROM seq s JOIN tmap m ON m.t = s.t JOIN tpl.{table} c ON c.run_id = m.run_id"
    for table, remap in (
        ("captures", {}),
        ("step_results", {"capture_id": new + "c.capture_id"}),
        (
            "health_samples",
            {
                "capture_ids_json": f"(SELECT json_group_array({new}value)"
                " FROM json_each(c.capture_ids_json))"
            },
        ),
        ("findings", {}),
    ):
        cols = [c for c in _columns(conn, table) if c not in ("id", "run_id")]
        picked = [remap.get(c, f"c.{c}") for c in cols]
        conn.execute(
            f"INSERT INTO {table} (id, run_id, {', '.join(cols)}) SELECT {new}c.id, s.n + 1, "
            + ", ".join(picked)
            + " "
            + joins.format(table=table)
        )
    conn.execute(
        f"INSERT INTO capture_files SELECT {new}f.capture_id, f.name, f.content FROM seq s"
        " JOIN tmap m ON m.t = s.t JOIN tpl.captures c ON c.run_id = m.run_id"
        " JOIN tpl.capture_files f ON f.capture_id = c.id"
    )
    conn.execute(
        f"INSERT INTO series SELECT {new}x.step_result_id, x.elapsed_s, x.direction,"
        " x.bw_bytes_per_s, x.iops, x.lat_mean_ns FROM seq s JOIN tmap m ON m.t = s.t"
        " JOIN tpl.step_results c ON c.run_id = m.run_id"
        " JOIN tpl.series x ON x.step_result_id = c.id"
    )
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return time.monotonic() - started


# ---- timing commands ----------------------------------------------------------------------


GNU_TIME = "/usr/bin/time"


def run_measured(argv: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB, stdout) of one process. The peak RSS is GNU time's
    (%M): a child forked straight from this process would report this process's peak as
    its own (Linux keeps the high-water mark across exec); without GNU time it is wait4's."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        timed = os.path.exists(GNU_TIME)
        command = [GNU_TIME, "-f", "%M", "-o", report.name, *argv] if timed else argv
        started = time.monotonic()
        child = subprocess.Popen(
            command, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        out, err = child.communicate()
        wall = time.monotonic() - started
        if child.returncode != 0:
            raise SystemExit(f"{argv} failed ({child.returncode}): {err.strip()}")
        if timed:
            peak_kib = float(report.read().split()[-1])
        else:
            peak_kib = float(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return wall, peak_kib * 1024 / MB, out


def _median_of(argv: list[str], repeats: int) -> dict[str, Any]:
    walls, rss = [], []
    out = ""
    for _ in range(repeats):
        wall, peak, out = run_measured(argv)
        walls.append(wall)
        rss.append(peak)
    return {"wall_s": statistics.median(walls), "peak_rss_mb": max(rss), "stdout": out}


def _sql_literal(value: object) -> str:
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def sqlite3_query(wanted: RunFilter, limit: int, offset: int) -> str:
    sql, params = listing_query(wanted, limit, offset)
    parts = sql.split("?")
    literals = [_sql_literal(value) for value in params] + [""]
    return "".join(part + literal for part, literal in zip(parts, literals, strict=True))


CASES: list[tuple[str, list[str], RunFilter, int]] = [
    ("all (newest 50)", [], RunFilter(), 0),
    ("all, --json", ["--json"], RunFilter(), 0),
    ("--host lab-7", ["--host", "lab-7"], RunFilter(host="lab-7"), 0),
    ("--profile cache", ["--profile", "cache"], RunFilter(profile="cache"), 0),
]


def measure_listing(db: Path, runs: int, repeats: int) -> list[dict[str, Any]]:
    cases = [*CASES, ("page at the middle", [], RunFilter(), runs // 2)]
    rows = []
    sqlite3_cli = shutil.which("sqlite3")
    for name, extra, wanted, offset in cases:
        argv = [*_ssdlab(), "runs", "--db", str(db), *extra]
        if offset:
            argv += ["--offset", str(offset)]
        ssdlab_run = _median_of(argv, repeats)
        shown = len(re.findall(r'"uuid"', ssdlab_run["stdout"])) if "--json" in extra else None
        anchor = None
        if sqlite3_cli is not None:
            anchor = _median_of([sqlite3_cli, str(db), sqlite3_query(wanted, 50, offset)], repeats)
        times = []
        conn = open_store(db)
        for _ in range(repeats):
            started = time.perf_counter()
            listed = list_run_listings(conn, 50, wanted, offset)
            count_run_listings(conn, wanted)
            times.append(time.perf_counter() - started)
        conn.close()
        rows.append(
            {
                "case": name,
                "ssdlab_wall_s": ssdlab_run["wall_s"],
                "ssdlab_peak_rss_mb": ssdlab_run["peak_rss_mb"],
                "query_s": statistics.median(times),
                "listed": len(listed) if shown is None else shown,
                "sqlite3_wall_s": None if anchor is None else anchor["wall_s"],
                "sqlite3_peak_rss_mb": None if anchor is None else anchor["peak_rss_mb"],
            }
        )
    return rows


def query_alone(db: Path) -> dict[str, float]:
    """The store query in a process of its own that imports the store modules only."""
    code = (
        "import resource, sys, time\n"
        "from pathlib import Path\n"
        "from ssdlab.store.db import open_store\n"
        "from ssdlab.store.listing import count_run_listings, list_run_listings\n"
        "t = time.perf_counter()\n"
        "conn = open_store(Path(sys.argv[1]))\n"
        "listed = list_run_listings(conn, 50)\n"
        "count_run_listings(conn)\n"
        "print(time.perf_counter() - t)\n"
    )
    wall, rss, out = run_measured([sys.executable, "-c", code, str(db)])
    return {"open_and_query_s": float(out.strip()), "process_wall_s": wall, "peak_rss_mb": rss}


def measure_show(db: Path, run_id: int, repeats: int) -> float:
    return float(_median_of([*_ssdlab(), "show", str(run_id), "--db", str(db)], repeats)["wall_s"])


# ---- growth -------------------------------------------------------------------------------


def _store_bytes(path: Path) -> int:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
    pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    free = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
    conn.close()
    return page_size * (pages - free)


def _smart_source() -> Path:
    """The `smartctl -x -j` capture the health samples are made from."""
    return LIVE_SMART if LIVE_SMART.exists() else SMART_FALLBACK


def _smart_outputs(count: int) -> list[str]:
    """`count` outputs of `smartctl -x -j` of one drive, its counters moving as they do."""
    source = _smart_source()
    data = json.loads(source.read_text(encoding="utf-8"))
    rng = random.Random(7)
    outputs = []
    for index in range(count):

        def moved(value: Any, key: str = "", index: int = index) -> Any:
            if isinstance(value, dict):
                return {k: moved(v, k, index) for k, v in value.items()}
            if isinstance(value, list):
                return [moved(v, key, index) for v in value]
            if isinstance(value, int) and not isinstance(value, bool) and value > 1000:
                return value + index * rng.randint(0, 3)  # counters that grow
            if key in ("current", "hours") and isinstance(value, int):
                return value + index // 12
            return value

        body = moved(data)
        if isinstance(body.get("local_time"), dict):
            body["local_time"]["time_t"] = 1_764_000_000 + int(index * HEALTH_EVERY_S)
            body["local_time"]["asctime"] = time.asctime(
                time.gmtime(1_764_000_000 + index * HEALTH_EVERY_S)
            )
        if isinstance(body.get("temperature"), dict):
            body["temperature"]["current"] = 30 + rng.randint(0, 8)
        outputs.append(json.dumps(body, indent=2) + "\n")
    return outputs


def _log_text(points: int, rng: random.Random) -> str:
    """A fio bandwidth log of `points` lines, as fio writes it (msec, KiB/s, dir, bs, offset)."""
    return "".join(
        f"{(i + 1) * int(LOG_INTERVAL_S * 1000)}, {rng.randint(180000, 520000)}, 1, 0, 0\n"
        for i in range(points)
    )


def endurance_day(
    folder: Path, compressed: bool, template: Path, fraction: float = 1.0
) -> dict[str, float]:
    """One drive-day of `ssdlab endure` at its defaults, written through the store functions
    (`fraction` of it, scaled up to a day); bytes the store grew by."""
    db = folder / ("day-zstd.sqlite" if compressed else "day-text.sqlite")
    tpl = open_store(template)
    fio = tpl.execute(
        "SELECT * FROM captures WHERE run_id = ? AND tool = 'fio' ORDER BY id", (ENDURANCE_RUN,)
    ).fetchall()
    steps = load_step_results(tpl, ENDURANCE_RUN)
    sample = load_health_samples(tpl, run_id=ENDURANCE_RUN)[-1].sample
    fio_outputs = [raw.unpack_raw(tpl, row["stdout"]) for row in fio]
    job = raw.unpack_raw(tpl, fio[0]["input_text"])
    tpl.close()
    limit = raw.PACK_MIN_BYTES
    raw.PACK_MIN_BYTES = limit if compressed else 2**62  # the anchor: every value as text
    try:
        conn = open_store(db)
        run_id = create_run(
            conn,
            NewRun(
                "profile", "endurance", 1, None, "file", "/srv/e.dat", "{}", None, "{}", "{}",
                "{}", time.time(), "lab-1", 1, None,
            ),
        )  # fmt: skip
        before = _store_bytes(db)
        rng = random.Random(3)
        iterations = max(int(DAY_S * fraction / ITERATION_S), 1)
        points = int(ITERATION_S / LOG_INTERVAL_S)
        samples = iter(_smart_outputs(int(iterations * ITERATION_S / HEALTH_EVERY_S)))
        for index in range(iterations):
            now = time.time()
            capture = Capture(
                "fio",
                ("/usr/bin/fio", "--output-format=json+", f"/tmp/ssdlab-fio-{index}/job.fio"),
                0,
                fio_outputs[index % len(fio_outputs)],
                "",
                now,
                now + ITERATION_S,
                "fio-3.36",
                job,
            )
            log = _log_text(points, rng)
            capture_id = add_capture(conn, run_id, capture, {"iteration_bw.1.log": log})
            series = tuple(
                SeriesPoint((i + 1) * LOG_INTERVAL_S, "write", rng.uniform(2e8, 5e8), None, None)
                for i in range(points)
            )
            step = steps[index % len(steps)]
            add_step_result(
                conn,
                run_id,
                type(step)(
                    **{
                        **{f: getattr(step, f) for f in step.__dataclass_fields__},
                        "round_index": index,
                        "capture_id": capture_id,
                        "series": series,
                    }
                ),
            )
            for _ in range(int(ITERATION_S / HEALTH_EVERY_S)):
                text = next(samples)
                smart = Capture(
                    "smartctl", ("smartctl", "-x", "-j", "/dev/sdb"), 0, text, "", now, now
                )
                smart_id = add_capture(conn, run_id, smart)
                add_health_sample(conn, run_id, "watch", sample, (smart_id,))
        conn.close()
    finally:
        raw.PACK_MIN_BYTES = limit
    after = _store_bytes(db)
    scale = DAY_S / (iterations * ITERATION_S)
    return {"day_bytes": (after - before) * scale, "store_bytes": float(after)}


def quick_run_growth(folder: Path) -> dict[str, float]:
    """Store bytes of the template's quick runs as stored before (text) and compressed."""
    text = folder / "quick-text.sqlite"
    shutil.copyfile(TEMPLATE, text)
    conn = open_store(text)
    conn.execute(
        "DELETE FROM series WHERE step_result_id IN (SELECT id FROM step_results"
        " WHERE run_id IN (SELECT id FROM runs WHERE kind != 'quick'))"
    )
    for table in ("step_results", "health_samples", "findings", "test_files"):
        conn.execute(
            f"DELETE FROM {table} WHERE run_id IN (SELECT id FROM runs WHERE kind != 'quick')"
        )
    conn.execute(
        "DELETE FROM capture_files WHERE capture_id IN (SELECT id FROM captures"
        " WHERE run_id IN (SELECT id FROM runs WHERE kind != 'quick'))"
    )
    conn.execute("DELETE FROM captures WHERE run_id IN (SELECT id FROM runs WHERE kind != 'quick')")
    conn.execute("DELETE FROM runs WHERE kind != 'quick'")
    runs = int(conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])
    conn.execute("VACUUM")
    conn.close()
    packed = compressed_copy(text, folder / "quick-zstd.sqlite")
    empty = folder / "empty.sqlite"
    open_store(empty).close()
    base = _store_bytes(empty)
    return {
        "runs": float(runs),
        "text_bytes_per_run": (_store_bytes(text) - base) / runs,
        "zstd_bytes_per_run": (_store_bytes(packed) - base) / runs,
    }


def quick_default_growth(folder: Path) -> dict[str, float]:
    """A real `ssdlab quick` at its defaults on a file: store bytes, and as text."""
    db = folder / "quick-default.sqlite"
    target = folder / "qd"
    target.mkdir()
    empty = folder / "empty-qd.sqlite"
    open_store(empty).close()
    base = _store_bytes(empty)
    started = time.monotonic()
    done = subprocess.run(
        [*_ssdlab(), "quick", str(target), "--db", str(db)],
        env=_env(), capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"ssdlab quick failed: {done.stderr[-2000:]}")
    wall = time.monotonic() - started
    zstd_bytes = _store_bytes(db) - base
    conn = open_store(db)
    text_bytes = 0
    for table, column in (
        ("captures", "stdout"),
        ("captures", "stderr"),
        ("captures", "input_text"),
        ("capture_files", "content"),
    ):
        for (value,) in conn.execute(f"SELECT {column} FROM {table}"):
            if isinstance(value, bytes):
                text_bytes += len(raw.unpack_raw(conn, value).encode()) - len(value)
    conn.close()
    return {"wall_s": wall, "zstd_bytes": zstd_bytes, "text_bytes": zstd_bytes + text_bytes}


# ---- report -------------------------------------------------------------------------------


def measure(
    runs: int, repeats: int, quick_default: bool, keep: Path | None = None
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ssdlab-bench-store-") as scratch:
        folder = Path(scratch)
        template = template_store(folder)
        small = folder / "small.sqlite"
        build_store(small, 100, template)
        big = (keep or folder) / f"big-{runs}.sqlite"
        build_s = float("nan")
        if not big.exists():  # built under another name: a build cut short is not reused
            building = big.with_suffix(".building")
            building.unlink(missing_ok=True)
            build_s = build_store(building, runs, template)
            building.rename(big)
        fraction = 1.0 if runs >= 100_000 else 1 / 12
        result: dict[str, Any] = {
            "runs": runs,
            "build_s": build_s,
            "store_mb": big.stat().st_size / MB,
            "listing": measure_listing(big, runs, repeats),
            "query_alone": query_alone(big),
            "show_small_s": measure_show(small, 99, repeats),
            "show_big_s": measure_show(big, runs - 1, repeats),
            "day_zstd": endurance_day(folder, True, template, fraction),
            "day_text": endurance_day(folder, False, template, fraction),
            "day_fraction": fraction,
            "quick": quick_run_growth(folder),
        }
        if quick_default:
            result["quick_default"] = quick_default_growth(folder)
    return result


def _machine() -> str:
    model = "unknown CPU"
    with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return (
        f"{platform.node()}, {model}, {os.cpu_count()} CPUs, Linux {platform.release()}, "
        f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, load average "
        f"{os.getloadavg()[0]:.2f} at the end"
    )


def render(result: dict[str, Any]) -> str:
    lines = [
        BEGIN,
        "## A store at fleet size (`bench/store_scale.py`)",
        "",
        f"Machine: {_machine()}. Store: {result['runs']:,} runs copied from the 14 runs of "
        f"`tests/data/store/main-98b38bc.sqlite` with their rows, {HOSTS} hosts, "
        f"{result['store_mb']:,.0f} MB.",
        "",
        "`ssdlab runs` end to end (new process: interpreter, store open, query, output; "
        "median wall, peak RSS) beside the `sqlite3` shell answering the same query, and the "
        "query alone in-process (`list_run_listings` + `count_run_listings`):",
        "",
        "| listing | ssdlab runs | peak RSS | query alone | sqlite3 shell | rows |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in result["listing"]:
        shell = (
            "n/a"
            if row["sqlite3_wall_s"] is None
            else f"{row['sqlite3_wall_s'] * 1e3:.0f} ms, {row['sqlite3_peak_rss_mb']:.0f} MB"
        )
        lines.append(
            f"| {row['case']} | {row['ssdlab_wall_s'] * 1e3:.0f} ms | "
            f"{row['ssdlab_peak_rss_mb']:.0f} MB | {row['query_s'] * 1e3:.1f} ms | {shell} | "
            f"{row['listed']} |"
        )
    alone = result["query_alone"]
    day_zstd, day_text = result["day_zstd"]["day_bytes"], result["day_text"]["day_bytes"]
    quick = result["quick"]
    lines += [
        "",
        f"Store query in a process importing only the store: open + query "
        f"{alone['open_and_query_s'] * 1e3:.1f} ms, process {alone['process_wall_s'] * 1e3:.0f}"
        f" ms, peak RSS {alone['peak_rss_mb']:.0f} MB. `ssdlab show` of one run: "
        f"{result['show_small_s'] * 1e3:.0f} ms in a 100-run store, "
        f"{result['show_big_s'] * 1e3:.0f} ms in the {result['runs']:,}-run store.",
        "",
        "Store growth (bytes the store file grew by, after a WAL checkpoint; anchor: the same "
        "rows with compression off, in the same run):",
        "",
        "| what | raw as text | raw compressed (zstd) |",
        "| --- | --- | --- |",
        f"| one endurance drive-day at the defaults (144 iterations × 60 log points, 288 health "
        f"samples with raw `smartctl -x -j`, each made from `{_smart_source().name}`, "
        f"{_smart_source().stat().st_size:,} bytes) | {day_text / MB:.2f} MB | "
        f"{day_zstd / MB:.2f} MB |",
        f"| one quick run of the real store (mean of {quick['runs']:.0f}, small settings) | "
        f"{quick['text_bytes_per_run'] / 1e3:.0f} KB | "
        f"{quick['zstd_bytes_per_run'] / 1e3:.0f} KB |",
    ]
    if "quick_default" in result:
        qd = result["quick_default"]
        lines.append(
            f"| one `ssdlab quick` at its defaults on a file ({qd['wall_s']:.0f} s) | "
            f"{qd['text_bytes'] / 1e3:.0f} KB | {qd['zstd_bytes'] / 1e3:.0f} KB |"
        )
    lines += ["", END]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100_000, help="runs in the big store")
    parser.add_argument("--repeats", type=int, default=3, help="timings per case (median)")
    parser.add_argument(
        "--quick-default", action="store_true", help="also a real default quick run (minutes)"
    )
    parser.add_argument(
        "--keep", type=Path, metavar="DIR", help="keep the big store in DIR (and reuse it there)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
    parser.add_argument(
        "--results", type=Path, help=f"rewrite this file's block at any size ({RESULTS})"
    )
    args = parser.parse_args()
    tiny = args.runs < 100_000 and args.results is None
    result = measure(args.runs, 1 if tiny else args.repeats, args.quick_default, args.keep)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    text = render(result)
    print(text)
    if not tiny:
        write_block(args.results or RESULTS, BEGIN, END, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
