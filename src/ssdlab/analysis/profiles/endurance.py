"""The `endurance` profile's verdict at the end of a run: the iteration times. The stop
reason is stored by the runner; the health analysis is made from the stored samples whenever a
report is built (analysis/endurance.py)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ssdlab.analysis.endurance import EnduranceStatus, endurance_status, iterations_of
from ssdlab.analysis.lifetime import RatedEndurance
from ssdlab.model.finding_names import ENDURANCE_ITERATIONS
from ssdlab.model.profile import ProfilePlan, ProfileResults
from ssdlab.model.profile_settings import EnduranceSettings
from ssdlab.model.step import StepResult
from ssdlab.model.typed_settings import decode_settings

ITERATIONS = ENDURANCE_ITERATIONS


@dataclass(frozen=True, slots=True)
class EnduranceIterations:
    """The iteration times of a finished run, and the criterion that makes one an outlier."""

    count: int
    written_bytes: int
    writing_s: float
    slowest_s: float
    fastest_s: float
    outliers: tuple[int, ...]  # iteration numbers
    criteria: str


OUTLIER_CRITERIA = (
    "an iteration is an outlier when it took more than 1.5× the median time or wrote at less "
    "than 1/1.5 of the median speed"
)


def analyse_endurance(
    _plan: ProfilePlan,
    steps: Sequence[StepResult],
    _facts: Mapping[str, Any],
    _outputs: Mapping[int, str],
) -> dict[str, EnduranceIterations]:
    """Verdicts at the end of a run: the iteration times."""
    iterations = iterations_of(steps, {})
    if not iterations:
        return {}
    times = [i.elapsed_s for i in iterations]
    return {
        ITERATIONS: EnduranceIterations(
            count=len(iterations),
            written_bytes=sum(i.written_bytes for i in iterations),
            writing_s=sum(times),
            slowest_s=max(times),
            fastest_s=min(times),
            outliers=tuple(i.index for i in iterations if i.outlier),
            criteria=OUTLIER_CRITERIA,
        )
    }


def status_of(results: ProfileResults, rated: RatedEndurance | None = None) -> EnduranceStatus:
    """Where the run stands, from its stored iterations (with their captures' wall-clock
    times) and health samples: what its status and report show."""
    samples = [sample for _phase, sample in results.health]
    iterations = iterations_of(results.steps, results.capture_times)
    settings = decode_settings(EnduranceSettings, results.plan.settings)
    return endurance_status(settings, iterations, samples, rated=rated)
