"""Runs of tests of passes, laid out as CrystalDiskMark does: a quick run, an imported
CrystalDiskMark/KDiskMark result or fio JSON, a fleet load. Their document is the quick report
(the grid, the spread of the passes, the time series and latency, the drive's health, the spec
sheet of the drive and the baseline); `show` prints the result grid (report/quick_summary.py);
they export as CrystalDiskMark text (`cdm`) and as a Markdown table of their own (`md`)."""

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ssdlab.model.spec import SpecSheet
from ssdlab.model.stored_run import StoredRun
from ssdlab.registry.kind import KindParts
from ssdlab.report.document import Document

if TYPE_CHECKING:  # the report modules load when a run is read, not with the command line
    from ssdlab.report.quick import QuickReport


def passes_report(stored: StoredRun) -> "QuickReport":
    """The run's tests: per test and direction its passes, the best one and their spread."""
    from ssdlab.report.quick import build_quick_report

    return build_quick_report(stored.run, stored.steps, stored.health)


def passes_document(stored: StoredRun, specs: Sequence[SpecSheet]) -> Document:
    """The whole quick report; the drive's spec sheet compared when one matches."""
    from ssdlab.report.quick_document import build_quick_document
    from ssdlab.report.spec_claims import spec_sections

    report = passes_report(stored)
    return build_quick_document(
        report, extra=spec_sections(report, specs), baseline=stored.baseline
    )


def passes_summary(stored: StoredRun) -> Document:
    """The result grid `show` prints, with the run's JSON document as its data."""
    from ssdlab.report.quick_summary import build_quick_summary

    return build_quick_summary(passes_report(stored), stored.baseline)


def passes_markdown(stored: StoredRun) -> str:
    from ssdlab.report.export import export_markdown

    return export_markdown(passes_report(stored))


def passes_cdm(stored: StoredRun) -> str:
    from ssdlab.report.export import export_cdm

    return export_cdm(passes_report(stored))


def passes_parts() -> KindParts:
    return KindParts(
        document=passes_document,
        shown=passes_summary,
        texts={"md": passes_markdown, "cdm": passes_cdm},
    )
