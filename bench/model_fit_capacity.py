"""The joint spare fit on drives smaller than its 64 MiB model, in process: random hidden
drives (`sim/random_config.py`) of `--capacity-mib` measured by the simulator itself as
tests/unit/analysis/test_model_fit.py measures them (uniform 4 KiB writes over 100 % and
80 %, JESD219 over 100 %, ten fills each from empty), fitted once as ssdlab fits them (the
model's α converted to the drive's capacity, analysis/model_fit_joint.py `drive_alpha`) and
once with the capacity withheld (the model's own α, as fits were before the conversion).
Spare error against the secret, in points, and whether the interval holds the truth.

    PYTHONPATH=$PWD/src python bench/model_fit_capacity.py --capacity-mib 32 --seeds 1-40 \\
        --results bench/RESULTS.md

Deterministic (the simulator is): the same seeds give the same table on any machine. Needs
the compiled simulator core (a few seconds a drive).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_fit_campaign import _seeds  # noqa: E402
from overhead import git_state  # noqa: E402
from results_block import write_block  # noqa: E402
from ssdlab.analysis.model_fit import FitInputs, ModelFit, fit_model  # noqa: E402
from ssdlab.errors import UsageError  # noqa: E402
from ssdlab.sim.config import SimConfig  # noqa: E402
from ssdlab.sim.random_config import draw_config  # noqa: E402
from tests.unit.analysis.test_model_fit import waf_input  # noqa: E402

MiB = 2**20
POINTS = 0.02


@dataclass(frozen=True)
class Row:
    seed: int
    config: SimConfig
    converted: ModelFit
    model_own: ModelFit


def _spare(fit: ModelFit) -> tuple[float, float | None, float | None]:
    found = fit.estimate("spare (of logical)")
    assert isinstance(found.value, float)
    return found.value, found.low, found.high


def measure(seed: int, capacity: int) -> Row | str:
    try:
        config = draw_config(seed, capacity)
    except UsageError as refused:
        return str(refused)
    uniform = (waf_input(config, 1.0), waf_input(config, 0.8))
    skewed = (waf_input(config, 1.0, "jesd219"),)
    converted = fit_model(FitInputs((), uniform, "/dev/loop0", capacity, skewed))
    model_own = fit_model(FitInputs((), uniform, "/dev/loop0", None, skewed))
    return Row(seed, config, converted, model_own)


def _cell(fit: ModelFit, truth: float) -> tuple[str, bool, bool]:
    value, low, high = _spare(fit)
    error = value - truth
    held = low is not None and high is not None and low <= truth <= high
    return f"{100 * error:+.2f}", abs(error) <= POINTS, held


def block(rows: list[Row], skipped: dict[int, str], mib: int, seeds: str) -> str:
    lines = []
    within = {"converted": 0, "model": 0}
    held = {"converted": 0, "model": 0}
    misses: list[int] = []
    for row in rows:
        truth = row.config.spare_of_logical
        text, hit, inside = _cell(row.converted, truth)
        own_text, own_hit, own_inside = _cell(row.model_own, truth)
        within["converted"] += hit
        within["model"] += own_hit
        held["converted"] += inside
        held["model"] += own_inside
        if not hit:
            misses.append(row.seed)
        lines.append(
            f"| {row.seed} | {row.config.pages_per_block} | {row.config.gc_policy.value} | "
            f"{100 * truth:.2f} % | {row.converted.fitted_block_pages} | {text} | "
            f"{'yes' if inside else '**no**'} | {own_text} |"
        )
    n = len(rows)
    name = f"bench/model_fit_capacity.py --capacity-mib {mib}"
    return "\n".join(
        [
            f"<!-- BEGIN {name}: generated, edits inside are overwritten -->",
            "",
            f"### The joint spare fit on {mib} MiB drives, in process "
            "(bench/model_fit_capacity.py)",
            "",
            f"Seeds {seeds}, each a {mib} MiB drive drawn by `sim/random_config.py` and measured "
            "by the simulator in process (uniform 4 KiB over 100 % and 80 %, JESD219 over 100 %, "
            "ten fills each). *Fitted*: spare error in points as `ssdlab model fit` reports it "
            "(the 64 MiB model's α converted to the drive's capacity); *model's own*: the same "
            f"fit with the capacity withheld. Deterministic; measured at {git_state()}.",
            "",
            "| seed | pages a block | GC policy | spare (truth) | block size fitted | fitted "
            "| interval holds the truth | model's own |",
            "| ---: | ---: | --- | ---: | ---: | ---: | --- | ---: |",
            *lines,
            "",
            f"- within ±2 points: {within['converted']} of {n} fitted "
            f"({within['model']} of {n} as the model's own α)"
            + (f"; misses: seed {', '.join(map(str, misses))}" if misses else ""),
            f"- interval holds the truth: {held['converted']} of {n} "
            f"({held['model']} of {n} as the model's own α)",
            *(
                [f"- seeds that draw no drive at {mib} MiB: {', '.join(map(str, skipped))}"]
                if skipped
                else []
            ),
            "",
            f"<!-- END {name} -->",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--capacity-mib", type=int, default=32, help="each drive's size")
    parser.add_argument(
        "--seeds", default="1-40", help="ranges or seeds, e.g. 1-40 (default) or 10,12-13"
    )
    parser.add_argument("--results", type=Path, help="write the block into this RESULTS.md")
    args = parser.parse_args()
    rows: list[Row] = []
    skipped: dict[int, str] = {}
    for seed in _seeds(args.seeds):
        found = measure(seed, args.capacity_mib * MiB)
        if isinstance(found, str):
            skipped[seed] = found
        else:
            rows.append(found)
            print(f"seed {seed}: done", file=sys.stderr)
    text = block(rows, skipped, args.capacity_mib, args.seeds)
    print(text)
    if args.results is not None:
        first, last = text.splitlines()[0], text.splitlines()[-1]
        write_block(args.results, first, last, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
