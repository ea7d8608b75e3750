"""The offsets fio writes in the passes of a PTS plan (skipped without fio): each pass its own,
the same pass the same again, and another `--seed` other ones. Run with the fio installed
(3.33 when written), whose `randseed` moves the offsets only with `randrepeat=0` (fio #1502)
and whose `allrandrepeat=1` puts every seed back to fio's own constant (fio #1391): with
those, every access period of a HIR run rewrote the offsets of the one before, and a drive
with no idle GC read as one that cleans while idle."""

import subprocess
from dataclasses import replace
from pathlib import Path

from ssdlab.app.plan_jobs import plan_sequence
from ssdlab.model.plan import FioJob
from ssdlab.model.units import MiB
from ssdlab.plan.jobfile import render_job
from ssdlab.plan.pts import plan_pts_hir
from ssdlab.plan.seeds import pass_job
from ssdlab.runner.profile import stored_round
from tests.conftest import HANG_S, needs_fio
from tests.unit.plan.profile_golden import FILE_TARGET

SIZE = 16 * MiB


def _offsets(job: FioJob, tmp_path: Path, name: str) -> list[int]:
    """The first 16 offsets the job writes (fio's own I/O log, version 3: time, file, action,
    offset, length), in the order written: one thread at queue depth 1 (the job's own time
    limit ends it: `number_ios` does not end a time-based job)."""
    log = tmp_path / f"{name}.iolog"
    section, options = job.sections[0]
    extra = (("write_iolog", str(log)), ("numjobs", "1"), ("iodepth", "1"))
    text = render_job(replace(job, sections=((section, (*options, *extra)),)))
    done = subprocess.run(
        ["fio", "--output=/dev/null", "-"], input=text, capture_output=True, text=True,
        timeout=HANG_S, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in log.read_text().splitlines()]
    return [int(row[3]) for row in rows if len(row) == 5 and row[2] == "write"][:16]


def _access_periods(tmp_path: Path, seed: int) -> list[FioJob]:
    """The jobs of wait state 1's first two access periods, as the runner runs them."""
    target = tmp_path / "drive"
    with target.open("wb") as handle:
        handle.truncate(SIZE)
    where = replace(FILE_TARGET, path=str(target), size_bytes=SIZE)
    plan = plan_pts_hir({"seed": seed, "purge": "none", "wait_scale": 0.02}, where)
    return [
        pass_job(plan, step, stored_round(step, number))
        for number, step, round_index in plan_sequence(plan)
        if step.key.startswith("ws1-a") and round_index is None
    ][:2]


@needs_fio
def test_each_pass_writes_its_own_offsets_the_same_again_and_another_seed_others(
    tmp_path: Path,
) -> None:
    first, second = _access_periods(tmp_path, 20201001)
    one = _offsets(first, tmp_path, "a1")
    assert len(one) == 16
    assert _offsets(first, tmp_path, "a1-again") == one  # repeatable
    assert _offsets(second, tmp_path, "a2") != one  # the next access period is not a replay
    other, _ = _access_periods(tmp_path, 7)
    assert _offsets(other, tmp_path, "a1-seed7") != one  # --seed reaches fio
