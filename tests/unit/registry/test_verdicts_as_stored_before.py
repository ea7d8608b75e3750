"""Today's analyses make, from a run stored by ssdlab at 98b38bc (before verdicts left
report/), exactly the verdicts that ssdlab stored for it: the findings' JSON is unchanged."""

import json
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
    assert {name: json.loads(to_json(body)) for name, body in made.items()} == {
        name: stored[name] for name in made
    }
    assert {name: to_json(body) for name, body in made.items()} == {
        name: to_json(stored[name]) for name in made
    }  # byte for byte, as the store writes it
