"""`ssdlab run qos` end to end with real fio on a file: targets generous enough (seconds) that
the run passes whatever the machine's load, targets no I/O can meet (1 ns) that it fails, and a
bad targets file refused in one line. No timed assertions."""

import json
from pathlib import Path

import pytest

from tests.conftest import needs_fio
from tests.e2e.conftest import LoopLab, needs_loop, run_ssdlab

pytestmark = [needs_fio]

TARGETS = """
[workload.e2e]
source = "ssdlab's end-to-end test"
read_mib_s_per_tb = 50000
write_mib_s_per_tb = 50000

[[workload.e2e.target]]
direction = "read"
percentile = 90
limit_us = {limit}
source = "test: read p90"

[[workload.e2e.target]]
direction = "write"
percentile = "max"
limit_us = {limit}
source = "test: write max"
"""


def _run(tmp_path: Path, limit: str) -> dict:  # type: ignore[type-arg]
    targets = tmp_path / f"targets-{limit}.toml"
    targets.write_text(TARGETS.format(limit=limit))
    done = run_ssdlab(
        "run", "qos", str(tmp_path), "--size", "16MiB", "--targets", str(targets),
        "--duration", "2", "--iodepth", "4", "--db", str(tmp_path / "db"), "--json",
    )  # fmt: skip
    assert done.code == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["profile"] == "qos"
    return doc  # type: ignore[no-any-return]


def test_generous_targets_pass_and_impossible_ones_fail(tmp_path: Path) -> None:
    generous = _run(tmp_path, "60000000")  # a minute
    verdict = generous["result"]["qos-verdict"]
    assert verdict["workload"] == "e2e"
    assert verdict["outcome"] == "pass", verdict["sentence"]
    assert all(item["n"] > 0 for item in verdict["items"])
    assert generous["verdict"][0].startswith("pass: 2 of 2 targets pass")
    strict = _run(tmp_path, "0.001")  # 1 ns
    judged = strict["result"]["qos-verdict"]
    assert judged["outcome"] == "fail"
    assert {item["outcome"] for item in judged["items"]} == {"fail"}
    shown = run_ssdlab("show", "2", "--db", str(tmp_path / "db"))
    assert shown.code == 0, shown.stderr
    assert "fail: 0 of 2 targets pass" in shown.stdout


def test_a_bad_targets_file_is_refused_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[workload.x]\nread_mib_s_per_tb = 1\n")
    done = run_ssdlab(
        "run", "qos", str(tmp_path), "--size", "16MiB", "--targets", str(bad),
        "--duration", "1", "--db", str(tmp_path / "db"),
    )  # fmt: skip
    assert done.code == 2
    assert "no [[workload.x.target]]" in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("ssdlab: error:")]
    assert len(errors) == 1  # after argparse's usage line, as every usage error


@needs_loop
@pytest.mark.loop
def test_trim6_7_on_a_loop_device(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop(64 * 2**20).path
    done = run_ssdlab(
        "run", "qos", device, "--destroy-data", device, "--workload", "TRIM-6-7",
        "--duration", "1", "--db", str(tmp_path / "db"), "--json",
    )  # fmt: skip
    assert done.code == 0, done.stderr
    verdict = json.loads(done.stdout)["result"]["qos-verdict"]
    assert [item["check"] for item in verdict["items"]] == [
        "p50 change, trims running",
        "p99 change, trims running",
        "p50 change, after a write burst",
        "p99 change, after a write burst",
    ]
    for item in verdict["items"]:
        assert item["n"] > 0, item["sentence"]  # every phase ran and was counted
        assert item["outcome"] in ("pass", "fail", "inconclusive")
