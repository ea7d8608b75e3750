"""`ssdlab report` opened in real headless Chromium: every chart drawn (by the page's own
script, from its Vega-Lite definition), nothing fetched, no console errors; readable on a
phone-sized screen; printable to PDF. Also `compare` on two real
quick runs, and the Markdown report with its chart files.

Nothing here depends on how fast the machine's disk is: the cache runs are capped with
`--rate`, so each write lasts a known number of log intervals on any disk faster than the cap
(a 256 MiB write that took 0.5 s on a fast disk once left too few points for its section); nor
on its load: a capped write that left too few points (fio ran late) is made again, longer.
"""

import contextlib
import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ssdlab.report.chart_spec import SCHEMA_URL as CHART_SCHEMA
from ssdlab.system.filetarget import probe_direct_io
from tests.conftest import HANG_S, ROOT, needs_fio
from tests.e2e.browser import chromium, needs_browser, visit, wait_for_charts
from tests.e2e.conftest import run_ssdlab, start_ssdlab

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [needs_fio, pytest.mark.slow]
# passes longer than fio's 1 s log interval, so the time series have points; reads and
# writes (the mix tests add nothing the report tests look at)
QUICK = [
    "--size",
    "8MiB",
    "--measure",
    "1.1",
    "--count",
    "3",
    "--interval",
    "0",
    "--preset",
    "real",
    "--mode",
    "read,write",
]
HEALTH_LOG = ROOT / "tests" / "data" / "smart-text" / "cron-mx500-date-A.log"
# 32 MiB at most 16 MiB/s in 64 KiB blocks (~26 per 0.1 s interval, so each point is smooth):
# about 2 s, 17 to 20 points whatever the disk, enough for the cliff search
CACHE = ["--size", "32MiB", "--block-size", "64KiB", "--log-interval", "0.1"]
# fio logs a point when it gets to run after an interval: on a loaded machine it runs late and
# one point covers several intervals. A write that left too few points for the search is made
# again at half the rate (twice as long): the fixture waits for a write long enough to search.
CACHE_RATES = ("16MiB", "8MiB", "4MiB", "2MiB")
# 3 MiB at most 4 MiB/s, logged every 0.25 s: 2 or 3 points, too few for a cliff on any disk
# faster than 1.2 MiB/s (10 points would take 2.5 s)
SHORT_CACHE = ["--size", "3MiB", "--rate", "4MiB", "--block-size", "64KiB", "--log-interval",
               "0.25"]  # fmt: skip


