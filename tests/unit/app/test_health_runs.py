"""`health`, `wear` and `watch` on the application floor, called with typed requests as the
command line calls them: what they store, and that a saved file's drive is stored as the
file's, never as a drive of the machine that read it."""

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from ssdlab.analysis.alerts import Alert, Thresholds
from ssdlab.app.health import HealthRequest, check_health
from ssdlab.app.health_readings import FILE_PHASE, SavedReading
from ssdlab.app.run_store import open_run_store
from ssdlab.app.runs import shown_document, stored_run
from ssdlab.app.watch import WatchRequest, start_watch
from ssdlab.app.wear import WearRequest, compare_wear
from ssdlab.errors import UsageError
from ssdlab.model.run import RunKind, RunStatus
from ssdlab.model.target import TargetKind
from ssdlab.runner.session import Edges, RunSession
from ssdlab.store.listing import RunFilter, list_run_listings
from ssdlab.store.merge import copy_runs
from tests.conftest import ROOT
from tests.replay_logs import wear_series, write_log

TEXT = ROOT / "tests" / "data" / "smart-text"
SMART = ROOT / "tests" / "data" / "smart"


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


def test_a_saved_file_is_stored_as_the_files_drive(session: RunSession) -> None:
    outcome = check_health(session, HealthRequest(str(TEXT / "samsung-860evo-x.txt")))
    (sample_id,) = outcome.sample_ids
    assert outcome.document["sample"]["sample_id"] == sample_id
    stored = stored_run(session.conn, 1)
    run = stored.run
    assert (run.kind, run.profile, run.target_kind) == (
        RunKind.IMPORT, "import", TargetKind.IMPORT,
    )  # fmt: skip
    assert run.target["path"] == str(TEXT / "samsung-860evo-x.txt")
    assert run.target["read_from_file"] is True
    device = run.target["device"]
    assert isinstance(device, dict)
    identity = stored.health[0][1].identity
    assert (device["model"], device["serial"]) == (identity.model, identity.serial)
    assert device["model"]
    assert device["path"] is None  # no device node of this machine
    # the machine that read the file is where the run was made, not what measured the drive
    assert run.host == socket.gethostname()
    assert set(run.environment) == {"ssdlab_version", "python_version"}
    assert [phase for phase, _ in stored.health] == [FILE_PHASE]
    shown = shown_document(stored)
    notes = [note for section in shown.sections for note in section.notes]
    assert any(note.startswith(f"device: {device['model']} (path n/a") for note in notes)
    assert not any(socket.gethostname() in note for note in notes)


def test_a_collected_file_reading_stays_a_reading_of_the_files_drive(
    session: RunSession, tmp_path: Path
) -> None:
    """`fleet collect` names the node's runs by its inventory name: a file a node read is a
    run made there, still of the drive the file names and never of that node's drives."""
    check_health(session, HealthRequest(str(TEXT / "samsung-860evo-x.txt")))
    central = open_run_store(tmp_path / "central.db")
    copy_runs(session.conn, central, host="lab-3", collected_at_s=None)
    (listed,) = list_run_listings(central, wanted=RunFilter(host="lab-3"))
    assert (listed.kind, listed.target_kind) == (RunKind.IMPORT, TargetKind.IMPORT)
    stored = stored_run(central, listed.run_id)
    assert stored.run.node_host == socket.gethostname()
    device = stored.run.target["device"]
    assert isinstance(device, dict)
    assert device["model"] == stored.health[0][1].identity.model
    assert [phase for phase, _ in stored.health] == [FILE_PHASE]
    central.close()


def test_a_log_of_readings_is_one_run_of_the_files_drive(session: RunSession) -> None:
    request = HealthRequest(import_log=str(TEXT / "cron-mx500-date-A.log"))
    outcome = check_health(session, request)
    assert outcome.document["format"] == "ssdlab-health-series"
    assert len(outcome.sample_ids) == 6
    (listed,) = list_run_listings(session.conn, wanted=RunFilter())
    assert (listed.kind, listed.target_kind) == (RunKind.IMPORT, TargetKind.IMPORT)
    assert listed.status is RunStatus.COMPLETE


