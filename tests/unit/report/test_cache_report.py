"""The `cache` verdict from step results: bytes series, cliff, recovery, document."""

import random

import pytest

from ssdlab.model.profile import ProfileResults
from ssdlab.model.result import SeriesPoint
from ssdlab.model.run import RunRecord, RunStatus
from ssdlab.model.step import StepResult
from ssdlab.plan.cache import plan_cache
from ssdlab.plan.cachefit import cache_size_from_finding
from ssdlab.report.cache import CLIFF, RECOVERY, analyse_cache, build_cache_document, bytes_series
from ssdlab.report.document import render_markdown
from tests.unit.plan.profile_golden import FILE_TARGET

MB = 10**6


def _write(key: str, levels: list[tuple[int, float]], seed: int = 1) -> StepResult:
    """A write step logged every 0.5 s: `count` intervals at each MB/s level, 5 % noise."""
    rng = random.Random(seed)
    points = []
    t = 0.0
    for count, mbps in levels:
        for _ in range(count):
            t += 0.5
            bw = mbps * MB * (1 + rng.gauss(0, 0.05))
            points.append(SeriesPoint(t, "write", bw, None, None))
    mean = sum(p.bw_bytes_per_s or 0 for p in points) / len(points)
    return StepResult(key, key, "write", 1, False, mean, 0.0, None, None, None,
                      series=tuple(points))  # fmt: skip


def test_bytes_series_integrates_each_interval() -> None:
    step = _write("write", [(4, 100.0)])
    series = bytes_series(step)
    assert len(series) == 4
    assert series[-1][0] == pytest.approx(sum(bw * 0.5 for _, bw in series))


def test_a_known_cliff_is_found_and_readable_by_cachefit() -> None:
    plan = plan_cache({}, FILE_TARGET)
    # 40 intervals at 2000 MB/s (40 GB in cache), then 60 at 450 MB/s
    step = _write("write", [(40, 2000.0), (60, 450.0)])
    found = analyse_cache(plan, [step], {}, {})
    cliff = found[CLIFF]
    assert cliff["cliff_bytes"] == pytest.approx(40 * 0.5 * 2000 * MB, rel=0.05)
    assert cliff["in_cache_bw_bytes_per_s"] == pytest.approx(2000 * MB, rel=0.05)
    assert cliff["post_cache_bw_bytes_per_s"] == pytest.approx(450 * MB, rel=0.05)
    assert cache_size_from_finding(cliff) == cliff["cliff_bytes"]  # a whole number of bytes


def test_flat_noisy_write_has_no_cliff() -> None:
    found = analyse_cache(plan_cache({}, FILE_TARGET), [_write("write", [(80, 900.0)])], {}, {})
    assert found[CLIFF]["cliff_bytes"] is None and found[CLIFF]["reason"]


def test_recovery_probe_and_document() -> None:
    plan = plan_cache({"recovery_idle": 30.0}, FILE_TARGET)
    write = _write("write", [(40, 2000.0), (60, 450.0)])
    probe = _write("probe", [(20, 2000.0), (60, 450.0)], seed=2)  # half the cache came back
    found = analyse_cache(plan, [write, probe], {}, {})
    assert found[RECOVERY]["fraction"] == pytest.approx(0.5, abs=0.08)
    run = RunRecord(1, "profile", "cache", 1, None, RunStatus.COMPLETE, None, "file",
                    FILE_TARGET.path, {}, {}, {}, {}, 0.0, 1.0, "host", 1, None)  # fmt: skip
    document = build_cache_document(ProfileResults(run, plan, (write, probe), {}, {}, (), {}))
    assert {c.key for c in document.charts} == {"cache-cliff", "cache-recovery"}
    assert document.verdict[0].startswith("write cache ≈ 40")
    assert "came back" in render_markdown(document)