def buffered_if_needed(folder: Path) -> list[str]:
    """`--buffered` where the file system refuses O_DIRECT (tmpfs), else nothing."""
    return [] if probe_direct_io(folder) is None else ["--buffered"]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with two quick runs, a cache run, a sweep run, a health series and a cache run
    too short for a cliff: real fio.

    The two quick runs (alike, so which one is run 1 does not matter) run at once, each on its
    own test file: their passes are time-based, so this halves the fixture's longest part. The
    capped cache runs, whose point counts depend on their write rate, run alone after them."""
    folder = tmp_path_factory.mktemp("report")
    db = folder / "ssdlab.db"
    buffered = buffered_if_needed(folder)
    logs = [tmp_path_factory.mktemp("quick-output") / "output.txt" for _ in range(2)]
    with contextlib.ExitStack() as files:
        quick = [
            start_ssdlab(
                "quick", str(folder), *QUICK, *buffered, "--db", str(db),
                output=files.enter_context(log.open("w")).fileno(),
            )
            for log in logs
        ]  # fmt: skip
        for child in quick:
            child.wait(timeout=HANG_S)
    for child, log in zip(quick, logs, strict=True):
        assert child.returncode == 0, log.read_text()
    _add_a_cache_run_long_enough(db, folder, buffered)
    for argv in (
        ["run", "sweep", str(folder), "--size", "16MiB", "--threads", "1,2", "--iodepths",
         "1,4", "--runtime", "0.3", "--ramp", "0", *buffered],
        ["health", "--import", str(HEALTH_LOG)],
        ["run", "cache", str(folder), *SHORT_CACHE, *buffered],
    ):  # fmt: skip
        done = run_ssdlab(*argv, "--db", str(db))
        assert done.code == 0, (argv, done.stderr)
    return db


def _add_a_cache_run_long_enough(db: Path, folder: Path, buffered: list[str]) -> None:
    """The capped cache run, as the store's next run: made on a copy of the store at each of
    CACHE_RATES until its write left enough log points for the cliff search; that copy then
    becomes the store."""
    for rate in CACHE_RATES:
        attempt = folder / f"attempt-{rate}.db"
        with (
            contextlib.closing(sqlite3.connect(db)) as source,
            contextlib.closing(sqlite3.connect(attempt)) as copy,
        ):
            source.backup(copy)
        done = run_ssdlab("run", "cache", str(folder), *CACHE, "--rate", rate, *buffered,
                          "--db", str(attempt))  # fmt: skip
        assert done.code == 0, done.stderr
        with contextlib.closing(sqlite3.connect(attempt)) as conn:
            (body,) = conn.execute(
                "SELECT body_json FROM findings WHERE name = 'cache-cliff'"
            ).fetchone()
        if json.loads(body)["short"] is None:
            attempt.replace(db)
            return
    raise AssertionError(f"no cache write left enough log points at {CACHE_RATES[-1]}/s")


@pytest.fixture(scope="module")
def browser() -> Iterator["Browser"]:
    """One Chromium for the module's pages (each test opens its own page)."""
    with chromium() as started:
        yield started


