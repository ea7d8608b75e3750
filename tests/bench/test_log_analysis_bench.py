"""The log-analysis benchmark keeps working (tiny scale; its numbers are not judged)."""

import json
import subprocess
import sys

from tests.conftest import ROOT


def test_log_analysis_benchmark_reports_both_sides() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "log_analysis.py"), "--lines", "20000", "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)
    assert row["lines"] == 20000
    assert row["log_bytes"] > 20000 * 10
    for key in ("ssdlab_s", "ssdlab_rss_mb", "baseline_s", "baseline_rss_mb"):
        assert row[key] > 0, key
