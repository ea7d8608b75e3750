"""How well `ssdlab model fit` recovers a drive's hidden internals: the fit run over random
simulated drives whose truth is known, against the figures issue #34 sets (spare within ±2
percentage points, cache size within ±5 %, GC class right on ≥ 90 % of drives).

    PYTHONPATH=$PWD/src python bench/model_fit_campaign.py            # seeds 1-25, about 1 min
    PYTHONPATH=$PWD/src python bench/model_fit_campaign.py --seeds 1-5 --results bench/RESULTS.md

Each drive is drawn by `sim/random_config.py` (64 MiB) and measured in process, by the
simulator, as the fit's inputs are made in tests/unit/analysis/test_model_fit.py: a sequential
write from empty (the cliff), ten fills of uniform random 4 KiB writes over 100 % and 80 % of
the LBAs, and for the joint fit one JESD219 run over the whole drive. Not the virtual drive
through fio (tests/e2e/test_model_fit.py does that once): this measures the fit, not fio.
"""

from __future__ import annotations

import argparse
import platform
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from overhead import cpu_description, git_state  # noqa: E402
from results_block import write_block  # noqa: E402
from ssdlab.analysis.model_fit import GcClass, ModelFit  # noqa: E402
from ssdlab.errors import UsageError  # noqa: E402
from tests.unit.analysis.test_model_fit import (  # noqa: E402
    fitted,
    fitted_with_skew,
    true_cache_bytes,
)

BEGIN = "<!-- BEGIN bench/model_fit_campaign.py: generated, edits inside are overwritten -->"
END = "<!-- END bench/model_fit_campaign.py -->"
SPARE_POINTS = 0.02
CACHE_SHARE = 0.05
GC_RIGHT_SHARE = 0.90


@dataclass(frozen=True, slots=True)
class Drive:
    seed: int
    policy: str
    spare: float
    cache_bytes: int
    closed_spare: float | None
    closed_covers: bool
    joint_spare: float | None
    joint_covers: bool
    closed_class: str
    joint_class: str
    cache_fit: float | None
    cache_covers: bool


def _spare(fit: ModelFit, truth: float) -> tuple[float | None, bool]:
    found = fit.estimate("spare (of logical)")
    value = found.value if isinstance(found.value, float) else None
    low = found.low if found.low is not None else float("-inf")
    high = found.high if found.high is not None else float("inf")
    return value, value is not None and low <= truth <= high


def _truth_class(policy: str) -> str:
    return GcClass.FIFO if policy == "fifo" else GcClass.GREEDY


def measure(seed: int) -> Drive | None:
    try:
        config, closed = fitted(seed)
    except UsageError:  # a configuration the simulator refuses at this capacity
        return None
    _, joint = fitted_with_skew(seed)
    truth = config.spare_of_logical
    closed_spare, closed_covers = _spare(closed, truth)
    joint_spare, joint_covers = _spare(joint, truth)
    cache = closed.estimate("cache size")
    cache_fit = cache.value if isinstance(cache.value, float) else None
    cache_truth = true_cache_bytes(config)
    covers = (
        cache.low is not None and cache.high is not None and cache.low <= cache_truth <= cache.high
    )
    return Drive(
        seed,
        config.gc_policy.value,
        truth,
        cache_truth,
        closed_spare,
        closed_covers,
        joint_spare,
        joint_covers,
        str(closed.estimate("GC class").value or "—"),
        str(joint.estimate("GC class").value or "—"),
        cache_fit,
        covers,
    )


def _points(value: float | None, truth: float) -> str:
    return "—" if value is None else f"{(value - truth) * 100:+.2f}"


def _within(value: float | None, truth: float) -> bool:
    return value is not None and abs(value - truth) <= SPARE_POINTS


def block(drives: list[Drive], skipped: list[int]) -> str:
    rows = []
    for d in drives:
        cache = (
            "no cache"
            if d.cache_bytes == 0
            else f"{d.cache_bytes / 1e6:.2f} MB: "
            + ("—" if d.cache_fit is None else f"{(d.cache_fit / d.cache_bytes - 1) * 100:+.1f} %")
        )
        rows.append(
            f"| {d.seed} | {d.policy} | {d.spare * 100:.1f} % | "
            f"{_points(d.closed_spare, d.spare)} | {_points(d.joint_spare, d.spare)} | "
            f"{d.closed_class} / {d.joint_class} | {cache} |"
        )
    cached = [d for d in drives if d.cache_bytes > 0]
    in_cache = [
        d
        for d in cached
        if d.cache_fit is not None
        and abs(d.cache_fit - d.cache_bytes) <= CACHE_SHARE * d.cache_bytes
    ]
    right = [d for d in drives if d.joint_class == _truth_class(d.policy)]
    undecided = (GcClass.INCONCLUSIVE, "—")
    named = [d for d in drives if d.closed_class not in undecided]
    wrong = [d for d in named if d.closed_class != _truth_class(d.policy)]
    closed_in = sum(_within(d.closed_spare, d.spare) for d in drives)
    joint_in = sum(_within(d.joint_spare, d.spare) for d in drives)
    n = len(drives)
    summary = [
        f"- spare within ±2 points: closed forms {closed_in} of {n} (interval covers "
        f"{sum(d.closed_covers for d in drives)}), joint fit {joint_in} of {n} (covers "
        f"{sum(d.joint_covers for d in drives)})",
        f"- cache size within ±5 %: {len(in_cache)} of {len(cached)} drives with a cache "
        f"(interval covers {sum(d.cache_covers for d in cached)})",
        f"- GC class right with the JESD219 run: {len(right)} of {n} "
        f"(target ≥ {GC_RIGHT_SHARE:.0%}); the closed forms alone name it on {len(named)} "
        f"(wrong on {len(wrong)})",
    ]
    if skipped:
        summary.append(f"- seeds that cannot be drawn at 64 MiB: {', '.join(map(str, skipped))}")
    return "\n".join(
        [
            BEGIN,
            "",
            "### `ssdlab model fit` on random simulated drives (bench/model_fit_campaign.py)",
            "",
            "Each drive 64 MiB, drawn and measured in process by the simulator; errors are the fit "
            "minus the truth. Class: closed forms / joint fit with a JESD219 run. Accuracy, not "
            "speed: the figures do not depend on the machine "
            f"(measured at {git_state()} on {' '.join(cpu_description())}, "
            f"Python {platform.python_version()}).",
            "",
            "| seed | GC policy | spare (truth) | spare, closed forms (points) | spare, joint "
            "(points) | class | cache (truth: fit error) |",
            "| ---: | --- | ---: | ---: | ---: | --- | --- |",
            *rows,
            "",
            *summary,
            "",
            END,
        ]
    )


def _seeds(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="1-25", help="a range, e.g. 1-25 (default)")
    parser.add_argument("--results", type=Path, help="write the block into this RESULTS.md")
    args = parser.parse_args()
    drives, skipped = [], []
    for seed in _seeds(args.seeds):
        found = measure(seed)
        if found is None:
            skipped.append(seed)
        else:
            drives.append(found)
        print(f"seed {seed}: {'skipped' if found is None else 'fitted'}", file=sys.stderr)
    text = block(drives, skipped)
    print(text)
    if args.results is not None:
        write_block(args.results, BEGIN, END, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
