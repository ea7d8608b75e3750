"""The `trim` profile's verdicts: discard support from the kernel's limits, random writes on a
dirty region against a freshly discarded one, and what the zero-check and fstrim steps found."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ssdlab.model.finding_names import TRIM_EFFECT, TRIM_SUPPORT
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.step import StepResult
from ssdlab.model.units import format_size

SUPPORT = TRIM_SUPPORT
EFFECT = TRIM_EFFECT


@dataclass(frozen=True, slots=True)
class TrimSupport:
    """What the kernel says of discard on the target (None: it does not say)."""

    supported: bool | None
    discard_granularity_bytes: int | None
    discard_max_bytes: int | None
    sentence: str


@dataclass(frozen=True, slots=True)
class TrimEffect:
    """Random writes on a dirty region against a freshly discarded one."""

    dirty_iops: float
    discarded_iops: float
    dirty_lat_mean_ns: float | None
    discarded_lat_mean_ns: float | None
    ratio: float | None  # discarded / dirty IOPS
    sentence: str


def _support(facts: Mapping[str, Any]) -> TrimSupport:
    granularity = facts.get("discard_granularity_bytes")
    largest = facts.get("discard_max_bytes")
    if not isinstance(largest, int):
        sentence = "the kernel does not say whether the device supports discard"
        supported = None
    elif largest == 0:
        sentence = "no TRIM support: the device accepts no discard"
        supported = False
    else:
        sentence = (
            f"TRIM supported: discards of up to {format_size(largest)} at a time, in units of "
            + (format_size(granularity) if isinstance(granularity, int) else "an unknown size")
        )
        supported = True
    return TrimSupport(supported, granularity, largest, sentence)


def _effect(steps: Sequence[StepResult]) -> TrimEffect | None:
    found = {s.step_key: s for s in steps if not s.discarded}
    dirty, fresh = found.get("dirty"), found.get("discarded")
    if dirty is None or fresh is None:
        return None
    ratio = fresh.iops / dirty.iops if dirty.iops else None
    return TrimEffect(
        dirty_iops=dirty.iops,
        discarded_iops=fresh.iops,
        dirty_lat_mean_ns=dirty.lat_mean_ns,
        discarded_lat_mean_ns=fresh.lat_mean_ns,
        ratio=ratio,
        sentence="n/a"
        if ratio is None
        else f"random writes after a discard ran at {ratio:.2f}× the speed on the dirty region",
    )


def analyse_trim(
    _plan: ProfilePlan,
    steps: Sequence[StepResult],
    facts: Mapping[str, Any],
    _outputs: Mapping[int, str],
) -> dict[str, TrimSupport | TrimEffect]:
    found: dict[str, TrimSupport | TrimEffect] = {SUPPORT: _support(facts)}
    effect = _effect(steps)
    if effect is not None:
        found[EFFECT] = effect
    return found


def zero_check(read_back: tuple[int, int] | None) -> dict[str, Any]:
    """From the zero-check step's read (parse/tool_outputs.read_back_of: blocks that did not
    verify, bytes read): did the discarded blocks read back as zeroes."""
    if read_back is None:
        return {"zeroes": None, "sentence": "the read-back could not be read"}
    errors, read = read_back
    zeroes = errors == 0 and read > 0
    return {
        "zeroes": zeroes,
        "blocks_not_zero": errors,
        "read_bytes": read,
        "sentence": "discarded blocks read back as zeroes"
        if zeroes
        else f"discarded blocks did not read back as zeroes ({errors} MiB blocks differed)",
    }


def fstrim_result(elapsed: Any, trimmed: int | None) -> dict[str, Any]:
    """How long fstrim took (the step's `elapsed_s`) and what it trimmed."""
    return {
        "elapsed_s": elapsed,
        "trimmed_bytes": trimmed,
        "sentence": f"fstrim took {elapsed:.2f} s"
        + ("" if trimmed is None else f" and trimmed {format_size(trimmed)}"),
    }
