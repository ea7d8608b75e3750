"""`ssdlab compare -o x.html|x.md` of two small real quick runs on files: the charts are there
with one series per run, and their numbers are the runs' own JSON (`quick --json`)."""

import json
import re
import statistics
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from ssdlab.app.compare import CompareRequest, compare_stored
from ssdlab.app.runs import run_of
from ssdlab.model.units import MB
from ssdlab.report.compare import run_label
from ssdlab.report.document import Chart
from ssdlab.store.db import open_store
from tests.conftest import HANG_S, needs_fio
from tests.e2e.conftest import run_ssdlab, start_ssdlab
from tests.unit.report.chart_checks import breaches

pytestmark = needs_fio

# two tests, two passes of 1.5 s: one per-second point a pass
QUICK = ["--size", "8MiB", "--measure", "1.5", "--count", "2", "--interval", "0",
         "--preset", "real", "--mode", "read"]  # fmt: skip
KEYS = ("seq1m-q1t1-read", "rnd4k-q1t1-read")


@pytest.fixture(scope="module")
def runs(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, list[dict[str, Any]], dict[str, Chart]]:
    """Two quick runs into one store, side by side (each on its own folder), and the charts
    `compare` draws of them."""
    where = tmp_path_factory.mktemp("compare")
    db = where / "runs.db"
    started = []
    for name in ("a", "b"):
        (where / name).mkdir()
        started.append(start_ssdlab("quick", str(where / name), *QUICK, "--db", str(db),
                                    "--json"))  # fmt: skip
    documents = []
    for process in started:
        out, err = process.communicate(timeout=HANG_S)
        assert process.returncode == 0, err
        documents.append(json.loads(out))
    return db, documents, _charts(db, documents)


def _charts(db: Path, documents: list[dict[str, Any]]) -> dict[str, Chart]:
    with closing(open_store(db)) as conn:
        ids = tuple(str(d["run"]["id"]) for d in documents)
        document = compare_stored(conn, CompareRequest(ids, threshold_pct=5.0, alpha=0.05)).document
    return {chart.key: chart for chart in document.charts}


def _measured(document: dict[str, Any], key: str) -> list[dict[str, Any]]:
    return [p for p in document["passes"] if p["step_key"] == key and not p["warmup"]]


Runs = tuple[Path, list[dict[str, Any]], dict[str, Chart]]


def test_the_charts_hold_each_runs_own_numbers(runs: Runs) -> None:
    db, documents, charts = runs
    assert set(charts) == {
        "compare-sequential", "compare-random",
        *(f"compare-{key}-{kind}" for key in KEYS
          for kind in ("time", "percentiles", "histogram")),
    }  # fmt: skip
    assert {key: found for key, chart in charts.items() if (found := breaches(chart))} == {}
    with closing(open_store(db)) as conn:
        labels = [run_label(run_of(conn, d["run"]["id"])) for d in documents]
    for chart in charts.values():
        assert [s.label for s in chart.series] == labels, chart.key
    for run, document in enumerate(documents):
        seq = _measured(document, "seq1m-q1t1-read")
        rates = [p["bw_bytes_per_s"] / MB for p in seq]
        bars = charts["compare-sequential"].series[run]
        assert bars.ys[0] == pytest.approx(statistics.median(rates))
        assert bars.errors[0] == pytest.approx((min(rates), max(rates)))
        rnd = _measured(document, "rnd4k-q1t1-read")
        iops = [p["iops"] for p in rnd]
        assert charts["compare-random"].series[run].ys[0] == pytest.approx(statistics.median(iops))
        # the per-second series, passes end to end, as the run's JSON has them
        logged = [s["iops"] for p in rnd for s in p["series"] if s["iops"] is not None]
        assert list(charts["compare-rnd4k-q1t1-read-time"].series[run].ys) == pytest.approx(logged)
        # percentiles: fio's own, of the median pass
        middle = min(rnd, key=lambda p: p["bw_bytes_per_s"])  # of two, the slower
        fio = dict((p, ns) for p, ns in middle["read"]["clat_percentiles_ns"])
        shown = charts["compare-rnd4k-q1t1-read-percentiles"].series[run].ys
        assert list(shown) == pytest.approx([fio[p] / 1e3 for p in (50.0, 90.0, 99.0, 99.9, 99.99)])
        histogram = charts["compare-rnd4k-q1t1-read-histogram"].series[run]
        assert sum(histogram.ys) == pytest.approx(100.0)


def test_compare_writes_the_charts_to_html_and_markdown(runs: Runs, tmp_path: Path) -> None:
    db, documents, charts = runs
    ids = [str(d["run"]["id"]) for d in documents]
    html, md = tmp_path / "x.html", tmp_path / "x.md"
    started = [start_ssdlab("compare", *ids, "--db", str(db), "-o", str(out)) for out in (html, md)]
    for process, out in zip(started, (html, md), strict=True):
        stdout, stderr = process.communicate(timeout=HANG_S)
        assert process.returncode == 0, stderr
        assert f"wrote {out}" in stdout
    page = html.read_text()
    drawn = set(re.findall(r"data-chart='(compare-[^']+)'", page))
    assert drawn == set(charts)
    text = md.read_text()
    images = re.findall(r"!\[([^\]]+)\]\((data:image/svg\+xml;base64,[^)]+)\)", text)
    assert len(images) == len(drawn)
    assert "Sequential tests" in images[0][0]
    refused = run_ssdlab("compare", *ids, "--db", str(db), "-o", str(tmp_path / "x.txt"))
    assert refused.code != 0
    assert "suffix .txt" in refused.stderr
