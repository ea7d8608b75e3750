"""The store-scale benchmark keeps working (1,000 runs; its numbers are not judged, only that
every figure is there and what it measured is what it says)."""

import json
import subprocess
import sys

from tests.conftest import HANG_S, ROOT

CASES = {"all (newest 50)", "all, --json", "--host lab-7", "--profile cache", "page at the middle"}


def test_store_scale_benchmark_reports_every_figure() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "store_scale.py"), "--runs", "1000", "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["runs"] == 1000
    assert {row["case"] for row in result["listing"]} == CASES
    for row in result["listing"]:
        assert row["ssdlab_wall_s"] > 0, row
        assert row["ssdlab_peak_rss_mb"] > 0, row
        assert row["query_s"] > 0, row
        # a page of 50 (a host of 300 has 3 or 4 of the 1,000 runs)
        assert row["listed"] == (4 if row["case"] == "--host lab-7" else 50), row
    assert result["query_alone"]["peak_rss_mb"] > 0
    assert result["show_small_s"] > 0
    assert result["show_big_s"] > 0
    # compression happened: a day of endurance and a quick run take far less than as text
    assert result["day_zstd"]["day_bytes"] < result["day_text"]["day_bytes"] / 3
    quick = result["quick"]
    assert quick["runs"] >= 2
    assert quick["zstd_bytes_per_run"] < quick["text_bytes_per_run"]