@needs_browser
def test_html_report_in_chromium(store: Path, browser: "Browser", tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    done = run_ssdlab("report", *"123456", "-o", str(out), "--db", str(store))
    assert done.code == 0, done.stderr
    html = out.read_text()
    # outside the chart library (whose code names the SVG namespace's URL), no address at all
    markup = re.sub(r"<script>.*?</script>", "", html, flags=re.DOTALL)
    assert "http://" not in markup
    assert "https://" not in markup.replace("https://github.com", "").replace(CHART_SCHEMA, "")
    page = visit(browser, out)
    (tmp_path / "report.png").write_bytes(page.screenshot_png)
    assert page.console_errors == []
    assert page.page_errors == []
    assert page.external_requests == []
    assert page.duplicate_ids == 0
    keys = {chart.key for chart in page.charts}
    for expected in (
        "quick-bars",
        "quick-passes",
        "quick-series-mbps",
        "quick-series-iops",
        "quick-series-latency",
        "quick-latency-percentiles",
        "cache-cliff",
        "sweep-heatmap-",
        "health-host-written",
    ):
        assert any(key.startswith(expected) for key in keys), (expected, sorted(keys))
    for chart in page.charts:
        assert chart.natural_width > 100, chart
        assert chart.natural_height > 100, chart
        assert chart.shown_width > 100, chart
        assert chart.shown_height > 50, chart
        assert chart.distinct_colours > 20, chart  # something is drawn, not a blank box
    assert len(page.screenshot_png) > 50_000
    # headline numbers first, then sections, job files, provenance
    text = page.text
    assert text.index("SEQ1M Q1T1") < text.index("Spread of the passes")
    assert "fio job files" in text
    assert "Provenance" in text
    # the capped cache write: long enough to search, one level (a file: no cliff invented)
    assert "no cliff in" in text
    assert "Segments of the write" in text
    # the short one says in words why it has no verdict, on the page a reader sees
    assert "fewer than the 10 the cliff detection needs" in text
    assert "unknown: the write was too short to find a cliff" in text


def test_capped_cache_write_logs_a_known_number_of_points(store: Path) -> None:
    """--rate makes the write's length, so its point count, independent of the disk."""
    with sqlite3.connect(store) as conn:
        rows = conn.execute(
            "SELECT r.id, COUNT(s.step_result_id) FROM runs r"
            " JOIN step_results sr ON sr.run_id = r.id"
            " LEFT JOIN series s ON s.step_result_id = sr.id"
            " WHERE r.profile = 'cache' GROUP BY r.id ORDER BY r.id"
        ).fetchall()
        bodies = [
            json.loads(body)
            for (body,) in conn.execute(
                "SELECT body_json FROM findings WHERE name = 'cache-cliff' ORDER BY run_id"
            )
        ]
    (capped, points), (short, short_points) = rows
    assert (capped, short) == (3, 6)
    assert points >= 10, points  # what the cliff search needs
    assert short_points < 10, short_points
    assert bodies[0]["short"] is None
    assert bodies[0]["cliff_bytes"] is None
    assert bodies[1]["short"]["points"] == short_points
    assert bodies[1]["short"]["write_s"] > 0


@needs_browser
def test_html_report_fits_a_phone_and_prints(
    store: Path, browser: "Browser", tmp_path: Path
) -> None:
    out = tmp_path / "report.html"
    assert run_ssdlab("report", "1", "2", "-o", str(out), "--db", str(store)).code == 0
    assert "Against run 1" in out.read_text()  # two quick runs: their comparison up front
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.goto(out.resolve().as_uri())
        wait_for_charts(page)
        overflow = page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, "the page scrolls sideways on a phone"
        widths = page.evaluate(
            "() => [...document.querySelectorAll('div.vega[data-chart] svg')]"
            ".map(i => i.getBoundingClientRect().right)"
        )
        assert widths
        assert max(widths) <= 390
        pdf = page.pdf(format="A4")
    finally:
        page.close()
    assert pdf.startswith(b"%PDF")
    assert len(pdf) > 20_000


def test_markdown_report_embeds_its_charts(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "result.md"
    done = run_ssdlab("report", "1", "3", "-o", str(out), "--db", str(store))
    assert done.code == 0, done.stderr
    text = out.read_text()
    assert text.startswith("# ssdlab report: runs 1, 3")
    assert [p.name for p in tmp_path.iterdir()] == ["result.md"]  # no chart folder
    assert "](data:image/svg+xml;base64," in text
    assert "<details><summary>test file preparation</summary>" in text
    assert "```ini" in text


def test_compare_two_real_quick_runs(store: Path) -> None:
    done = run_ssdlab("compare", "1", "2", "--json", "--db", str(store))
    assert done.code == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["format"] == "ssdlab-compare"
    assert doc["baseline_run"] == 1
    changes = doc["comparisons"][0]["changes"]
    assert {c["metric"] for c in changes} >= {"seq1m-q1t1-read", "rnd4k-q1t1-write-lat"}
    for change in changes:
        assert len(change["baseline"]["values"]) == 3  # the three measured passes, no warm-up
        assert change["verdict"] in ("better", "worse", "not significant")
    terminal = run_ssdlab("compare", "1", "2", "--db", str(store))
    assert terminal.code == 0
    assert "Against run 1" in terminal.stdout


def test_compare_fail_if_gates_on_a_regression(store: Path) -> None:
    # a real breach is pinned with imported results (test_import_cli.py); here: the refusals
    ok = run_ssdlab("compare", "1", "2", "--fail-if", "seq1m-q1t1-read:-99%", "--db", str(store))
    assert ok.code == 0, ok.stderr
    unknown = run_ssdlab("compare", "1", "2", "--fail-if", "nope:-5%", "--db", str(store))
    assert unknown.code == 2
    assert "matches no metric" in unknown.stderr
    bad = run_ssdlab("compare", "1", "2", "--fail-if", "seq1m-q1t1-read:5", "--db", str(store))
    assert bad.code == 2
    assert "METRIC:-5%" in bad.stderr
    mixed = run_ssdlab("compare", "1", "3", "--db", str(store))
    assert mixed.code == 2
    assert "same profile" in mixed.stderr
