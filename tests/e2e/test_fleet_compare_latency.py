"""`ssdlab fleet compare` gives the latency of a model's drives together from their stored
per-second histograms (issue #32): two nodes' stores, each with a quick run made by the real
ssdlab and fio, merged into one seat store as `fleet collect` copies them, then compared. The
merged histograms are checked against the nodes' own rows (every I/O of both counted once,
bucket by bucket); tails are given only where the I/Os support them."""

import json
import sqlite3
from collections import Counter
from pathlib import Path

from ssdlab.analysis.tail_intervals import needs_ios
from ssdlab.fleet.collect import MergeRequest, merge_export
from tests.conftest import needs_fio
from tests.e2e.conftest import run_ssdlab

pytestmark = needs_fio

# FAST's 0.3 s passes log no histogram (fio writes one when a whole second has passed)
QUICK = ["--size", "8MiB", "--measure", "1.5", "--count", "1", "--interval", "0"]
QUICK += ["--preset", "real", "--mode", "read"]


def _ios_by_test(db: Path) -> Counter[tuple[str, str]]:
    conn = sqlite3.connect(db)
    found: Counter[tuple[str, str]] = Counter()
    for key, direction, ios in conn.execute(
        "SELECT r.step_key, h.direction, h.ios FROM step_histograms h"
        " JOIN step_results r ON r.id = h.step_result_id WHERE r.discarded = 0"
    ):
        found[key, direction] += ios
    conn.close()
    return found


def test_two_nodes_quick_runs_give_fleet_wide_latency_from_merged_histograms(
    tmp_path: Path,
) -> None:
    nodes = {}
    for host in ("lab-1", "lab-2"):
        db = tmp_path / f"{host}.sqlite"
        folder = tmp_path / host
        folder.mkdir()
        done = run_ssdlab("quick", str(folder / "test.tmp"), *QUICK, "--db", str(db))
        assert done.code == 0, done.stderr
        nodes[host] = db
    seat = tmp_path / "seat.sqlite"
    for host, db in nodes.items():
        merged = merge_export(MergeRequest(db, host, seat))
        assert (len(merged.added), merged.refused) == (1, ())

    done = run_ssdlab("fleet", "compare", "--db", str(seat), "--json")
    assert done.code == 0, done.stderr
    document = json.loads(done.stdout)
    (group,) = document["groups"]
    assert len(group["drives"]) == 2
    expected = _ios_by_test(nodes["lab-1"]) + _ios_by_test(nodes["lab-2"])
    tests = {entry["test"]: entry for entry in group["latency"]}
    assert set(tests) == {key for key, _ in expected}
    for (key, direction), ios in expected.items():
        entry = tests[key]
        assert (entry["drives"], entry["passes"]) == (2, 2)
        data = entry["directions"][direction]
        assert data["ios"] == ios
        assert sum(s["ios"] for s in data["seconds"]) == ios
        for second in data["seconds"]:
            values = second["percentiles_ns"]
            assert values["50"] is not None
            for pct in ("99", "99.9"):
                if second["ios"] < needs_ios(float(pct)):
                    assert values[pct] is None
        for pct in ("99", "99.9"):
            tail = data["tails"][pct]
            assert tail["n"] == ios
            assert tail["estimable"] == (ios >= needs_ios(float(pct)))

    text = run_ssdlab("fleet", "compare", "--db", str(seat), "--width", "200")
    assert text.code == 0, text.stderr
    assert "latency of 2 drive(s) together, 2 passes merged" in text.stdout
    assert "whole run" in text.stdout
    assert "never an average of the drives' percentiles" in " ".join(text.stdout.split())

    # the fleet's report: the same document as one HTML page (or Markdown) with a chart of
    # each test's merged latency per second
    page = tmp_path / "fleet.html"
    wrote = run_ssdlab("fleet", "compare", "--db", str(seat), "-o", str(page))
    assert wrote.code == 0, wrote.stderr
    html = page.read_text()
    for key in tests:
        assert f"{key}: latency of 2 drive(s) together, per second" in html
    markdown = tmp_path / "fleet.md"
    assert run_ssdlab("fleet", "compare", "--db", str(seat), "-o", str(markdown)).code == 0
    assert "data:image/svg+xml" in markdown.read_text()
    refused = run_ssdlab("fleet", "compare", "--db", str(seat), "-o", str(tmp_path / "f.txt"))
    assert refused.code == 2
    assert "names no format" in refused.stderr
    assert not (tmp_path / "f.txt").exists()
