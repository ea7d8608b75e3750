"""The cache's kind end to end on a drive whose kind is known: a virtual drive (`ssdlab sim
serve`, 32 MiB, 12 % spare, a dynamic SLC cache; tests/e2e/test_model_fit.py's drive) on a
loop device, two `ssdlab run cache --prefill` runs over half of it — from empty, and after
writing 90 % of that half (45 % of the drive) — then `ssdlab model fit` of the two: the
cliff is gone at 45 %, so the cache is dynamic. The virtual drive models no idle time, so
the prefill stays in the cache (docs/model-fit.md, *Cache kind*); a dynamic cache only
shrinks faster for it. The writes are timed by the model (`--time-scale 120`); nothing is
timed by the test: the assertions are on bytes and the kind. About 30 s here."""

import json
from pathlib import Path

from tests.e2e import test_model_fit as served
from tests.e2e.conftest import run_ssdlab
from tests.e2e.test_model_fit import loop_over

# the model fit's virtual drive's marks (FUSE, fio, root, a loop device), less `slow`
pytestmark = [mark for mark in served.pytestmark if mark.name != "slow"]
TIME_SCALE = 120.0  # a 50 ms log point holds about 7 % of the cache: the cliff still shows
WRITE = ["--size", "16MiB", "--log-interval", "0.05", "--iodepth", "8", "--block-size", "16KiB"]


def test_a_dynamic_cache_is_told_from_two_fill_levels(tmp_path: Path) -> None:
    db = str(tmp_path / "db")
    with loop_over(tmp_path, "timed", TIME_SCALE) as (_spec, loop):
        for level in ("0%", "90%"):
            done = run_ssdlab(
                "run", "cache", loop, "--destroy-data", loop, *WRITE, "--prefill", level,
                "--db", db,
            )  # fmt: skip
            assert done.code == 0, done.stderr
    fitted = run_ssdlab("model", "fit", "1", "2", "--db", db, "--json")
    assert fitted.code == 0, fitted.stderr
    body = json.loads(fitted.stdout)
    assert [i["gave"] for i in body["inputs"]] == [
        "cache cliff at 0% full (--prefill)",
        "cache cliff at 45% full (--prefill)",
    ]
    kind = {p["name"]: p for p in body["parameters"]}["cache kind"]
    assert kind["value"] == "dynamic", kind["note"]
    assert "gone at 45% full" in kind["note"]
    assert [s["run_id"] for s in kind["from"]] == [1, 2]
    # verify holds a --prefill run against the cliff predicted at its fill level: here the
    # fit's own input, so the cliff the fit measured there (gone)
    verified = run_ssdlab("model", "verify", "last", "2", "--db", db, "--json")
    assert verified.code == 0, verified.stderr
    prediction = json.loads(verified.stdout)["prediction"]
    assert prediction["fill"] == 0.45
    cliff = {f["name"]: f for f in prediction["figures"]}["cliff position"]
    assert cliff["value"] == 0.0
    assert cliff["basis"].endswith("measured: cache run 2 at 45% full")
