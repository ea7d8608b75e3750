"""An endurance run's health sampler when the store shares the target's device: it takes its
samples and makes its safety check as ever, but keeps them in memory (the store is never
opened from its thread) until the runner stores them between passes."""

import threading
import time
from pathlib import Path

from ssdlab.model.health import HealthSample
from ssdlab.model.run import RunKind
from ssdlab.model.target import TargetKind
from ssdlab.runner.endurance import DURING, SAFETY_FINDING, HealthSampler, store_kept
from ssdlab.runner.run_row import RunHeader, create_run
from ssdlab.store.db import open_store
from ssdlab.store.findings import load_findings
from ssdlab.store.health import load_health_samples
from ssdlab.system.health import HealthReading
from tests.conftest import HANG_S
from tests.unit.analysis.health_samples import make_sample

HEADER = RunHeader(
    kind=RunKind.PROFILE,
    profile="endurance",
    profile_version=1,
    preset=None,
    target_kind=TargetKind.FILE,
    target_path="/x",
    settings_json="{}",
    plan_json="{}",
)


def test_a_deferred_sampler_keeps_its_samples_and_never_opens_the_store(tmp_path: Path) -> None:
    database = tmp_path / "never.db"
    taken = threading.Event()
    problems: list[str] = []

    def read() -> HealthReading:
        taken.set()
        return HealthReading(make_sample(time.time(), host=1e9), (), ())

    def too_hot(_first: HealthSample | None, _latest: HealthSample) -> str | None:
        return "too hot"

    sampler = HealthSampler(database, 1, read, 0.001, too_hot, problems.append, deferred=True)
    sampler.start()
    assert taken.wait(HANG_S)
    sampler.stop()
    kept = sampler.take_kept()
    assert not database.exists()
    assert problems == ["too hot"]  # the safety stop is called for at once, not deferred
    assert [k.problem for k in kept] == ["too hot"]
    assert sampler.take_kept() == []

    store = open_store(tmp_path / "runs.db")
    try:
        run_id = create_run(store, HEADER)
        store_kept(store, run_id, kept)
        (stored,) = load_health_samples(store, run_id=run_id)
        assert stored.phase == DURING
        assert [f.name for f in load_findings(store, run_id)] == [SAFETY_FINDING]
    finally:
        store.close()
