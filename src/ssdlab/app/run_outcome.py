"""What a run that ended (or stopped) gives its command: the document of the run as stored,
where it is stored, and why the command fails when it does — an interrupted, failed or
safety-stopped run, with the exact command that continues it (model/next_command: with the
store and the device it needs, so that it works when copied)."""

from dataclasses import dataclass
from pathlib import Path

from ssdlab.errors import Interrupted, SafetyStop, SsdlabError
from ssdlab.model.next_command import CommandContext, next_command
from ssdlab.model.run import RunStatus
from ssdlab.model.target import Target, TargetKind
from ssdlab.report.document import Document
from ssdlab.runner.profile import ProfileOutcome
from ssdlab.store.db import default_db_path


@dataclass(frozen=True, slots=True)
class RunResult:
    """A run's document and what the command says of it."""

    run_id: int
    database: Path
    document: Document
    kept_file: str | None = None  # the test file ssdlab made and kept (--keep)
    region: str | None = None  # 'cache, 256 MiB region': what a profile run measured
    problem: SsdlabError | None = None  # the run did not complete: the command fails so
    regressed: bool = False  # --fail-on-regression, and a test regressed


def command_context(database: Path) -> CommandContext:
    """What every hint of a command that used the store `database` carries: --db, unless it
    is the default store."""
    return CommandContext(None if database == default_db_path() else database)


@dataclass(frozen=True, slots=True)
class RunHints:
    """The commands a run's messages name: the one that continues it (when it can be
    continued), else the one that removes a test file it left behind."""

    context: CommandContext
    target: Target
    destructive: bool  # the run writes to its device: continuing it needs --destroy-data
    resumable: bool  # its target outlives it: a device, or a test file kept

    def resume(self, run_id: int) -> str | None:
        """'ssdlab resume 7 [--destroy-data DEV] [--db PATH]', when the run can continue."""
        if not self.resumable:
            return None
        device = self.target.path if self.destructive else None
        return next_command(self.context, ("resume", str(run_id)), destroy_data=device)

    def second_signal(self, run_id: int | None) -> str:
        """What a second signal says before ssdlab ends at once."""
        resume = None if run_id is None else self.resume(run_id)
        if resume is not None:
            return f"{resume} continues the run"
        cleanup = next_command(self.context, ("doctor", "--cleanup"))
        return f"{cleanup} removes any test file left behind"


def run_hints(database: Path, target: Target, *, destructive: bool, keeps_file: bool) -> RunHints:
    resumable = target.kind is TargetKind.DEVICE or keeps_file or not target.created_file
    return RunHints(command_context(database), target, destructive, resumable)


def run_problem(outcome: ProfileOutcome, units: str, resume: str | None) -> SsdlabError | None:
    """Why the command fails for a run that did not complete (None: it did): interrupted —
    saying how many `units` (passes, steps) finished and, when it can, how to continue —
    or failed, with fio's reason."""
    if outcome.status is RunStatus.INTERRUPTED:
        then = f"; {resume} continues it" if resume else ""
        return Interrupted(
            f"run {outcome.run_id} was interrupted; the {len(outcome.steps)} {units} that "
            f"finished are stored{then}"
        )
    if outcome.status is RunStatus.FAILED:
        return SsdlabError(f"run {outcome.run_id} failed: {outcome.reason}")
    return None


def endurance_problem(outcome: ProfileOutcome, resume: str | None) -> SsdlabError | None:
    """An endurance run's: a safety stop (exit 5) to deal with before continuing, an
    interrupt after so many iterations, or a failure."""
    reason = outcome.reason or ""
    then = resume or "'ssdlab resume RUN'"
    if outcome.status is RunStatus.INTERRUPTED and reason.startswith("safety stop"):
        return SafetyStop(
            f"run {outcome.run_id}: {reason}; after dealing with it, {then} continues the run"
        )
    if outcome.status is RunStatus.INTERRUPTED:
        return Interrupted(
            f"run {outcome.run_id} was interrupted after {len(outcome.steps)} iterations; "
            f"{then} continues it"
        )
    if outcome.status is RunStatus.FAILED:
        return SsdlabError(f"run {outcome.run_id} failed: {outcome.reason}")
    return None
