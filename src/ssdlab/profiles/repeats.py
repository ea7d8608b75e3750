"""The `--repeat N` option every measuring profile has: how many times each measured point runs,
so that every figure it reports carries a 95 % interval (analysis/intervals.py). The default is
chosen per profile by what one repeat costs, and its help says why."""

from ssdlab.model.profile import OptionKind, OptionSpec

GROUP = "repeats"
MAX_REPEATS = 100


def repeat_option(default: int, why: str) -> OptionSpec:
    """--repeat N (N ≥ 1) with this default; `why` says what a repeat costs in this profile."""
    return OptionSpec(
        "repeat",
        OptionKind.COUNT,
        default,
        f"measure every point N times, for 95 % intervals on every figure and verdict (default "
        f"{default}: {why}); 1 measures once, without intervals where no per-second log gives one",
        minimum=1,
        maximum=MAX_REPEATS,
        metavar="N",
        group=GROUP,
    )
