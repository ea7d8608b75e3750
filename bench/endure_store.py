"""How much the store grows per day of an endurance run.

A real `ssdlab endure` run at a compressed time scale (short iterations, frequent samples from
a replayed snapshot log) is measured item by item from the store itself: bytes per iteration
(fio's raw JSON+ output, the job file, the parsed result, the per-interval series and the
iteration's decision) and bytes per health sample (the normalised sample and its raw capture).
The per-day figure scales those to the defaults — a 10-minute iteration with a point every
10 s, a health sample every 5 minutes — with the raw capture of a live sample taken as the size
of a real `smartctl -x -j` output (the Samsung 860 EVO capture in shared/testdata, 38 KB),
since a replayed text snapshot is smaller than what a live drive returns.

    python bench/endure_store.py                 # ~30 s; prints Markdown
    python bench/endure_store.py --iterations 3  # the tiny CI version
"""

import argparse
import json
import os
import platform
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.replay_logs import wear_series, write_log  # noqa: E402

BEGIN = "<!-- BEGIN bench/endure_store.py: generated, edits inside are overwritten -->"
END = "<!-- END bench/endure_store.py -->"
DAY_S = 86400.0
DEFAULT_ITERATION_S = 600.0
DEFAULT_LOG_INTERVAL_S = 10.0
DEFAULT_HEALTH_EVERY_S = 300.0
_CAPTURE_NAME = Path("shared") / "testdata" / "smart" / "samsung-860evo-500GB-sata-x.json"
LIVE_CAPTURE = next(  # beside the project, or one level further up from a git worktree
    (up / _CAPTURE_NAME for up in ROOT.parents if (up / _CAPTURE_NAME).exists()),
    ROOT.parent / _CAPTURE_NAME,
)
LIVE_CAPTURE_FALLBACK_BYTES = 38080  # that file's size, when shared/ is not beside the project


def _sum(conn: sqlite3.Connection, sql: str) -> int:
    return int(conn.execute(sql).fetchone()[0] or 0)


def measure(iterations: int, folder: Path) -> dict[str, float]:
    db = folder / "store.db"
    log = write_log(folder / "health.log", wear_series(iterations * 4 + 4))
    log_interval = 0.1
    argv = [
        sys.executable, "-m", "ssdlab", "endure", str(folder / "e.dat"), "--size", "16MiB",
        "--iteration-time", "1", "--log-interval", str(log_interval), "--health-every", "0.25",
        "--health-replay", str(log), "--for", str(iterations), "--iodepth", "8",
        "--db", str(db),
    ]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    started = time.monotonic()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    wall = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"ssdlab endure failed ({done.returncode}): {done.stderr}")
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        its = _sum(conn, "SELECT COUNT(*) FROM step_results WHERE step_key = 'iteration'")
        fio_bytes = _sum(
            conn,
            "SELECT SUM(LENGTH(stdout) + LENGTH(stderr) + LENGTH(COALESCE(input_text, ''))"
            " + LENGTH(argv_json)) FROM captures WHERE tool = 'fio'",
        )
        files = _sum(conn, "SELECT SUM(LENGTH(content)) FROM capture_files")
        step_bytes = _sum(
            conn,
            "SELECT SUM(LENGTH(COALESCE(read_json, '')) + LENGTH(COALESCE(write_json, '')))"
            " FROM step_results",
        )
        series_rows = _sum(conn, "SELECT COUNT(*) FROM series")
        findings = _sum(conn, "SELECT SUM(LENGTH(body_json)) FROM findings")
        samples = _sum(conn, "SELECT COUNT(*) FROM health_samples")
        sample_bytes = _sum(conn, "SELECT SUM(LENGTH(sample_json)) FROM health_samples")
        page = _sum(conn, "PRAGMA page_size")
        pages = _sum(conn, "PRAGMA page_count")
    store_bytes = page * pages
    # a series row: 5 numbers and a key, about 60 bytes with SQLite's record overhead
    row_bytes = 60.0
    per_iteration = (fio_bytes + step_bytes + findings) / its
    per_point = (files + series_rows * row_bytes) / max(series_rows, 1)
    default_points = DEFAULT_ITERATION_S / DEFAULT_LOG_INTERVAL_S
    live_capture = (
        LIVE_CAPTURE.stat().st_size if LIVE_CAPTURE.exists() else LIVE_CAPTURE_FALLBACK_BYTES
    )
    per_sample = sample_bytes / samples + live_capture
    iterations_per_day = DAY_S / DEFAULT_ITERATION_S
    samples_per_day = DAY_S / DEFAULT_HEALTH_EVERY_S
    per_day = iterations_per_day * (per_iteration + default_points * per_point) + (
        samples_per_day * per_sample
    )
    return {
        "iterations": its,
        "health_samples": samples,
        "wall_s": wall,
        "store_bytes": store_bytes,
        "fio_capture_bytes_per_iteration": fio_bytes / its,
        "log_file_bytes_per_iteration": files / its,
        "parsed_bytes_per_iteration": (step_bytes + findings) / its,
        "series_rows_per_iteration": series_rows / its,
        "bytes_per_interval_point": per_point,
        "sample_json_bytes": sample_bytes / samples,
        "live_capture_bytes": live_capture,
        "per_day_bytes": per_day,
    }


