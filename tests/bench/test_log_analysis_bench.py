"""The log-analysis benchmark keeps working at its tiny CI size (100,000 lines): every tool that
is installed reports, the counts agree, and its Markdown block is written between its markers.
Speed is not judged."""

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import HANG_S, ROOT

BENCH = ROOT / "bench" / "log_analysis.py"


def test_the_tiny_benchmark_reports_every_installed_tool(tmp_path: Path) -> None:
    results = tmp_path / "RESULTS.md"
    results.write_text("# before\n")
    done = subprocess.run(
        [sys.executable, str(BENCH), "--lines", "100000", "--json", "--results", str(results)],
        capture_output=True,
        text=True,
        check=False,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)["rows"]
    assert row["lines"] == 100_000
    tools = row["tools"]
    reference = tools["ssdlab numpy"]["counts"]
    assert sum(reference.values()) == 100_000
    for name, found in tools.items():
        assert found["lines_per_s"] > 0, name
        assert found["peak_rss_mb"] > 0, name
        if not name.startswith("fiologparser"):
            assert found["counts"] == reference, name
        if name.startswith("ssdlab") and found["percentile_error"] is not None:
            assert found["percentile_error"] <= 0.005, name
    stored = results.read_text()
    assert stored.startswith("# before\n")
    assert "| 100,000 |" in stored
    assert "<!-- BEGIN bench/log_analysis.py" in stored
    assert stored.rstrip().endswith("<!-- END bench/log_analysis.py -->")
