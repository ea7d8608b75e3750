"""By hand only (SSDLAB_BY_HAND=1): `ssdlab latency` on a real 10^8-line log of a known
lognormal gives p99.9999 an interval that holds the true quantile. The log is about 2.6 GB and
takes minutes to write and tens of seconds to reduce, so the normal suite checks the same case
on the histogram (tests/unit/analysis/test_tail_intervals.py) and this file is run by hand:

    SSDLAB_BY_HAND=1 PYTHONPATH=src .venv/bin/python -m pytest -p no:cacheprovider \\
        tests/e2e/test_latency_tails_by_hand.py
"""

import json
import os
from pathlib import Path

import pytest

from tests.e2e.conftest import run_ssdlab
from tests.e2e.tail_logs import true_quantile_ns, write_log

pytestmark = [
    pytest.mark.by_hand,
    pytest.mark.skipif(
        os.environ.get("SSDLAB_BY_HAND") != "1", reason="by hand: set SSDLAB_BY_HAND=1"
    ),
]


def test_ten_to_the_eight_ios_bound_p99_9999(tmp_path: Path) -> None:
    log = write_log(tmp_path / "tails_clat.1.log", 10**8, seed=8, ios_per_s=1_000_000)
    done = run_ssdlab("latency", str(log), "--json")
    log.unlink()
    assert done.code == 0, done.stderr
    far = json.loads(done.stdout)["directions"]["read"]["tails"]["99.9999"]
    assert far["estimable"]
    assert far["above"] == 100
    interval = far["interval"]
    assert interval["low"] <= true_quantile_ns(99.9999) <= interval["high"]
