"""`ssdlab model fit`, `model predict` and `model verify` through the command line on the runs
tests/e2e/test_model_fit.py measured on a virtual drive whose internals are known
(tests/data/store/virtual-drive-fit.sqlite: run 1 `run cache`, runs 2–4 `run endurance`
randwrite-4k over 81 % and 100 % and jesd219-enterprise over 100 %, ten fills each from a
discarded drive, through fio and a loop device over `ssdlab sim serve`). No fio, no root:
a few seconds. The prediction of a range no run wrote is held against the drive's own
configuration simulated; verify against the runs themselves. In process, as
tests/e2e/test_documented_examples.py runs the commands."""

import json
import shutil
from pathlib import Path

import pytest

from ssdlab.app.sim_setup import build_config, parse_pct
from tests.abuse.probes import ssdlab_in_process
from tests.e2e.conftest import ROOT
from tests.e2e.test_model_fit import DRIVE, truth_waf

STORE = ROOT / "tests" / "data" / "store" / "virtual-drive-fit.sqlite"
CONFIG = build_config(DRIVE, None, parse_pct(str(DRIVE.spare), "--spare"))
LIFE = ("--daily", "1GB", "--pe-cycles", "3000")


def _json(*words: str) -> dict:
    code, out, err = ssdlab_in_process(*words, "--json")
    assert code == 0, err
    body: dict = json.loads(out)
    return body


def test_fit_predict_and_verify_a_virtual_drive_from_its_stored_runs(tmp_path: Path) -> None:
    db = str(tmp_path / "store.sqlite")
    shutil.copyfile(STORE, db)
    fit = _json("model", "fit", "1", "2", "3", "4", "--db", db)
    assert fit["simulator"]["gc_policy_fitted"] == "greedy"
    assert fit["simulator"]["capacity_bytes"] == CONFIG.logical_bytes
    # half the drive: no run wrote it
    predicted = _json("model", "predict", "last", "randwrite-4k", "--span", "50%", *LIFE,
                      "--db", db)  # fmt: skip
    figures = {f["name"]: f for f in predicted["figures"]}
    waf = figures["steady-state WAF"]
    truth = truth_waf(CONFIG, 0.5)
    assert abs(waf["value"] / truth - 1) <= 0.05
    assert waf["low"] <= truth <= waf["high"]
    days = figures["days to end of life"]
    assert days["low"] <= days["value"] <= days["high"]
    # a TBW rating is taken at JESD219 over the whole drive: that workload lasts TBW ÷ daily
    rated = _json("model", "predict", "last", "jesd219-enterprise", "--daily", "1GB", "--tbw",
                  "1TB", "--db", db)  # fmt: skip
    days = {f["name"]: f for f in rated["figures"]}["days to end of life"]
    assert days["value"] == pytest.approx(1000.0)
    for run in ("2", "3", "4"):
        verified = _json("model", "verify", "last", run, *LIFE, "--db", db)
        rows = {c["name"]: c for c in verified["comparison"]}
        assert abs(rows["steady-state WAF"]["relative_error"]) <= 0.05, run
        assert rows["steady-state WAF"]["inside"] is True, run
        assert rows["days to end of life"]["inside"] is True, run
    cache = _json("model", "verify", "last", "1", "--db", db)
    rows = {c["name"]: c for c in cache["comparison"]}
    assert rows["cliff position"]["error"] == 0.0  # the fit's cache size is this run's cliff
    assert rows["post-cliff throughput"]["inside"] is True
    code, out, err = ssdlab_in_process("report", str(cache["run"]["id"]), "--db", db,
                                       "--format", "md")  # fmt: skip
    assert code == 0, err
    assert "prediction against measurement" in out
    assert "| cliff position |" in out


def test_fill_predicts_the_cliff_on_a_part_full_drive_and_refuses_a_full_one(
    tmp_path: Path,
) -> None:
    """The stored cache run has no fill level, so the fit has no cache kind: on a drive 60 %
    full the cliff is a range (a dynamic cache's to a static one's), no value, and the run to
    add; without --fill every figure is as before, the fill 0 in the JSON."""
    db = str(tmp_path / "store.sqlite")
    shutil.copyfile(STORE, db)
    _json("model", "fit", "1", "--db", db)
    empty = _json("model", "predict", "last", "seq-128k", "--db", db)
    full = _json("model", "predict", "last", "seq-128k", "--fill", "60%", "--db", db)
    assert empty["fill"] == 0.0
    assert full["fill"] == 0.6
    before = {f["name"]: f for f in empty["figures"]}
    after = {f["name"]: f for f in full["figures"]}
    assert {n: f for n, f in after.items() if n != "cliff position"} == {
        n: f for n, f in before.items() if n != "cliff position"
    }
    size, cliff = before["cliff position"], after["cliff position"]
    assert size["value"] > 0
    assert cliff["value"] is None
    assert cliff["low"] < size["low"]
    assert cliff["high"] >= size["high"]
    assert cliff["reason"].startswith("cache kind not fitted: on a drive 60% full")
    assert cliff["needs"].endswith("--prefill 90% --prefill-idle 300")
    assert _json("model", "predict", "last", "seq-128k", "--fill", "60", "--db", db)["fill"] == 0.6
    code, out, err = ssdlab_in_process("model", "predict", "last", "seq-128k", "--fill", "60%",
                                       "--db", db, "--width", "400")  # fmt: skip
    assert code == 0, err
    assert "cliff position: a range only — cache kind not fitted: on a drive 60% full" in out
    assert "drive fill: 60% written before the workload" in out
    for bad in ("100", "-1"):
        code, _out, err = ssdlab_in_process("model", "predict", "last", "seq-128k", "--fill",
                                            bad, "--db", db)  # fmt: skip
        assert code == 2
        assert (
            f"error: argument --fill: '{bad}' must be from 0 to 99% (a full drive has no free "
            "space left)" in err
        )
