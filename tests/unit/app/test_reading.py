"""The reading use cases of the application floor (app/), called as the command line calls
them, with typed requests, on a copy of the store an earlier ssdlab wrote (tests/data/store:
quick runs, profile runs, imports, a simulation, health imports, an endurance run)."""

import csv
import io
import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from ssdlab.app.card import CardRequest, card_of
from ssdlab.app.compare import CompareRequest, compare_stored
from ssdlab.app.export import ExportRequest, export_run
from ssdlab.app.listing import ListingRequest, list_stored_runs, run_label
from ssdlab.app.report import ReportRequest, build_report
from ssdlab.app.run_store import open_run_store
from ssdlab.app.runs import run_document, run_metrics, shown_document, stored_run
from ssdlab.app.show import ShowRequest, show_run
from ssdlab.errors import SsdlabError, UsageError
from ssdlab.report.document import Layout
from ssdlab.store.listing import RunFilter, RunListing
from tests.conftest import ROOT

OLD_STORE = ROOT / "tests" / "data" / "store" / "main-98b38bc.sqlite"


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite3.Connection]:
    copy = tmp_path_factory.mktemp("old-store") / "store.sqlite"
    shutil.copyfile(OLD_STORE, copy)
    opened = open_run_store(Path(copy))
    try:
        yield opened
    finally:
        opened.close()


@pytest.mark.parametrize("run_id", range(1, 15))
def test_every_run_has_a_document_a_shown_document_and_metrics(
    conn: sqlite3.Connection, run_id: int
) -> None:
    stored = stored_run(conn, run_id)
    document, shown = run_document(stored), shown_document(stored)
    assert document.sections or document.verdict
    assert json.loads(json.dumps(shown.data, default=str))
    passes = stored.run.kind in ("quick", "import")
    assert shown.layout is (Layout.RESULTS if passes else Layout.REPORT)
    metrics = run_metrics(stored)
    measured = {s.step_key for s in stored.steps if not s.discarded}
    assert {m.key for m in metrics} >= measured  # throughput per test, latency where known


def test_show_gives_the_run_its_document_and_its_job_files(conn: sqlite3.Connection) -> None:
    shown = show_run(conn, ShowRequest("1", jobs=True))
    assert shown.run.run_id == 1
    assert shown.document.title == f"ssdlab run 1 — {shown.run.target_path}"
    assert shown.jobs
    assert all(job.text.lstrip().startswith((";", "[")) for job in shown.jobs)
    assert show_run(conn, ShowRequest("last")).run.run_id == 14
    assert show_run(conn, ShowRequest("4")).jobs == ()  # not asked for


def test_a_run_the_store_does_not_hold_is_a_usage_error(conn: sqlite3.Connection) -> None:
    with pytest.raises(UsageError, match="there is no run 99 in the store"):
        show_run(conn, ShowRequest("99"))
    with pytest.raises(UsageError, match="'x' is not a run id"):
        show_run(conn, ShowRequest("x"))


def _header(text: str) -> list[str]:
    return next(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize(
    ("run_id", "first_columns"),
    [(1, ["run_id", "test"]), (4, ["run_id", "step_key"]), (12, ["run_id", "phase"])],
)
def test_export_csv_writes_the_main_table_of_the_runs_kind(
    conn: sqlite3.Connection, run_id: int, first_columns: list[str]
) -> None:
    text = export_run(conn, ExportRequest(str(run_id), "csv"))
    assert _header(text)[:2] == first_columns


def test_export_refuses_what_a_kind_does_not_have(conn: sqlite3.Connection) -> None:
    with pytest.raises(SsdlabError, match="--format cdm is CrystalDiskMark's text of a quick run"):
        export_run(conn, ExportRequest("4", "cdm"))
    with pytest.raises(SsdlabError, match=r"run 4 \(fill\) has no passes table"):
        export_run(conn, ExportRequest("4", "csv", "passes"))
    with pytest.raises(SsdlabError, match="--table chooses a CSV table"):
        export_run(conn, ExportRequest("4", "json", "steps"))
    assert export_run(conn, ExportRequest("9", "cdm")).startswith("-" * 78)


def test_compare_reads_each_runs_metrics_through_its_record(conn: sqlite3.Connection) -> None:
    compared = compare_stored(conn, CompareRequest(("1", "9")))
    assert [r.run_id for r in compared.runs] == [1, 9]
    assert compared.failures == ()
    # the CrystalDiskMark import kept the best pass of each test: compared like for like
    assert compared.document.data["runs"][1]["kind"] == "import"
    with pytest.raises(UsageError, match="compare runs of the same profile; run 1 is quick"):
        compare_stored(conn, CompareRequest(("1", "4")))
    with pytest.raises(UsageError, match="compare needs at least two runs"):
        compare_stored(conn, CompareRequest(("1",)))


def test_a_report_of_runs_of_every_kind_is_one_markdown_file(conn: sqlite3.Connection) -> None:
    text = build_report(conn, ReportRequest(("1", "4", "11", "13", "14"), format="md"))
    assert text.startswith("# ssdlab report: runs 1, 4, 11, 13, 14")
    provenance = [line for line in text.splitlines() if line.startswith("- run id: ")]
    assert provenance == [f"- run id: {run_id}" for run_id in (1, 4, 11, 13, 14)]
    assert "## Fill level" in text  # each run's document as its kind lays it out


def test_a_card_is_drawn_for_quick_runs_and_benchmark_imports(conn: sqlite3.Connection) -> None:
    assert card_of(conn, CardRequest("9")).rows
    with pytest.raises(SsdlabError, match="run 4 is a fill run; cards are drawn for quick"):
        card_of(conn, CardRequest("4"))


def test_a_listing_is_one_page_and_how_many_more_match(conn: sqlite3.Connection) -> None:
    listing = list_stored_runs(conn, ListingRequest(limit=5))
    assert [r.run_id for r in listing.runs] == [14, 13, 12, 11, 10]
    assert listing.more == 9
    assert not listing.filtered
    imports = list_stored_runs(conn, ListingRequest(RunFilter(profile="import"), limit=50))
    labels = [run_label(r) for r in imports.runs if isinstance(r, RunListing)]
    assert labels == ["import", "import", "import (KDM 3)", "import (CDM 8)"]
    assert imports.filtered
    assert imports.more == 0
