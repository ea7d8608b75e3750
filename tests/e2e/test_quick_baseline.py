"""`ssdlab quick --baseline NAME` end to end with the real fio: the first run of a name on a
drive is its reference, later runs are judged against it, and the judgement is stored as the
run's `baseline` finding."""

import json
import sqlite3
from pathlib import Path
from typing import Any

from ssdlab.analysis.compare import Verdict
from ssdlab.store.findings import load_findings
from tests.conftest import needs_fio
from tests.e2e.conftest import FAST, LoopLab, Result, needs_loop, run_ssdlab

pytestmark = needs_fio

# three passes a test, so that Welch's test has samples; reads only, and passes of 0.1 s (a
# judgement needs passes, not long ones: eleven runs of nine fio passes each make this file)
BASE = [*FAST, "--count", "3", "--mode", "read", "--measure", "0.1"]
KEYS = ["seq1m-q1t1-read", "seq1m-q1t1-read-lat", "rnd4k-q1t1-read", "rnd4k-q1t1-read-lat"]
VERDICTS = {v.value for v in Verdict}


def _quick(target: str, db: Path, *extra: str) -> Result:
    return run_ssdlab("quick", target, *BASE, "--db", str(db), *extra)


def _quick_json(target: str, db: Path, *extra: str) -> dict[str, Any]:
    result = _quick(target, db, "--json", *extra)
    assert result.code == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def _stored_finding(db: Path, run_id: int) -> tuple[str, dict[str, Any]]:
    conn = sqlite3.connect(db)
    try:
        (finding,) = [f for f in load_findings(conn, run_id) if f.name == "baseline"]
    finally:
        conn.close()
    return finding.kind, finding.body


def _expected_drive(document: dict[str, Any], folder: Path) -> str:
    device = document["run"]["target"].get("device") or {}
    return str(device.get("serial") or "").strip() or str(folder)


def _assert_judged(baseline: dict[str, Any], references: list[int]) -> None:
    assert baseline["role"] == "judged"
    assert baseline["reference_run_ids"] == references
    assert [t["key"] for t in baseline["tests"]] == KEYS
    for test in baseline["tests"]:
        assert set(test) == {"key", "label", "verdict", "change_pct", "p_value", "regression",
                             "outcome", "ratio_interval"}  # fmt: skip
        assert test["verdict"] in VERDICTS
        assert test["verdict"] != "missing"
        assert test["outcome"] in ("pass", "fail", "inconclusive")
        assert test["regression"] == (test["outcome"] == "fail")
        if test["regression"]:  # the whole interval past the threshold: a significant drop
            assert test["verdict"] == "worse"
        assert isinstance(test["change_pct"], float)
        assert isinstance(test["p_value"], float)  # three passes a side: Welch's p exists


def test_reference_then_judged_then_reset_and_add(tmp_path: Path) -> None:
    folder = tmp_path / "target"
    folder.mkdir()
    db = tmp_path / "runs.db"
    first = _quick_json(str(folder), db, "--baseline", "nightly")
    run1 = first["run"]["id"]
    drive = _expected_drive(first, folder)
    assert first["baseline"] == {
        "name": "nightly",
        "drive": drive,
        "role": "reference",
        "reference_run_ids": [run1],
        "tests": [],
    }
    assert _stored_finding(db, run1) == ("verdict", first["baseline"])

    second = _quick_json(str(folder), db, "--baseline", "nightly")
    run2 = second["run"]["id"]
    _assert_judged(second["baseline"], [run1])
    assert second["baseline"]["drive"] == drive
    # show, export and the report give the stored judgement back
    shown = run_ssdlab("show", str(run2), "--json", "--db", str(db))
    assert json.loads(shown.stdout)["baseline"] == second["baseline"]
    text = run_ssdlab("show", str(run2), "--db", str(db))
    assert f"against baseline nightly on drive {drive}" in text.stdout
    report = tmp_path / "r.md"
    made = run_ssdlab("report", str(run2), "-o", str(report), "--db", str(db))
    assert made.code == 0, made.stderr
    assert "nightly" in report.read_text()
    assert _stored_finding(db, run2) == ("verdict", second["baseline"])

    # another name on the same drive has a reference of its own
    other = _quick_json(str(folder), db, "--baseline", "weekly")
    assert other["baseline"]["role"] == "reference"

    reset = _quick_json(str(folder), db, "--baseline", "nightly", "--baseline-reset")
    run3 = reset["run"]["id"]
    assert (reset["baseline"]["role"], reset["baseline"]["reference_run_ids"]) == (
        "reference",
        [run3],
    )
    added = _quick_json(str(folder), db, "--baseline", "nightly", "--baseline-add")
    run4 = added["run"]["id"]
    assert added["baseline"]["reference_run_ids"] == [run3, run4]

    text = _quick(str(folder), db, "--baseline", "nightly")
    assert text.code == 0, text.stderr  # a regression alone never fails without the option
    assert "against baseline nightly on " in text.stdout
    assert f"(runs {run3}, {run4}): " in text.stdout.replace("\n", " ")


def test_a_drop_against_the_baseline_exits_4_only_with_fail_on_regression(
    tmp_path: Path,
) -> None:
    """The reference measures fio's null engine (no I/O), the judged runs the test file: a
    drop of orders of magnitude, whatever the machine's speed."""
    folder = tmp_path / "target"
    folder.mkdir()
    db = tmp_path / "runs.db"
    reference = _quick_json(str(folder), db, "--baseline", "b", "--ioengine", "null")
    assert reference["baseline"]["role"] == "reference"
    judged = _quick_json(str(folder), db, "--baseline", "b")  # exit 0 checked inside
    regressed = [t for t in judged["baseline"]["tests"] if t["regression"]]
    assert regressed
    # a regression is a test whose whole interval is past the threshold; Welch's test on the
    # same passes says worse, or (with the null engine's wide spread under load) may not reach
    # significance — it never says better
    assert all(t["outcome"] == "fail" for t in regressed)
    assert not any(t["verdict"] == "better" for t in regressed)
    failing = _quick(str(folder), db, "--baseline", "b", "--fail-on-regression")
    assert failing.code == 4, failing.stderr
    assert "a regression" in failing.stdout
    assert "tests regressed" in failing.stdout


def test_baseline_options_need_a_name(tmp_path: Path) -> None:
    for flag in ("--baseline-reset", "--baseline-add", "--fail-on-regression"):
        result = _quick(str(tmp_path), tmp_path / "runs.db", flag)
        assert result.code == 2
        assert f"{flag} needs --baseline NAME" in result.stderr
    assert not (tmp_path / "runs.db").exists()


@needs_loop
def test_a_device_is_keyed_by_its_serial_else_its_node(tmp_path: Path, lab: LoopLab) -> None:
    loop = lab.loop()
    db = tmp_path / "runs.db"
    document = _quick_json(loop.path, db, "--baseline", "dev")
    device = document["run"]["target"]["device"]
    serial = str(device.get("serial") or "").strip()
    assert document["baseline"]["drive"] == (serial or loop.path)
    judged = _quick_json(loop.path, db, "--baseline", "dev")
    _assert_judged(judged["baseline"], [document["run"]["id"]])
