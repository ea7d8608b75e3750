"""`ssdlab model fit`, `model predict` and `model verify` on a drive that reports no NAND
writes (most consumer SATA and NVMe drives): the runs of tests/data/store/virtual-drive-fit.sqlite
(a cache run and three endurance runs through fio and a loop device over `ssdlab sim
serve`) with every health reading's NAND-written counter (and the OCP C0h erase counts that
come with it) taken out, as a drive without the C0h page reports them. The fit still gives
the cache and its rates, leaves spare and GC class None with the reason; predict gives the
cliff and throughput as fitted and WAF, IOPS and days as an assumed range only; verify says
WAF and days cannot be verified on this drive. No fio, no root: a few seconds."""

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from ssdlab.analysis.model_predict import SPARE_PRIOR
from tests.abuse.probes import ssdlab_in_process
from tests.e2e.test_model_fit import truth_waf
from tests.e2e.test_model_predict import CONFIG, LIFE, STORE, _json

WITHOUT_NAND = ("nand_written_bytes", "erase_count_avg", "erase_count_max", "erase_count_min")


def nandless_store(path: Path) -> str:
    """A copy of the virtual drive's store whose health readings hold no NAND counter."""
    shutil.copyfile(STORE, path)
    conn = sqlite3.connect(path)
    with conn:
        rows = conn.execute("SELECT id, sample_json FROM health_samples").fetchall()
        assert rows
        for sample_id, text in rows:
            sample = json.loads(text)
            for key in WITHOUT_NAND:
                sample[key] = {"provenance": None, "value": None}
            sample["sources"] = [s for s in sample.get("sources", []) if "OCP" not in s]
            conn.execute(
                "UPDATE health_samples SET sample_json = ?, nand_written_bytes = NULL WHERE id = ?",
                (json.dumps(sample), sample_id),
            )
    conn.close()
    return str(path)


def _by_name(rows: list) -> dict:
    return {r["name"]: r for r in rows}


@pytest.mark.parametrize("runs", [("1",), ("1", "2", "3", "4")])
def test_fit_without_a_nand_counter_gives_the_cache_and_says_why_not_the_spare(
    tmp_path: Path, runs: tuple[str, ...]
) -> None:
    db = nandless_store(tmp_path / "store.sqlite")
    fit = _json("model", "fit", *runs, "--db", db)
    assert fit["nand_counter"] is False
    params = _by_name(fit["parameters"])
    assert params["cache size"]["value"] == pytest.approx(12.06e6, rel=0.01)  # as with C0h
    assert params["SLC write rate"]["value"] is not None
    assert params["native write rate"]["value"] is not None
    for name in ("spare (of logical)", "GC class"):
        assert params[name]["value"] in (None, "unknown"), name
        assert params[name]["needs"] is None, name  # no run on this drive would give it
        assert "reports no NAND writes" in params[name]["note"], name
    assert fit["simulator"]["spare_of_logical"] is None


def test_predict_and_verify_without_a_nand_counter(tmp_path: Path) -> None:
    db = nandless_store(tmp_path / "store.sqlite")
    _json("model", "fit", "1", "2", "3", "4", "--db", db)
    predicted = _json("model", "predict", "last", "randwrite-4k", *LIFE, "--db", db)
    figures = _by_name(predicted["figures"])
    assert figures["cliff position"]["value"] == pytest.approx(12.06e6, rel=0.01)
    assert figures["post-cliff throughput"]["value"] is not None
    assert figures["post-cliff throughput"]["assumed"] is False
    alpha = predicted["parameters"]["alpha"]
    assert (alpha["low"], alpha["high"]) == pytest.approx((1 + SPARE_PRIOR[0], 1 + SPARE_PRIOR[1]))
    for name in ("steady-state WAF", "steady-state write IOPS", "days to end of life"):
        f = figures[name]
        assert f["value"] is None, name  # never a number presented as fitted
        assert f["assumed"] is True, name
        assert f["low"] < f["high"], name
        assert "assumed, not fitted" in f["reason"], name
    # uniform 4 KiB over the whole drive: 28 % spare writes ~2.5×, 6 % ~10× (reference/ftl.md)
    waf = figures["steady-state WAF"]
    assert waf["low"] < 3.0
    assert waf["high"] > 8.0
    verified = _json("model", "verify", "last", "2", *LIFE, "--db", db)
    assert {c["name"] for c in verified["cannot_verify"]} == {
        "steady-state WAF",
        "days to end of life",
    }
    rows = _by_name(verified["comparison"])
    for name in ("steady-state WAF", "days to end of life"):
        assert rows[name]["measured"]["value"] is None, name
        assert "cannot be verified" in rows[name]["reason"], name
        assert rows[name]["inside"] is None, name
    assert rows["steady-state write IOPS"]["measured"]["value"] is not None
    cache = _json("model", "verify", "last", "1", "--db", db)
    rows = _by_name(cache["comparison"])
    assert rows["cliff position"]["error"] == 0.0  # what the drive allows is still verified
    assert rows["post-cliff throughput"]["inside"] is True
    assert {c["name"] for c in cache["cannot_verify"]} == {
        "steady-state WAF",
        "days to end of life",
    }
    code, out, err = ssdlab_in_process("report", str(verified["run"]["id"]), "--db", db,
                                       "--format", "md")  # fmt: skip
    assert code == 0, err
    assert "cannot be verified on this drive: steady-state WAF" in out


def test_an_assumed_spare_narrows_the_range_and_is_refused_when_the_spare_was_fitted(
    tmp_path: Path,
) -> None:
    """The served drive (12 % spare, greedy) lies in the default range and in a narrower one
    the user assumes; a fit that measured the spare refuses the assumption."""
    db = nandless_store(tmp_path / "store.sqlite")
    _json("model", "fit", "1", "2", "3", "4", "--db", db)
    truth = truth_waf(CONFIG, 1.0)
    wide = _by_name(_json("model", "predict", "last", "randwrite-4k", "--db", db)["figures"])
    given = _json("model", "predict", "last", "randwrite-4k", "--assume-spare", "10%-14%",
                  "--db", db)  # fmt: skip
    narrow = _by_name(given["figures"])["steady-state WAF"]
    assert wide["steady-state WAF"]["low"] <= truth <= wide["steady-state WAF"]["high"]
    assert narrow["low"] <= truth <= narrow["high"]
    assert (
        narrow["high"] - narrow["low"]
        < (wide["steady-state WAF"]["high"] - wide["steady-state WAF"]["low"]) / 4
    )
    assert "given by --assume-spare" in narrow["reason"]
    assert given["parameters"]["alpha"]["low"] == pytest.approx(1.10)
    fitted = str(tmp_path / "fitted.sqlite")
    shutil.copyfile(STORE, fitted)
    _json("model", "fit", "1", "2", "3", "--db", fitted)
    code, _out, err = ssdlab_in_process("model", "predict", "last", "randwrite-4k",
                                        "--assume-spare", "12%", "--db", fitted)  # fmt: skip
    assert code != 0
    assert "measured the spare" in err
