"""The model-fit campaign keeps working at a tiny size (seed 18, and seed 19, which the
simulator refuses at 64 MiB): its block is written between its markers, a row per drive fitted,
the refused seed named, and the summary counts drawn from the rows (the simulator is
deterministic, so seed 18's figures are pinned), and the held-out predictions' block after
it. Accuracy over many drives is judged by tests/unit/analysis/test_model_fit.py and
test_model_predict.py; speed is not judged."""

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import HANG_S, ROOT

BENCH = ROOT / "bench" / "model_fit_campaign.py"


def test_the_tiny_campaign_writes_its_block(tmp_path: Path) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# before\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, str(BENCH), "--seeds", "18-19", "--results", str(results)],
        capture_output=True, text=True, check=False, timeout=HANG_S, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = results.read_text()
    assert text.startswith("# before\n")
    assert "<!-- BEGIN bench/model_fit_campaign.py" in text
    assert "<!-- END bench/model_fit_campaign.py -->" in text
    assert text.rstrip().endswith("<!-- END bench/model_fit_campaign.py held-out -->")
    rows = [line for line in text.splitlines() if line.startswith("| 18 | fifo | 20.7 % |")]
    assert len(rows) == 1
    assert "| fifo |" in rows[0]
    assert "- seeds that cannot be drawn at 64 MiB: 19" in text
    # seed 18 (FIFO, 20.7 % spare): the closed forms within 2 points, the joint fit +1.95
    # (its static SLC pool keeps host data the model has no cache for), the class named by
    # the joint fit only, the cache within 1.2 %
    assert rows[0].endswith("| +0.86 | +1.95 | inconclusive / fifo-like | 5.64 MB: -1.2 % |")
    assert "closed forms 1 of 1 (interval covers 1), joint fit 1 of 1 (covers 1)" in text
    assert "cache size within ±5 %: 1 of 1 drives with a cache (interval covers 1)" in text
    assert "GC class right with the JESD219 run: 1 of 1" in text
    # held out (uniform writes over half the drive): WAF and post-cliff throughput inside
    # their intervals, IOPS 5.7 % over, the days 9.3 % short (the truth outside the interval)
    held = [line for line in text.splitlines() if line.startswith("| 18 | fifo | +")]
    assert held == ["| 18 | fifo | +0.9 % ✓ | +0.1 % ✓ | +5.7 % | -9.3 % |"]
    assert "- days to end of life: within ±15%: 1 of 1; truth inside the interval on 0" in text
