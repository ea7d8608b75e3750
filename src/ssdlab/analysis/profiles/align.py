"""The `align` profile's verdict: IOPS per block size at aligned and misaligned offsets, read
with the partition start, sector sizes and LBA formats of the target."""

from collections.abc import Mapping, Sequence
from typing import Any

from ssdlab.analysis.alignment import AlignmentVerdict, AlignResult, LbaFormat, alignment_verdict
from ssdlab.model.finding_names import ALIGNMENT
from ssdlab.model.profile import ProfilePlan
from ssdlab.model.step import StepResult

VERDICT = ALIGNMENT


def align_results(plan: ProfilePlan, steps: Sequence[StepResult]) -> tuple[AlignResult, ...]:
    """One AlignResult per measured pass (every repeat of a step), read back through the plan's
    step parameters, with the pass's per-second IOPS when it logged them."""
    by_key = {step.key: step for step in plan.all_steps}
    found = []
    for result in steps:
        step = by_key.get(result.step_key)
        if step is None or result.discarded:
            continue
        bs, offset = step.param("block_size_bytes"), step.param("offset_align_bytes")
        if isinstance(bs, int) and isinstance(offset, int):
            per_second = tuple(p.iops for p in result.series if p.iops is not None)
            found.append(AlignResult(bs, offset, result.iops, per_second))
    return tuple(found)


def _lba_formats(facts: Mapping[str, Any]) -> tuple[LbaFormat, ...]:
    return tuple(
        LbaFormat(
            int(f["index"]),
            int(f["data_bytes"]),
            int(f["metadata_bytes"]),
            f.get("relative_performance"),
        )
        for f in facts.get("lba_formats") or ()
    )


def analyse_align(
    plan: ProfilePlan,
    steps: Sequence[StepResult],
    facts: Mapping[str, Any],
    _outputs: Mapping[int, str],
) -> dict[str, AlignmentVerdict]:
    start = facts.get("partition_start_bytes")
    if start is None and facts.get("whole_device"):
        start = 0  # the whole device is used from its first byte
    verdict = alignment_verdict(
        align_results(plan, steps),
        partition_start_bytes=start,
        logical_block_bytes=facts.get("logical_block_bytes"),
        physical_block_bytes=facts.get("physical_block_bytes"),
        lba_formats=_lba_formats(facts),
        lba_format_in_use=facts.get("lba_format_in_use"),
    )
    return {VERDICT: verdict}
