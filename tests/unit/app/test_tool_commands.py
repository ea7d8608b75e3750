"""`import`, `latency`, `spec`, `doctor` and `sim presets` on the application floor, called
with typed requests as the command line calls them: what they give back, the hints they write
for the store they used, and a store opened only when the command needs it."""

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from ssdlab.app.doctor import DoctorRequest, examine
from ssdlab.app.imports import ImportRequest, import_file
from ssdlab.app.latency import LatencyRequest, latency_of_logs
from ssdlab.app.run_store import open_run_store
from ssdlab.app.sim import list_presets
from ssdlab.app.specs import SpecRequest, spec_sheets
from ssdlab.errors import ParseError, UsageError
from ssdlab.runner.session import Edges, RunSession
from ssdlab.store.db import default_db_path
from tests.conftest import ROOT

CORPUS = ROOT / "tests" / "corpus" / "bench"
PER_IO = ROOT / "tests" / "data" / "fio" / "logs" / "per-io"


def _no_progress() -> object:
    raise AssertionError("no progress is shown")


@pytest.fixture
def session(tmp_path: Path) -> Iterator[RunSession]:
    database = tmp_path / "store.db"
    edges = Edges(progress=_no_progress, hard_exit=lambda _advice: None)  # type: ignore[arg-type]
    made = RunSession(database, lambda: open_run_store(database), edges)
    yield made
    if "conn" in made.__dict__:
        made.conn.close()


def test_an_import_is_stored_and_its_hint_names_the_store(session: RunSession) -> None:
    source = CORPUS / "asssd2.0.7316_samsung-970-evo-plus-250gb.txt"
    request = ImportRequest(file=str(source), database=session.database)
    outcome = import_file(session, request)
    assert outcome.run_id == 1
    assert outcome.document["source_tool"].startswith("AS SSD Benchmark")
    assert outcome.hint == f"'ssdlab show 1 --db {session.database}'"
    default = ImportRequest(file=str(source), database=default_db_path())
    assert import_file(session, default).hint == "'ssdlab show 2'"


def test_a_file_that_does_not_read_opens_no_store(session: RunSession, tmp_path: Path) -> None:
    junk = tmp_path / "junk.txt"
    junk.write_text("nothing a benchmark wrote\n")
    with pytest.raises(ParseError):
        import_file(session, ImportRequest(file=str(junk)))
    assert not session.database.exists()


def test_logs_go_with_fio_json_only(session: RunSession) -> None:
    source = CORPUS / "cdm8_ct2000p3-no-header.txt"
    request = ImportRequest(file=str(source), logs=(str(PER_IO / "job_clat.1.log"),))
    with pytest.raises(UsageError, match="--logs goes with fio JSON"):
        import_file(session, request)


def test_latency_logs_are_a_document() -> None:
    request = LatencyRequest((str(PER_IO / "job_lat.*.log"),), core="python")
    document = latency_of_logs(request)
    assert document.data["files"] == sorted(str(p) for p in PER_IO.glob("job_lat.*.log"))


SHEET = """
vendor = "Acme"
model = "Fast 1"
capacity = "1TB"
tbw_tb = 600
sources = ["https://example.invalid/acme-fast-1.pdf"]
"""


def test_spec_sheets_added_shown_and_listed(tmp_path: Path) -> None:
    database = tmp_path / "store.db"
    opened: list[sqlite3.Connection] = []

    def store() -> sqlite3.Connection:
        opened.append(open_run_store(database))
        return opened[-1]

    bad = tmp_path / "bad.toml"
    bad.write_text(SHEET + "seq_write_mbs = 1\n")
    with pytest.raises(ParseError, match="seq_write_mbs"):
        spec_sheets(store, SpecRequest("add", str(bad)))
    assert opened == []  # a sheet that does not read opens no store
    sheet = tmp_path / "acme.toml"
    sheet.write_text(SHEET)
    added = spec_sheets(store, SpecRequest("add", str(sheet)))
    assert (added.sheets[0].key, added.replaced) == ("acme-fast-1-1tb", False)
    assert spec_sheets(store, SpecRequest("add", str(sheet))).replaced
    shown = spec_sheets(store, SpecRequest("show", "acme-fast-1-1tb"))
    assert shown.document["tbw_bytes"] == 6e14
    listed = spec_sheets(store, SpecRequest("list"))
    assert listed.origins["acme-fast-1-1tb"] == f"added from {sheet}"
    assert listed.origins["samsung-970-evo-500gb"] == "shipped"
    assert listed.document["format"] == "ssdlab-specs"
    assert len(opened) == 4  # once per command
    for conn in opened:
        conn.close()


def test_doctor_opens_the_store_only_to_clean_up(tmp_path: Path) -> None:
    database = tmp_path / "store.db"

    def store() -> sqlite3.Connection:
        raise AssertionError("doctor without --cleanup opened the store")

    outcome = examine(store, DoctorRequest(database, str(tmp_path)))
    assert outcome.cleaned is None
    assert outcome.document["database"] == str(database)
    assert outcome.cleanup_hint == f"'ssdlab doctor --cleanup --db {database}'"


def test_the_preset_hint_names_the_store() -> None:
    listed = list_presets(Path("/srv/lab/ssdlab.db"))
    assert listed.hint == "'ssdlab sim --preset NAME --db /srv/lab/ssdlab.db'"
    assert list_presets(None).hint == "'ssdlab sim --preset NAME'"
    assert [p["name"] for p in listed.document["presets"]] == [p.name for p in listed.presets]
