"""The `ssdlab metrics` scale benchmark keeps working (5 drives; its numbers are not judged,
only that every figure is there, the store is what it says, and every output checked out)."""

import json
import subprocess
import sys

from tests.conftest import ROOT

CASES = {"ssdlab metrics", "ssdlab metrics --textfile", "anchor: ssdlab metrics at bd33ceb"}


def test_metrics_scale_benchmark_reports_every_figure() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "metrics_scale.py"), "--drives", "5",
         "--rounds", "1", "--quiet-wait", "0", "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["drives"] == 5
    # per drive: a watch run and 20 quick runs, 10 + 2 × 20 samples, 24 passes a quick run
    assert result["rows"] == {"runs": 5 * 21, "health_samples": 5 * 50, "step_results": 5 * 480}
    assert set(result["cases"]) == CASES
    for name, case in result["cases"].items():
        for figure in ("wall_s", "cpu_s", "peak_rss_mb"):
            stats = case[figure]
            assert 0 < stats["min"] <= stats["median"] <= stats["max"], (name, figure)
        assert case["others_cpus"]["min"] >= 0, name
    # stdout and the textfile are one text, the same every round and what the anchor printed
    assert result["checks"] == {
        "textfile_same_as_stdout": True,
        "stdout_same_every_round": True,
        "anchor_same_text": True,
    }
    assert result["output_lines"] > 5 * 60  # drive, test and regression samples of 5 drives