def render(result: dict[str, float]) -> str:
    mb = 1e6
    return "\n".join(
        [
            "## Store size per day of endurance run (`bench/endure_store.py`)",
            "",
            f"Machine: {platform.node()}, {os.cpu_count()} CPUs, Linux {platform.release()}, "
            f"load average {os.getloadavg()[0]:.2f} at the end.",
            "",
            f"Measured run: {result['iterations']:.0f} iterations of 1 s, "
            f"{result['health_samples']:.0f} health samples, store "
            f"{result['store_bytes'] / mb:.2f} MB after a WAL checkpoint "
            f"({result['wall_s']:.1f} s wall).",
            "",
            "| item | bytes |",
            "| --- | --- |",
            f"| fio's raw output, job file and argv, per iteration | "
            f"{result['fio_capture_bytes_per_iteration']:,.0f} |",
            f"| one interval point (log line and series row) | "
            f"{result['bytes_per_interval_point']:,.0f} |",
            f"| parsed result and decision, per iteration | "
            f"{result['parsed_bytes_per_iteration']:,.0f} |",
            f"| normalised health sample | {result['sample_json_bytes']:,.0f} |",
            f"| raw capture of a live `smartctl -x -j` sample | "
            f"{result['live_capture_bytes']:,.0f} |",
            "",
            f"**Per day at the defaults, health captures counted as text** (144 iterations of "
            f"10 min with 60 interval points each, 288 health samples): about "
            f"**{result['per_day_bytes'] / mb:.1f} MB/day**, "
            f"{result['per_day_bytes'] * 30 / 1e9:.2f} GB for 30 days. A series row is taken as "
            "60 bytes. Each sample's raw `smartctl -x -j` is counted at its full text size, as "
            "a store without compression would hold it: it is most of the figure, so this is an "
            "upper bound. The store compresses those captures against a dictionary; the growth "
            "of a real store over one drive-day, compressed and not, is measured by "
            "`bench/store_scale.py` (its block below).",
            "",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=12, help="iterations to measure")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    parser.add_argument("--results", type=Path, help="also rewrite this file's endure_store block")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ssdlab-bench-") as folder:
        result = measure(args.iterations, Path(folder))
    text = render(result)
    print(json.dumps(result, indent=2) if args.json else text)
    if args.results is not None:
        sys.path.insert(0, str(ROOT / "bench"))
        from results_block import write_block

        write_block(args.results, "<!-- BEGIN bench/endure_store.py", END, f"{BEGIN}\n{text}{END}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
