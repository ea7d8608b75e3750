"""Every SNIA PTS test end to end at trial scale on a loop device, and a run resumed after
Ctrl-C in the middle of a round."""

import contextlib
import json
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HANG_S, needs_fio
from tests.e2e.conftest import (
    LoopLab,
    needs_loop,
    run_ssdlab,
    start_ssdlab,
)
from tests.e2e.hints import hinted

pytestmark = [needs_fio, needs_loop, pytest.mark.loop]
SIZE = 64 * 2**20
TRIALS: dict[str, list[str]] = {
    "pts-iops": ["--block-sizes", "4KiB", "--mixes", "0", "--wipc-multiple", "0.25",
                 "--max-rounds", "6"],
    "pts-tp": ["--block-sizes", "128KiB", "--wipc-multiple", "0.25", "--max-rounds", "5"],
    "pts-lat": ["--block-sizes", "4KiB", "--mixes", "0", "--wipc-multiple", "0.25",
                "--max-rounds", "5"],
    "pts-wsat": ["--capacity-multiple", "0.5", "--max-hours", "0.005"],
    # three repeats a wait state: two access periods after an idle, for model fit's idle GC
    "pts-hir": ["--repeats", "3", "--wait-scale", "0.02", "--max-rounds", "5"],
    "pts-xsr": ["--duration-scale", "0.00002"],
}  # fmt: skip


def findings(db: Path) -> dict[str, Any]:
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return {n: json.loads(b) for n, b in conn.execute("SELECT name, body_json FROM findings")}


def stored_steps(db: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(db) as conn:
        return [(k, i) for k, i in conn.execute("SELECT step_key, round_index FROM step_results")]


@pytest.mark.parametrize("profile", sorted(TRIALS))
def test_trial_run_on_a_loop_device(profile: str, tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(SIZE).path
    db = tmp_path / "db"
    plots = tmp_path / "plots"
    argv = [profile, device, "--round-seconds", "0.2", *TRIALS[profile], "--db", str(db)]
    refused = run_ssdlab("run", *argv)
    assert refused.code == 3
    assert f"--destroy-data {device}" in refused.stderr
    done = run_ssdlab(
        "run", *argv, "--destroy-data", device, "--json", "--plots", str(plots), timeout=HANG_S
    )
    assert done.code == 0, done.stderr
    json.loads(done.stdout)
    found = findings(db)
    conformance = found["pts-conformance"]
    assert conformance["conformant"] is False
    deviations = "\n".join(conformance["deviations"])
    assert "element seconds 0.2" in deviations  # the trial is said, not hidden
    assert "purge by trim" in deviations  # a loop device offers no PTS purge
    assert "step:write-cache" not in found  # nothing to set on a loop device
    assert any(p.suffix == ".svg" for p in plots.iterdir())
    steps = stored_steps(db)
    assert len(steps) == len(set(steps)), "no step stored twice"
    if profile in ("pts-iops", "pts-tp", "pts-lat", "pts-hir"):
        checks = [n for n in found if n.startswith("round-check")]
        assert checks, "the steady-state check ran and its numbers are stored"
        assert any(n.startswith("pts-steady-state") for n in found)
    if profile == "pts-hir":
        fits_idle_gc(db)
    if profile == "pts-iops":
        rounds = {i for k, i in steps if k == "rnd-4kib-r0"}
        assert min(rounds) == 1
        assert 5 <= max(rounds) <= 6
        assert rounds == set(range(1, max(rounds) + 1))


def fits_idle_gc(db: Path) -> None:
    """`ssdlab model fit` of the HIR run reads idle GC from it. A loop device over whatever
    disk the machine has says nothing about a drive's idle GC, so only the shape is asserted:
    a verdict among the three, the gains per wait state in the note, the run it came from."""
    with sqlite3.connect(db) as conn:
        run_id, uuid = conn.execute(
            "SELECT id, uuid FROM runs WHERE profile = 'pts-hir'"
        ).fetchone()
    fitted = run_ssdlab("model", "fit", str(run_id), "--db", str(db), "--json")
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
    shown = run_ssdlab("show", "last", "--db", str(db), "--json")  # the stored fit, as printed
    assert shown.code == 0, shown.stderr
    assert next(p for p in json.loads(shown.stdout)["parameters"] if p["name"] == "idle GC") == idle


def _wait_for(db: Path, count: int, timeout_s: float = HANG_S) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if db.exists():
            with contextlib.suppress(sqlite3.OperationalError):
                with sqlite3.connect(db, timeout=5) as conn:
                    found = int(conn.execute("SELECT COUNT(*) FROM step_results").fetchone()[0])
                if found >= count:
                    return
        time.sleep(0.05)
    raise AssertionError(f"fewer than {count} steps stored after {timeout_s} s")


def test_a_run_stopped_mid_round_resumes_at_that_round(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(SIZE).path
    db = tmp_path / "db"
    argv = [
        "run", "pts-tp", device, "--destroy-data", device, "--round-seconds", "0.4",
        "--block-sizes", "128KiB", "--wipc-multiple", "0.25", "--max-rounds", "7",
        "--db", str(db),
    ]  # fmt: skip
    child = start_ssdlab(*argv)
    _wait_for(db, 4)  # WIPC, round 1 read and write, round 2 read: stopped inside round 2
    child.send_signal(signal.SIGINT)
    _, stderr = child.communicate(timeout=HANG_S)
    assert child.returncode == 130, stderr
    command = hinted(stderr, "resume")  # the command the interrupt names, as it is copied
    assert command == ["resume", "1", "--destroy-data", device, "--db", str(db)]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT status FROM runs").fetchone()[0] == "interrupted"
    before = stored_steps(db)
    cut = max(i for k, i in before if k.startswith("seq-"))
    refused = run_ssdlab("resume", "last", "--db", str(db))
    assert refused.code == 3, refused.stderr  # still needs --destroy-data
    resumed = run_ssdlab(*command)
    assert resumed.code == 0, resumed.stderr
    after = stored_steps(db)
    assert len(after) == len(set(after)), "no step stored twice"
    rounds = sorted({i for k, i in after if k == "seq-128kib-r0"})
    assert rounds == list(range(1, len(rounds) + 1))
    assert len(rounds) >= 5
    found = findings(db)
    resumed_at = [n for n in found if n.startswith("resumed-round-")]
    assert resumed_at
    assert int(resumed_at[0].rsplit("-", 1)[1]) <= cut + 1
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT status FROM runs").fetchone()[0] == "complete"
    again = run_ssdlab("resume", "last", "--destroy-data", device, "--db", str(db))
    assert again.code == 2
    assert "only a stopped run can resume" in again.stderr
