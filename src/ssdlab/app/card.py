"""`ssdlab card`: a run whose kind draws one (a quick run, an imported CrystalDiskMark or
KDiskMark result) as the data of one result card."""

import sqlite3
from dataclasses import dataclass

from ssdlab.app.runs import run_id_of, stored_run
from ssdlab.errors import SsdlabError
from ssdlab.model.run import RunKind
from ssdlab.registry import kind_record
from ssdlab.report.card import CardData, build_card
from ssdlab.report.quick import build_quick_report


@dataclass(frozen=True, slots=True)
class CardRequest:
    run: str  # a run id, or 'last'


def card_of(conn: sqlite3.Connection, request: CardRequest) -> CardData:
    """The card's numbers; a run of another kind, or one with no measured test, is refused."""
    stored = stored_run(conn, run_id_of(conn, request.run))
    run = stored.run
    if not kind_record(run).card:
        kind = run.profile if run.kind is RunKind.PROFILE else run.kind
        raise SsdlabError(
            f"run {run.run_id} is a {kind} run; cards are drawn for quick runs and imported "
            "CrystalDiskMark/KDiskMark results"
        )
    report = build_quick_report(run, stored.steps, stored.health)
    if not report.rows:
        raise SsdlabError(f"run {run.run_id} has no measured test, so no card; run it again")
    return build_card(report)
