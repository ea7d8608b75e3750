"""Today's analyses make, from a run stored by ssdlab at 98b38bc (before verdicts left
report/), the verdicts that ssdlab stored for it: every value it stored is made again. What was
added since (95 % intervals, the yes / no / inconclusive states, the passes behind each figure)
is new keys beside them; sentences now open with the verdict's state and keep every figure the
stored sentence gave."""

import json
import re
import shutil
from pathlib import Path

import pytest

from ssdlab.app.runs import profile_results
from ssdlab.model.run import RunStatus
from ssdlab.registry import profile_record
from ssdlab.store.db import open_store
from ssdlab.store.findings import load_findings
from ssdlab.store.lifecycle import to_json
from tests.conftest import ROOT

STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"
RUNS = {4: "fill", 5: "align", 6: "fill", 14: "endurance"}  # its complete profile runs


@pytest.mark.parametrize("run_id", sorted(RUNS))
def test_analysis_makes_the_stored_verdicts(run_id: int, tmp_path: Path) -> None:
    copy = tmp_path / "store.sqlite"
    shutil.copyfile(STORE, copy)
    conn = open_store(copy)
    try:
        results = profile_results(conn, run_id)
        stored = {f.name: f.body for f in load_findings(conn, run_id) if f.kind == "verdict"}
    finally:
        conn.close()
    assert results.run.status is RunStatus.COMPLETE
    assert results.plan.profile == RUNS[run_id]
    analyse = profile_record(RUNS[run_id]).parts().analyse
    assert analyse is not None
    made = analyse(results.plan, results.steps, results.facts, results.outputs)
    assert made
    for name, body in made.items():
        assert_keeps(json.loads(to_json(body)), stored[name], name)


FIGURE = re.compile(r"\d[\d,.]*")
REWORDED = ("summary", "sentences")  # each now opens with the state: 'Slows as it fills: no — '


def assert_keeps(made: object, stored: object, where: str) -> None:
    """`made` holds every value of `stored`; a reworded sentence keeps its figures."""
    if isinstance(stored, dict):
        assert isinstance(made, dict), where
        for key, value in stored.items():
            assert key in made, f"{where}/{key} is no longer made"
            if key in REWORDED:
                texts = value if isinstance(value, list) else [value]
                now = made[key] if isinstance(made[key], list) else [made[key]]
                assert len(now) == len(texts), f"{where}/{key}"
                for old, new in zip(texts, now, strict=True):
                    assert all(figure in new for figure in FIGURE.findall(old)), (old, new)
            else:
                assert_keeps(made[key], value, f"{where}/{key}")
    elif isinstance(stored, list):
        assert isinstance(made, list), where
        assert len(made) == len(stored), where
        for index, (now, then) in enumerate(zip(made, stored, strict=True)):
            assert_keeps(now, then, f"{where}[{index}]")
    else:
        assert made == stored, f"{where}: {made!r} != {stored!r}"
