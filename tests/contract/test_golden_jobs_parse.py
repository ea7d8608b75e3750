"""Every golden job file is accepted by `fio --parse-only` (skipped without fio)."""

import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, needs_fio
from tests.unit.plan.test_quick_golden import split_golden

GOLDEN = sorted((ROOT / "tests" / "golden" / "plan").glob("*.fio"))


@needs_fio
@pytest.mark.parametrize("path", GOLDEN, ids=[p.name for p in GOLDEN])
def test_fio_accepts_every_golden_job(path: Path, tmp_path: Path) -> None:
    jobs = split_golden(path.read_text())
    assert jobs
    paths = []
    for name, text in jobs:
        job = tmp_path / f"{name}.fio"
        job.write_text(text)
        paths.append(str(job))
    done = subprocess.run(  # fio parses several job files in one call
        ["fio", "--parse-only", *paths], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"{path.name}: {done.stderr}"
