"""`ssdlab compare`: stored runs of one family side by side against the first, each run's
headline metrics as the record of its kind gives them, with significance and `--fail-if`
gates; and the same comparison up front in a report of several runs."""

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ssdlab.analysis.compare import (
    Comparison,
    FailRule,
    MeasuredTest,
    compare_runs,
    compare_tails,
    judge_fail_rules,
    measured_tests,
    parse_fail_rule,
)
from ssdlab.app.runs import run_metrics, stored_runs
from ssdlab.errors import UsageError
from ssdlab.model.run import RunRecord
from ssdlab.model.stored_run import StoredRun
from ssdlab.parse.fio_histogram import clat_bins_by_capture
from ssdlab.registry import kind_record
from ssdlab.report.compare import build_compare_document
from ssdlab.report.document import Document


@dataclass(frozen=True, slots=True)
class CompareRequest:
    runs: tuple[str, ...]  # run ids, or 'last'; the first is the baseline
    threshold_pct: float = 5.0  # smallest change called a difference
    alpha: float = 0.05  # significance level of Welch's t-test on the passes
    fail_if: tuple[str, ...] = ()  # METRIC:-5% rules; a run that breaks one is a failure


@dataclass(frozen=True, slots=True)
class Compared:
    runs: tuple[RunRecord, ...]
    document: Document

    @property
    def failures(self) -> tuple[dict[str, Any], ...]:
        """Each `--fail-if` rule a run broke: run, metric and rule."""
        found = self.document.data.get("failures")
        return tuple(found) if isinstance(found, list) else ()


def compare_stored(conn: sqlite3.Connection, request: CompareRequest) -> Compared:
    """The comparison of the runs named; fewer than two runs, runs of different families, a
    bad rule or one that matches no metric are refused."""
    stored = stored_runs(conn, request.runs)
    if len(stored) < 2:
        raise UsageError("compare needs at least two runs: ssdlab compare A B [C ...]")
    if not same_family(stored):
        listed = ", ".join(f"run {s.run.run_id} is {s.run.profile}" for s in stored)
        raise UsageError(f"compare runs of the same profile; {listed}")
    document = comparison_document(stored, request.threshold_pct, request.alpha, request.fail_if)
    return Compared(tuple(s.run for s in stored), document)


def same_family(stored: Sequence[StoredRun]) -> bool:
    """Whether the runs ran the same tests (quick runs, CrystalDiskMark/KDiskMark imports and
    imported fio jobs all key their tests as 'rnd4k-q32t1-read')."""
    return len({kind_record(s.run).family_of(s.run) for s in stored}) == 1


def _rules(texts: Sequence[str]) -> list[FailRule]:
    parsed = []
    for rule in texts:
        try:
            parsed.append(parse_fail_rule(rule))
        except ValueError as error:
            raise UsageError(str(error)) from None
    return parsed


def comparison_document(
    stored: Sequence[StoredRun], threshold_pct: float, alpha: float, rules: Sequence[str]
) -> Document:
    """The comparison document of `stored` against the first; bad or unmatched rules refused."""
    baseline, *others = stored
    base_metrics = run_metrics(baseline)
    measured = [_measured(s) for s in stored]
    comparisons: list[Comparison] = [
        replace(
            compare_runs(
                baseline.run.run_id,
                base_metrics,
                other.run.run_id,
                run_metrics(other),
                threshold_pct=threshold_pct,
                alpha=alpha,
            ),
            tails=compare_tails(measured[0], tests, threshold_pct),
        )
        for other, tests in zip(others, measured[1:], strict=True)
    ]
    judged, unmatched = judge_fail_rules(comparisons, _rules(rules))
    if unmatched:
        keys = sorted({c.key for comp in comparisons for c in (*comp.changes, *comp.tails)})
        raise UsageError(
            f"--fail-if {unmatched[0]} matches no metric of these runs; "
            f"they have: {', '.join(keys[:12])}{' …' if len(keys) > 12 else ''}"
        )
    return build_compare_document([s.run for s in stored], comparisons, judged, measured)


def _measured(stored: StoredRun) -> tuple[MeasuredTest, ...]:
    """What the compare charts draw of a run: its tests' passes, per-second series and the
    json+ latency bins of its fio outputs (PTS: the last five rounds, as compared)."""
    window = kind_record(stored.run).parts().window
    bins = clat_bins_by_capture(stored.evidence.fio_outputs())
    return measured_tests(stored.steps, bins, window=window)
