"""What the runner tells whoever shows progress. The CLI renders these; the runner never prints."""

from dataclasses import dataclass

from ssdlab.model.profile import ProfilePlan, ProfileStep
from ssdlab.model.step import StepResult


@dataclass(frozen=True, slots=True)
class Pausing:
    seconds: float  # before the next step (a quick run's pause between tests)


@dataclass(frozen=True, slots=True)
class Notice:
    text: str


@dataclass(frozen=True, slots=True)
class ProfileRunStarted:
    run_id: int
    plan: ProfilePlan
    estimated_s: float | None  # None: size-bound steps whose duration is not known beforehand


@dataclass(frozen=True, slots=True)
class StepStarted:
    step: ProfileStep
    number: int  # 1-based over the whole run
    total: int | None  # None: the run ends by its stop conditions (endurance)

    @property
    def counter(self) -> str:
        return f"[{self.number}]" if self.total is None else f"[{self.number}/{self.total}]"


@dataclass(frozen=True, slots=True)
class StepProgress:
    step: ProfileStep
    fraction: float  # 0..1 of the step, from fio's status lines


@dataclass(frozen=True, slots=True)
class StepFinished:
    step: ProfileStep
    result: StepResult | None  # None for idle and command steps
    elapsed_s: float


@dataclass(frozen=True, slots=True)
class RoundFinished:
    round_index: int
    stop: bool
    summary: str  # e.g. "steady state not yet: IOPS range 31 % of average (≤ 20 %)"
    progress: float | None = None  # how far the loop is towards its bound (RoundVerdict)


Event = (
    Pausing | Notice | ProfileRunStarted | StepStarted | StepProgress | StepFinished | RoundFinished
)
