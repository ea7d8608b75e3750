"""The endurance store-size benchmark keeps working (tiny scale; its numbers are not judged)."""

import json
import subprocess
import sys

from tests.conftest import HANG_S, ROOT, needs_fio


@needs_fio
def test_endure_store_benchmark_reports_every_item() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "endure_store.py"), "--iterations", "2", "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["iterations"] == 2
    assert result["health_samples"] >= 2
    for key in ("fio_capture_bytes_per_iteration", "bytes_per_interval_point", "per_day_bytes"):
        assert result[key] > 0, key
    # the day's figure is made of its parts: 144 iterations and 288 samples at least
    assert result["per_day_bytes"] > 288 * result["live_capture_bytes"]
