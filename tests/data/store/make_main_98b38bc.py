"""Make main-98b38bc.sqlite: a store written by ssdlab at commit 98b38bc, kept so that stores
written before issue 18's changes keep opening, showing, comparing and resuming after them.

Run it from a checkout of that commit (git worktree add /tmp/main-98b38bc 98b38bc), with this
file copied into its tests/data/store/:

    /work/main/.venv/bin/python tests/data/store/make_main_98b38bc.py OUT.sqlite

It needs fio, and writes only below /tmp/ssdlab-old-store-98b38bc and a temporary directory.
"""

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[3]
# the one path the interrupted cache run (8) keeps its test file at; the tests make it again
KEPT = Path("/tmp/ssdlab-old-store-98b38bc")
QUICK = ["--size", "16MiB", "--measure", "1", "--count", "1", "--interval", "0"]
ENV = {**os.environ, "PYTHONPATH": str(SRC / "src")}


def ssdlab(out: Path, *args: str) -> None:
    argv = [sys.executable, "-m", "ssdlab", *args, "--db", str(out)]
    subprocess.run(argv, env=ENV, check=True, stdout=subprocess.DEVNULL)


def stored_steps(out: Path, run_id: int) -> int:
    try:
        with sqlite3.connect(out) as conn:
            row = conn.execute("SELECT COUNT(*) FROM step_results WHERE run_id = ?", (run_id,))
            return int(row.fetchone()[0])
    except sqlite3.Error:
        return 0


def interrupt_after(out: Path, steps: int, *args: str) -> None:
    """SIGINT to the run once it has stored `steps` step results: interrupted mid-way."""
    with sqlite3.connect(out) as conn:
        run_id = int(conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM runs").fetchone()[0])
    argv = [sys.executable, "-m", "ssdlab", *args, "--db", str(out)]
    proc = subprocess.Popen(argv, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while stored_steps(out, run_id) < steps:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    proc.wait()


def main(out: Path) -> None:
    work = Path(tempfile.mkdtemp())
    shutil.rmtree(KEPT, ignore_errors=True)
    KEPT.mkdir()
    bench = SRC / "tests" / "corpus" / "bench"
    cron = SRC / "tests" / "data" / "smart-text" / "cron-mx500-date-A.log"
    ssdlab(out, "quick", str(work), *QUICK)  # 1: complete quick, all modes
    ssdlab(out, "quick", str(work), *QUICK, "--mode", "read")  # 2: complete, read only
    interrupt_after(  # 3: interrupted quick (its test file is removed at the interrupt)
        out, 3, "quick", str(work), "--size", "16MiB", "--measure", "2", "--count", "1",
        "--interval", "0",
    )  # fmt: skip
    fill = ["run", "fill", str(work), "--size", "16MiB", "--levels", "0,50", "--runtime", "1"]
    ssdlab(out, *fill)  # 4: complete fill
    ssdlab(out, "run", "align", str(work), "--size", "16MiB", "--block-sizes", "512,4KiB",
           "--runtime", "1")  # fmt: skip  # 5: complete align
    ssdlab(out, *fill)  # 6: a second fill
    interrupt_after(  # 7: interrupted in its idle step, test file removed: a resume refuses
        out, 1, "run", "cache", str(work), "--size", "32MiB", "--recovery-idle", "60",
        "--recovery-size", "16MiB",
    )  # fmt: skip
    interrupt_after(  # 8: interrupted in its idle step, test file kept at a fixed path
        out, 1, "run", "cache", str(KEPT / "cache-run.tmp"), "--size", "32MiB",
        "--recovery-idle", "2", "--recovery-size", "16MiB", "--keep",
    )  # fmt: skip
    ssdlab(out, "import", str(bench / "cdm8.0.0-uwp_2020-12-13_ct240bx200.txt"))  # 9
    ssdlab(out, "import", str(bench / "kdiskmark3.2.0_fio-3.39_target.txt"))  # 10
    ssdlab(out, "sim", "--capacity", "64MiB", "--write", "256MiB", "--seed", "1")  # 11
    ssdlab(out, "health", str(SRC / "tests/data/smart/ata-crucial-mx500-devstat-wrap.json"))  # 12
    ssdlab(out, "health", "--import", str(cron))  # 13
    ssdlab(  # 14: a short endurance run, health replayed from the same cron log
        out, "endure", str(work / "e.dat"), "--size", "8MiB", "--iodepth", "4",
        "--log-interval", "0.1", "--health-every", "0.1", "--iteration-bytes", "4MiB",
        "--until-written", "8MB", "--health-replay", str(cron),
    )  # fmt: skip
    shutil.rmtree(work)
    with sqlite3.connect(out) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    conn = sqlite3.connect(out, isolation_level=None)
    conn.execute("VACUUM")
    conn.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
