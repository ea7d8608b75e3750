"""`ssdlab model fit` end to end on a drive whose internals are known: a virtual drive
(`ssdlab sim serve`, 32 MiB, 12 % spare, greedy GC, dynamic SLC cache) measured only through
ssdlab's ordinary profiles on a loop device over it — `run cache` for the cliff, `run
endurance --workload randwrite-4k` over 81 % and 100 % of it and `--workload
jesd219-enterprise` over all of it (ten fills each, from a discarded drive) for WAF — then
fitted from the store and checked against the drive's own
configuration and the simulator's exact cliff; then asked to predict uniform writes over half
the drive (no run wrote that) and verified against its own endurance and cache runs.

The cache write is timed by the model (`--time-scale 360`: a 50 ms log point holds about
2.5 % of the cache, and the 16 MiB write takes seconds); the endurance runs are served with
no waits (`--time-scale 0`, the same configuration served again) so their ten fills take
seconds. Nothing is timed: the assertions are on bytes and ratios. About 50 s here."""

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ssdlab.app.sim_serve import ServeRequest, ServeSpec, plan_serve, serving
from ssdlab.app.sim_setup import SimRequest
from ssdlab.sim import simulate
from ssdlab.sim.config import SimConfig
from ssdlab.sim.workload import Workload
from ssdlab.system.virtual_drive_fs import fuse_problem
from tests.conftest import needs_fio
from tests.e2e.conftest import run_ssdlab
from tests.unit.analysis.test_model_fit import true_cache_bytes

MiB = 2**20
FUSE_PROBLEM = fuse_problem()
pytestmark = [
    pytest.mark.skipif(FUSE_PROBLEM is not None, reason=str(FUSE_PROBLEM)),
    needs_fio,
    pytest.mark.root,
    pytest.mark.loop,
    pytest.mark.slow,
]
DRIVE = SimRequest(capacity=32 * MiB, spare="12%", pages_per_block=64, slc_dynamic=True)


