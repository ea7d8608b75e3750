"""The fleet scale benchmark keeps working (2 namespaced hosts × 2 targets): every phase ends
well, every run starts, is found in its node's store and is collected once. Its times are not
judged (bench/RESULTS.md holds them), only that every figure is there."""

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.fleet.hosts import missing_requirements

PHASES = {"doctor", "run", "status", "collect"}


def test_fleet_scale_benchmark_reports_every_phase() -> None:
    reason = missing_requirements()
    if reason is not None:
        pytest.skip(reason)
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "fleet_scale.py"), "--tiny", "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=1800,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (result,) = json.loads(done.stdout)
    assert (result["hosts"], result["targets"]) == (2, 2)
    assert set(result["phases"]) == PHASES
    for name, phase in result["phases"].items():
        assert phase["exit"] == 0, (name, phase["said"])
        assert phase["wall_s"] > 0
        assert phase["seat_cpu_s"] > 0
        assert phase["seat_cpu_per_host_s"] == pytest.approx(phase["seat_cpu_s"] / 2)
    assert result["runs"] == result["runs_expected"] == 4
    assert result["collected"] == 4
    assert result["skew_s"] >= 0
    assert result["late"] in range(5)
    assert result["store_bytes"] > 0
    assert result["collect_over_copy"] > 0
