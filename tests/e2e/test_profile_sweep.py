"""`ssdlab run sweep` end to end with real fio: percentiles agree with fio's own, and a
read-only sweep of a device writes nothing."""

import json
import sqlite3
from pathlib import Path

import pytest

from ssdlab.analysis.latency_bins import percentile_ns
from ssdlab.analysis.profiles.sweep import histogram_of
from ssdlab.parse.fio_histogram import clat_bins_of
from ssdlab.store.raw import unpack_raw
from tests.conftest import needs_fio
from tests.e2e.conftest import LoopLab, needs_loop, run_ssdlab, sha256_of

pytestmark = [needs_fio]
FAST = ["--threads", "1,2", "--iodepths", "1,4", "--runtime", "0.3", "--ramp", "0"]


def test_sweep_on_a_file(tmp_path: Path) -> None:
    db = tmp_path / "db"
    plots = tmp_path / "plots"
    done = run_ssdlab(
        "run", "sweep", str(tmp_path), "--size", "16MiB", *FAST, "--db", str(db), "--json",
        "--plots", str(plots),
    )  # fmt: skip
    assert done.code == 0, done.stderr
    doc = json.loads(done.stdout)
    cells = doc["result"]["sweep-cells"]["cells"]
    assert len(cells) == 8
    assert all(c["iops"] > 0 and c["lat_p99_ns"] for c in cells)
    assert all(c["passes"] == 2 for c in cells)  # the whole matrix twice (the default)
    for cell in cells:
        interval = cell["iops_interval"]
        assert interval["low"] <= cell["iops"] <= interval["high"]
    knees = doc["result"]["sweep-knee"]
    assert set(knees) == {"randread-4k", "randrw70-8k"}
    for knee in knees.values():
        assert knee["state"] in ("yes", "inconclusive")
        assert knee["monotonic"] in ("yes", "no", "inconclusive")
        assert abs(sum(share["share"] for share in knee["shares"]) - 1) < 1e-9
    assert any(" monotonic: " in line for line in doc["verdict"])
    assert (plots / "sweep-heatmap-randread-4k.svg").exists()
    assert (plots / "sweep-curve-randrw70-8k.png").exists()
    # for reads alone, the histogram's p99 is fio's own p99
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT stdout FROM captures WHERE tool = 'fio'").fetchall()
        outputs = [unpack_raw(conn, r[0]) for r in rows]  # stored compressed
    checked = 0
    for output in outputs:
        job = json.loads(output)["jobs"][0]
        if job["write"]["total_ios"] == 0 and job["read"]["total_ios"] > 0:
            histogram = histogram_of(clat_bins_of(output))
            assert histogram is not None
            assert (
                percentile_ns(histogram, 99.0) == job["read"]["clat_ns"]["percentile"]["99.000000"]
            )
            checked += 1
    assert checked == 8  # 4 read cells, twice


@needs_loop
@pytest.mark.loop
def test_read_only_sweep_of_a_device_needs_no_destroy_data(tmp_path: Path, lab: LoopLab) -> None:
    size = 32 * 2**20
    device = lab.loop(size, pattern=b"sweep me").path
    before = sha256_of(device, size)
    done = run_ssdlab(
        "run", "sweep", device, *FAST, "--workloads", "randread:4KiB",
        "--db", str(tmp_path / "db"),
    )  # fmt: skip
    assert done.code == 0, done.stderr
    assert sha256_of(device, size) == before
    refused = run_ssdlab("run", "sweep", device, *FAST, "--db", str(tmp_path / "db"))
    assert refused.code == 3
    assert f"--destroy-data {device}" in refused.stderr


@needs_loop
@pytest.mark.loop
def test_plan_takes_the_command_line_of_a_run_that_writes(tmp_path: Path, lab: LoopLab) -> None:
    device = lab.loop().path
    before = sha256_of(device, 16 * 2**20)
    words = [device, "--destroy-data", device, "--threads", "1,4", "--iodepths", "1,32"]
    planned = run_ssdlab("plan", "sweep", *words, "--check")  # the documented example
    assert planned.code == 0, planned.stderr
    assert f"running them needs --destroy-data {device}" in planned.stdout
    assert "fio --parse-only: " in planned.stdout
    assert sha256_of(device, 16 * 2**20) == before  # a plan writes nothing
    elsewhere = run_ssdlab("plan", "sweep", str(tmp_path), "--destroy-data", device)
    assert elsewhere.code == 2  # as `run` refuses it: a file target never needs it
    assert "file targets never need it" in elsewhere.stderr
    run = run_ssdlab("run", "sweep", *words, "--runtime", "0.2", "--ramp", "0", "--size",
                     "8MiB", "--db", str(tmp_path / "db"), "--json")  # fmt: skip
    assert run.code == 0, run.stderr  # what the plan showed, run as it was given
