"""`ssdlab conformance` on a loop device with a real `ssdlab run qos` run of it: TRIM-6/7 are
answered from the verdicts the run stored (whatever they are on this machine), and everything a
loop device cannot show (no SMART, no Identify, no OCP pages) is not checkable with its reason;
nothing fails, so the exit status is 0 unless the run's own targets failed. No timed assertions."""

import json
from pathlib import Path

import pytest

from tests.conftest import needs_fio
from tests.e2e.conftest import LoopLab, needs_loop, run_ssdlab

pytestmark = [needs_fio, needs_loop, pytest.mark.loop]


def _aggregate(outcomes: list[str]) -> str:
    if "fail" in outcomes:
        return "fail"
    return "pass" if all(o == "pass" for o in outcomes) else "inconclusive"


def test_conformance_of_a_loop_device_with_its_qos_run(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(64 * 2**20).path
    db = str(tmp_path / "db")
    ran = run_ssdlab(
        "run", "qos", device, "--destroy-data", device, "--workload", "TRIM-6-7",
        "--duration", "1", "--db", db, "--json",
    )  # fmt: skip
    assert ran.code == 0, ran.stderr
    items = json.loads(ran.stdout)["result"]["qos-verdict"]["items"]
    done = run_ssdlab("conformance", device, "--run", "last", "--db", db, "--json")
    doc = json.loads(done.stdout)
    results = {r["requirement"]: r for r in doc["results"]}
    for requirement in ("TRIM-6", "TRIM-7"):
        judged = [i["outcome"] for i in items if requirement in i["source"]]
        assert len(judged) == 2
        assert results[requirement]["verdict"] == _aggregate(judged)
        assert {e["source"] for e in results[requirement]["evidence"]} == {"run 1 (TRIM-6-7)"}
    others = [r for r in doc["results"] if r["requirement"] not in ("TRIM-6", "TRIM-7")]
    assert {r["verdict"] for r in others} == {"not checkable"}
    assert doc["drive"] == device
    assert done.code == (4 if doc["summary"]["fail"] else 0), done.stderr
