"""`ssdlab latency` on a log of 10^6 I/Os drawn from a known lognormal: p99.9999 is printed as
"needs ≥ 3,688,878 I/Os", never as a number, while p99.9's interval holds the true quantile.
(10^8 I/Os, where p99.9999 gets an interval, is tests/e2e/test_latency_tails_by_hand.py.)"""

import json
from pathlib import Path

from tests.e2e.conftest import run_ssdlab
from tests.e2e.tail_logs import true_quantile_ns, write_log


def test_a_million_ios_cannot_bound_p99_9999(tmp_path: Path) -> None:
    log = write_log(tmp_path / "tails_clat.1.log", 10**6, seed=6)
    text = run_ssdlab("latency", str(log))
    assert text.code == 0, text.stderr
    row = next(line for line in text.stdout.splitlines() if "p99.9999" in line)
    assert "needs ≥ 3,688,878 I/Os" in row
    done = run_ssdlab("latency", str(log), "--json")
    assert done.code == 0, done.stderr
    read = json.loads(done.stdout)["directions"]["read"]
    far = read["tails"]["99.9999"]
    assert (far["estimable"], far["needs_ios"], far["n"]) == (False, 3_688_878, 10**6)
    assert far["interval"] is None
    near = read["tails"]["99.9"]
    assert near["estimable"]
    assert near["above"] == 1000
    assert near["interval"]["basis"] == "order statistics"
    assert near["interval"]["low"] <= true_quantile_ns(99.9) <= near["interval"]["high"]
    assert near["bootstrap"] is not None  # 10 seconds of log: the block bootstrap ran
