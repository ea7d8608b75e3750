"""The charts of every report as a reader's browser draws them: HTML reports of quick, fill,
align, simulated-drive, health and endurance runs (`ssdlab report` on a store an earlier
ssdlab wrote), of cache, cachefit, sweep, trim and PTS runs (their reports built from the
profile tests' fixtures), of a run with a thermal chart (two value axes) and `ssdlab
compare`, each opened in headless Chromium 1280 and 390 px wide. Every chart is drawn by
vega-embed from the page's own script, nothing is fetched, nothing is logged to the console,
no two texts of a chart overlap, and hovering a mark shows its value. A screenshot of every
report at each width is kept as a test artefact.

No fio: the runs come from fixtures, so this takes seconds, not minutes."""

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ssdlab.report.html import ReportPart, render_html
from tests.conftest import ROOT
from tests.e2e.browser import chromium, hover_texts, needs_browser, text_overlaps, wait_for_charts
from tests.e2e.conftest import run_ssdlab
from tests.unit.report.test_chart_rules import OLD_STORE, chart_documents

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [needs_browser]
WIDTHS = (1280, 390)
STORE_RUNS = ("1", "4", "5", "11", "13", "14")  # quick, fill, align, sim, health, endurance
FIXTURE_REPORTS = ("cache", "cachefit", "sweep", "trim", "pts", "thermal")
NOTED = ("error", "warning")  # console messages that fail the test (vega logs its warnings)


def artefacts_folder() -> Path:
    """$SSDLAB_TEST_ARTEFACTS, else tests/artefacts/ (not kept in git)."""
    folder = Path(os.environ.get("SSDLAB_TEST_ARTEFACTS") or ROOT / "tests" / "artefacts")
    folder = folder / "charts"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The three HTML files: `report` and `compare` written by ssdlab, and a report of the
    profile fixtures laid out by the same renderer."""
    folder = tmp_path_factory.mktemp("chart-browser")
    store = folder / "store.sqlite"
    shutil.copyfile(OLD_STORE, store)
    out = {"report": folder / "report.html", "compare": folder / "compare.html"}
    done = run_ssdlab("report", *STORE_RUNS, "-o", str(out["report"]), "--db", str(store))
    assert done.code == 0, done.stderr
    done = run_ssdlab("compare", "1", "2", "-o", str(out["compare"]), "--db", str(store))
    assert done.code == 0, done.stderr
    documents = chart_documents()
    parts = [ReportPart(f"run-{name}", documents[name]) for name in FIXTURE_REPORTS]
    out["profiles"] = folder / "profiles.html"
    out["profiles"].write_text(render_html("ssdlab report: profile fixtures", parts))
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator["Browser"]:
    with chromium() as started:
        yield started


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["report", "profiles", "compare"])
def test_charts_draw_readably_and_answer_hover(
    reports: dict[str, Path], browser: "Browser", name: str, width: int
) -> None:
    path = reports[name]
    url = path.resolve().as_uri()
    console: list[str] = []
    requests: list[str] = []
    page = browser.new_page(viewport={"width": width, "height": 900})
    try:
        page.on("console", lambda m: console.extend([m.text] if m.type in NOTED else []))
        page.on("pageerror", lambda e: console.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(url, wait_until="load")
        wait_for_charts(page)
        figures: list[str] = page.eval_on_selector_all("figure.chart", "fs => fs.map(f => f.id)")
        drawn: list[bool] = page.eval_on_selector_all(
            "figure.chart", "fs => fs.map(f => !!f.querySelector('div.vega > svg'))"
        )
        overflow = page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        overlaps = text_overlaps(page)
        hovers = hover_texts(page)
        shot = artefacts_folder() / f"{name}-{width}px.jpeg"
        page.screenshot(path=str(shot), full_page=True, type="jpeg", quality=70)
    finally:
        page.close()
    print(f"\n{name} at {width} px: {len(figures)} charts; screenshot: {shot}")
    assert console == []
    assert [r for r in requests if r != url and not r.startswith("data:")] == []
    assert len(figures) >= 5
    assert all(drawn), [f for f, d in zip(figures, drawn, strict=True) if not d]
    assert overflow <= 0, "the page scrolls sideways"
    assert {figure: found for figure, found in overlaps.items() if found} == {}
    silent = [figure for figure, text in hovers.items() if not re.search(r"\d", text)]
    assert silent == [], "hovering a mark shows no value"