@contextmanager
def loop_over(
    tmp_path: Path,
    name: str,
    time_scale: float,
    drive: SimRequest = DRIVE,
    idle_gc_mb_per_s: float | None = None,
) -> Iterator[tuple[ServeSpec, str]]:
    """The drive (this module's unless given) served at `time_scale`, and a loop device over
    it (detached after)."""
    if os.geteuid() != 0 or shutil.which("losetup") is None:
        pytest.skip("needs root and losetup for a loop device")
    mount = tmp_path / name
    mount.mkdir()
    request = ServeRequest(mountpoint=str(mount), drive=drive, time_scale=time_scale,
                           backing=str(tmp_path), idle_gc_mb_per_s=idle_gc_mb_per_s)  # fmt: skip
    with serving(plan_serve(request)) as spec:
        attach = ["losetup", "--find", "--show", "--direct-io=on", spec.drive_path]
        done = subprocess.run(attach, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            pytest.skip(f"cannot attach a loop device: {done.stderr.strip()}")
        loop = done.stdout.strip()
        try:
            yield spec, loop
        finally:
            subprocess.run(["losetup", "-d", loop], capture_output=True, check=False)


def test_fit_recovers_a_virtual_drives_spare_and_cache(tmp_path: Path) -> None:
    db = str(tmp_path / "db")
    with loop_over(tmp_path, "timed", 360.0) as (spec, loop):
        config = spec.config
        subprocess.run(["blkdiscard", loop], check=True)
        cached = run_ssdlab(
            "run", "cache", loop, "--destroy-data", loop, "--size", "16MiB",
            "--log-interval", "0.05", "--iodepth", "8", "--block-size", "16KiB", "--db", db,
        )  # fmt: skip
        assert cached.code == 0, cached.stderr
    with loop_over(tmp_path, "fast", 0.0) as (_spec, loop):
        for size, written in (("26MiB", "260MiB"), ("32MiB", "320MiB")):
            subprocess.run(["blkdiscard", loop], check=True)
            endured = run_ssdlab(
                "run", "endurance", loop, "--destroy-data", loop, "--size", size,
                "--workload", "randwrite-4k", "--iteration-bytes", "64MiB",
                "--until-written", written, "--health-every", "0.2s", "--iodepth", "16",
                "--db", db,
            )  # fmt: skip
            assert endured.code == 0, endured.stderr
        subprocess.run(["blkdiscard", loop], check=True)
        skewed = run_ssdlab(
            "run", "endurance", loop, "--destroy-data", loop, "--workload",
            "jesd219-enterprise", "--until-written", "320MiB", "--health-every", "0.2s",
            "--db", db,
        )  # fmt: skip
        assert skewed.code == 0, skewed.stderr
    uniform = run_ssdlab("model", "fit", "1", "2", "3", "--db", db, "--json")
    assert uniform.code == 0, uniform.stderr
    gc = {p["name"]: p for p in json.loads(uniform.stdout)["parameters"]}["GC class"]
    assert gc["value"] == "inconclusive"
    assert "--workload jesd219-enterprise" in gc["needs"]
    fitted = run_ssdlab("model", "fit", "1", "2", "3", "4", "--db", db, "--json")
    assert fitted.code == 0, fitted.stderr
    body = json.loads(fitted.stdout)
    by_name = {p["name"]: p for p in body["parameters"]}
    spare = by_name["spare (of logical)"]
    assert abs(spare["value"] - config.spare_of_logical) <= 0.02
    assert spare["low"] <= config.spare_of_logical <= spare["high"]
    assert [s["run_id"] for s in spare["from"]] == [2, 3, 4]
    assert by_name["GC class"]["value"] == "greedy-like"
    truth = true_cache_bytes(config)
    cache = by_name["cache size"]
    # within 5 % and inside its interval: the bytes axis is counted from fio's histogram log
    # (I/Os × block size), exact whatever the load (docs/model-fit.md); bandwidth × time, the
    # axis before it, missed the truth by up to 14 % here with the cores busy
    assert abs(cache["value"] - truth) <= 0.05 * truth
    assert cache["low"] <= truth <= cache["high"]
    assert by_name["SLC write rate"]["value"] > by_name["native write rate"]["value"]
    assert by_name["cache kind"]["needs"].startswith("ssdlab run cache ")
    assert [i["run_id"] for i in body["inputs"]] == [1, 2, 3, 4]
    # the fit is a run of its own, linked to its inputs, and shows as it printed
    shown = run_ssdlab("show", "6", "--db", db, "--json")
    assert shown.code == 0, shown.stderr
    assert json.loads(shown.stdout)["parameters"] == body["parameters"]
    _predict_and_verify(db, config)


def truth_waf(config: SimConfig, span: float) -> float:
    """The served drive's own steady WAF under uniform 4 KiB writes over `span` of it."""
    span_bytes = config.logical_bytes * span
    result = simulate(config, Workload(span_fraction=span), host_bytes=int(span_bytes * 60),
                      interval_bytes=int(span_bytes / 10))  # fmt: skip
    first, last = result.intervals[-201], result.intervals[-1]
    host = last.host_write_bytes - first.host_write_bytes
    return (last.nand_write_bytes - first.nand_write_bytes) / host


def _predict_and_verify(db: str, config: SimConfig) -> None:
    """The fit (run 6) asked about half the drive, which no run wrote, and held against the
    runs that measured the drive: a few seconds on top of the measuring. IOPS is not compared:
    the endurance runs were served without the model's waits (`--time-scale 0`), the cache
    run, whose rates the prediction scales, at 360 (here: 50 predicted, 15,364 measured)."""
    life = ("--daily", "1GB", "--pe-cycles", "3000")
    predicted = run_ssdlab("model", "predict", "6", "randwrite-4k", "--span", "50%", *life,
                           "--db", db, "--json")  # fmt: skip
    assert predicted.code == 0, predicted.stderr
    figures = {f["name"]: f for f in json.loads(predicted.stdout)["figures"]}
    waf = figures["steady-state WAF"]
    assert abs(waf["value"] / truth_waf(config, 0.5) - 1) <= 0.05
    assert waf["low"] <= waf["value"] <= waf["high"]
    assert figures["days to end of life"]["value"] > 0
    assert figures["steady-state write IOPS"]["value"] > 0
    verified = run_ssdlab("model", "verify", "6", "3", *life, "--db", db, "--json")
    assert verified.code == 0, verified.stderr
    rows = {c["name"]: c for c in json.loads(verified.stdout)["comparison"]}
    assert list(rows) == ["steady-state WAF", "steady-state write IOPS", "days to end of life"]
    assert abs(rows["steady-state WAF"]["relative_error"]) <= 0.05
    assert abs(rows["days to end of life"]["relative_error"]) <= 0.05
    cliff = run_ssdlab("model", "verify", "6", "1", "--db", db, "--json")
    assert cliff.code == 0, cliff.stderr
    rows = {c["name"]: c for c in json.loads(cliff.stdout)["comparison"]}
    assert rows["cliff position"]["error"] == 0.0  # the fit's cache size is this run's cliff
    assert rows["cliff position"]["inside"] is True
    report = run_ssdlab("report", "9", "--db", db)
    assert report.code == 0, report.stderr
    assert "prediction against measurement" in report.stdout