def test_elapsed_for_a_single_reading_is_refused_before_anything_is_stored(
    session: RunSession,
) -> None:
    request = HealthRequest(str(TEXT / "mx500-A.txt"), saved=SavedReading(elapsed_s=3600.0))
    with pytest.raises(UsageError, match="holds only one"):
        check_health(session, request)
    assert list_run_listings(session.conn, wanted=RunFilter()) == []


def test_wear_between_two_stored_samples_of_a_file(session: RunSession) -> None:
    check_health(session, HealthRequest(import_log=str(TEXT / "cron-mx500-date-A.log")))
    outcome = compare_wear(session, WearRequest("1", "6"))
    assert (outcome.before, outcome.after) == ("sample 1", "sample 6")
    assert outcome.document["format"] == "ssdlab-wear"
    assert outcome.document["report"]["host_written_bytes"]["delta"] > 0


class Notices:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.alerts: list[Alert] = []
        self.problems: list[str] = []

    def said(self, text: str) -> None:
        self.lines.append(text)

    def sampled(self, text: str) -> None:
        self.lines.append(text)

    def alerted(self, alert: Alert) -> None:
        self.alerts.append(alert)

    def warned(self, text: str) -> None:
        self.problems.append(text)


def _metrics(_conn: object) -> str:
    return "ssdlab_up 1\n"


def test_the_watch_loop_samples_until_the_replay_runs_out(
    session: RunSession, tmp_path: Path
) -> None:
    log = write_log(tmp_path / "smart.log", wear_series(3))
    folder = tmp_path / "textfile"
    folder.mkdir()
    request = WatchRequest(
        health_replay=str(log),
        every_s=0.0,
        textfile=str(folder),
        thresholds=Thresholds(min_days_left=None),
    )
    notices = Notices()
    summary = start_watch(session, request, notices, _metrics).run(lambda: False, lambda: None)
    assert (summary.samples, summary.fired) == (3, 0)
    # '2026-11-28 22:43:36 UTC sample 1: …'
    assert [line.split(" ", 3)[3].split(":")[0] for line in notices.lines[:3]] == [
        "sample 1", "sample 2", "sample 3",
    ]  # fmt: skip
    assert "has no more snapshots" in notices.lines[3]
    assert (folder / "ssdlab.prom").read_text() == "ssdlab_up 1\n"
    run = stored_run(session.conn, summary.run_id).run
    assert (run.kind, run.status, run.status_reason) == (RunKind.WATCH, RunStatus.COMPLETE, None)


def test_a_stopped_watch_records_the_signal_and_a_new_one_continues_the_series(
    session: RunSession, tmp_path: Path
) -> None:
    log = write_log(tmp_path / "smart.log", wear_series(4))
    request = WatchRequest(health_replay=str(log), every_s=3600.0)
    taken: list[str] = []
    notices = Notices()
    notices.sampled = taken.append  # type: ignore[method-assign]
    first = start_watch(session, request, notices, _metrics)
    summary = first.run(lambda: bool(taken), lambda: "SIGTERM" if taken else None)
    assert summary.samples == 1  # stopped while waiting for the next sample
    run = stored_run(session.conn, summary.run_id).run
    assert run.status_reason == "stopped by a signal (SIGTERM)"
    again = start_watch(
        session, WatchRequest(health_replay=str(log), count=2, every_s=0.0), Notices(), _metrics
    )
    assert again.run(lambda: False, lambda: None).samples == 3
    assert again.run_id == summary.run_id


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        (WatchRequest(), "--health-replay"),
        (WatchRequest(health_replay="x.log", on_alert=("'unclosed",)), "quote it"),
        (WatchRequest(health_replay="x.log", on_alert=("",)), "needs a program"),
        (WatchRequest(health_replay="x.log", hook_timeout_s=0.0), "--hook-timeout"),
    ],
)
def test_a_bad_watch_is_refused_before_the_store_is_opened(
    session: RunSession, request_: WatchRequest, reason: str
) -> None:
    with pytest.raises(UsageError, match=reason):
        start_watch(session, request_, Notices(), _metrics)
    assert not session.database.exists()
