"""Imported runs (`ssdlab import`): a CrystalDiskMark or KDiskMark text export (stored under
the quick profile, its tests keyed as ssdlab's own), an fio JSON output (profile `fio`), and a
saved health file or log (`ssdlab health FILE`, profile `import`)."""

from typing import TYPE_CHECKING

from ssdlab.model.run import RunKind
from ssdlab.model.stored_run import StoredRun
from ssdlab.registry.health import health_parts
from ssdlab.registry.kind import KindParts, KindRecord, measured_steps
from ssdlab.registry.passes import passes_parts

if TYPE_CHECKING:  # the analyses load when a run is read, not with the command line
    from ssdlab.analysis.compare import MetricSamples

BENCHMARK_FAMILY = "quick"  # compared with quick runs: the same tests, keyed alike


def kept_metrics(stored: StoredRun, window: int | None) -> "tuple[MetricSamples, ...]":
    """A benchmark import keeps one figure per test (CrystalDiskMark: the best pass, KDiskMark's
    Default profile the mean): its metrics say which, so a comparison is like for like."""
    from ssdlab.analysis.run_metrics import kept_figure, with_kept_figure

    run = stored.run
    kept = kept_figure(run.kind, run.profile, run.settings.get("source_tool"), run.preset)
    return with_kept_figure(measured_steps(stored, window), kept)


def _benchmark_parts() -> KindParts:
    parts = passes_parts()
    return KindParts(parts.document, parts.shown, parts.texts, metrics=kept_metrics)


RECORDS = (
    KindRecord(
        "import",
        RunKind.IMPORT,
        _benchmark_parts,
        profiles=("quick",),
        main_table="passes",
        passes=True,
        card=True,
        family=BENCHMARK_FAMILY,
    ),
    KindRecord(
        "import",
        RunKind.IMPORT,
        passes_parts,
        profiles=("fio",),
        main_table="passes",
        passes=True,
        family=BENCHMARK_FAMILY,
    ),
    KindRecord("import", RunKind.IMPORT, health_parts, profiles=("import",), main_table="health"),
)
