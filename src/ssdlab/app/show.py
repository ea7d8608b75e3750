"""`ssdlab show`: one stored run, as its kind shows it, with its fio job files if asked."""

import sqlite3
from dataclasses import dataclass

from ssdlab.app.runs import run_id_of, shown_document, stored_run
from ssdlab.model.run import RunRecord
from ssdlab.model.stored_run import JobInput
from ssdlab.report.document import Document


@dataclass(frozen=True, slots=True)
class ShowRequest:
    run: str  # a run id, or 'last'
    jobs: bool = False  # the fio job files of its captures too


@dataclass(frozen=True, slots=True)
class ShownRun:
    run: RunRecord
    document: Document
    jobs: tuple[JobInput, ...] = ()


def show_run(conn: sqlite3.Connection, request: ShowRequest) -> ShownRun:
    stored = stored_run(conn, run_id_of(conn, request.run))
    jobs = stored.evidence.job_inputs() if request.jobs else ()
    return ShownRun(stored.run, shown_document(stored), jobs)
