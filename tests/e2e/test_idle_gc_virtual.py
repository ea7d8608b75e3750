"""Idle GC end to end on drives whose truth is known: a virtual drive (`ssdlab sim serve`,
16 MiB, 12 % spare, 8-page blocks, greedy GC, starting in its steady state) that cleans blocks
while the host is idle (`--idle-gc 40`), on a loop device, measured by `ssdlab run pts-hir` at
trial scale (six repeats of 0.1 s access periods and idles of 0.1 … 1 s; T1Q4; no purge,
which would empty the drive); `ssdlab model fit` of the run reads idle GC *present*. The same
drive without idle GC is not read *present*.

The writes are timed by the model (`--time-scale 100`: a 4 KiB write takes about 1 ms of wall
time on free blocks and several when GC runs, well above what FUSE itself costs, so a busy
machine slows both alike). At 40 MB/s the access periods after an idle start on free blocks
(the rate chosen by trial). Each access period writes its own offsets (plan/seeds.py): when
every one replayed the one before, the drive without idle GC wrote them at up to 2× its
baseline, and CI read it *present* once. Nothing is timed by the test: the assertions are on
the verdicts. About 37 s a run here (eight runs of each: docs/model-fit.md, *Idle GC*)."""

import json
import sqlite3
from pathlib import Path

from ssdlab.app.sim_setup import SimRequest
from tests.conftest import HANG_S
from tests.e2e import test_model_fit as model_fit
from tests.e2e.conftest import run_ssdlab

pytestmark = model_fit.pytestmark  # FUSE, fio, root, loop devices; slow
MiB = 2**20
TIME_SCALE = 100.0
IDLE_GC_MB_PER_S = 40.0
DRIVE = SimRequest(capacity=16 * MiB, spare="12%", pages_per_block=8, initial="steady")
# tests/e2e/test_pts.py's trial scale (0.1 s access periods, idles of 0.1 … 1 s) with six
# repeats a wait state (five access periods after an idle); no purge, which would empty the drive
HIR = ["--wait-scale", "0.02", "--max-rounds", "5", "--round-seconds", "0.2", "--repeats", "6",
       "--purge", "none", "--threads", "1", "--iodepth", "4"]  # fmt: skip


def _idle_gc_verdict(tmp_path: Path, name: str, idle_gc: float | None) -> dict[str, object]:
    db = str(tmp_path / f"{name}.db")
    with model_fit.loop_over(tmp_path, name, TIME_SCALE, DRIVE, idle_gc) as (_spec, loop):
        done = run_ssdlab(
            "run", "pts-hir", loop, "--destroy-data", loop, *HIR,
            "--db", db, timeout=HANG_S,
        )  # fmt: skip
        assert done.code == 0, done.stderr
    with sqlite3.connect(db) as conn:
        (run_id,) = conn.execute("SELECT id FROM runs WHERE profile = 'pts-hir'").fetchone()
    fitted = run_ssdlab("model", "fit", str(run_id), "--db", db, "--json")
    assert fitted.code == 0, fitted.stderr
    body = json.loads(fitted.stdout)
    idle: dict[str, object] = next(p for p in body["parameters"] if p["name"] == "idle GC")
    return idle


def test_a_drive_that_cleans_while_idle_reads_present(tmp_path: Path) -> None:
    idle = _idle_gc_verdict(tmp_path, "idle-gc", IDLE_GC_MB_PER_S)
    assert idle["value"] == "present", idle["note"]


def test_the_same_drive_without_idle_gc_does_not(tmp_path: Path) -> None:
    idle = _idle_gc_verdict(tmp_path, "no-idle-gc", None)
    assert idle["value"] in ("absent", "inconclusive"), idle["note"]
