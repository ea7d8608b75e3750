"""`ssdlab model fit` reads idle GC from a real SNIA PTS Host Idle Recovery run: a trial-scale
`ssdlab run pts-hir` on a 16 MiB file (access periods of 0.1 s, idles of 0.1–1 s, three
repeats per wait state, so two follow an idle), then `model fit` of it. A file on a file system
over whatever disk the machine has says nothing about a drive's idle GC, so only the shape is
asserted: a verdict among the three, the gains per wait state in the note, the run it came
from. Nothing is timed. About 40 s here."""

import json
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import needs_fio
from tests.e2e.conftest import run_ssdlab

pytestmark = [needs_fio, pytest.mark.slow]
TRIAL = ["--size", "16MiB", "--round-seconds", "0.2", "--repeats", "3", "--wait-scale", "0.02",
         "--max-rounds", "5"]  # fmt: skip


def test_model_fit_reads_idle_gc_from_a_hir_run(tmp_path: Path) -> None:
    db = str(tmp_path / "db")
    target = tmp_path / "hir.tmp"
    done = run_ssdlab("run", "pts-hir", str(target), *TRIAL, "--db", db)
    assert done.code == 0, done.stderr
    with sqlite3.connect(db) as conn:
        run_id, uuid = conn.execute(
            "SELECT id, uuid FROM runs WHERE profile = 'pts-hir'"
        ).fetchone()
    fitted = run_ssdlab("model", "fit", str(run_id), "--db", db, "--json")
    assert fitted.code == 0, fitted.stderr
    body = json.loads(fitted.stdout)
    idle = next(p for p in body["parameters"] if p["name"] == "idle GC")
    assert idle["value"] in ("present", "absent", "inconclusive")
    assert idle["from"] == [{"run_id": run_id, "uuid": uuid, "label": f"pts-hir run {run_id}"}]
    assert idle["needs"] is None
    for state in (1, 2, 3, 5, 10):
        assert f"wait state {state} " in idle["note"]
    assert "2 access periods after an idle" in idle["note"]
    assert "the simulator models no idle time" in idle["note"]
    (used,) = body["inputs"]
    assert used["run_id"] == run_id
    assert used["gave"] == "idle recovery over 5 wait states (idle GC)"
    # every other parameter still asks for its run
    others = [p for p in body["parameters"] if p["name"] != "idle GC"]
    assert all(p["needs"] for p in others if p["value"] is None)
    shown = run_ssdlab("show", "last", "--db", db, "--json")  # the stored fit, as printed
    assert shown.code == 0, shown.stderr
    assert next(p for p in json.loads(shown.stdout)["parameters"] if p["name"] == "idle GC") == idle
