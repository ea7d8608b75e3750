"""The options of `ssdlab model fit`, `model predict` and `model verify` (handled by
cli/model.py)."""

import argparse

from ssdlab.analysis.cache_fill import MAX_FILL_PCT
from ssdlab.cli.arg_types import size_arg
from ssdlab.cli.common_options import STORE, Commands, add_rating, json_output


def span_arg(text: str) -> float:
    """'80%' or '0.8' → 0.8, in (0, 1]."""
    raw = text.strip()
    try:
        value = float(raw.removesuffix("%")) / (100.0 if raw.endswith("%") else 1.0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a share like 80%") from None
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} must be more than 0 and at most 100%")
    return value


def fill_arg(text: str) -> int:
    """'60' or '60%' → 60: the drive's fill, a whole percentage from 0 to `MAX_FILL_PCT`."""
    try:
        value = int(text.strip().removesuffix("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole percentage like 60%") from None
    if not 0 <= value <= MAX_FILL_PCT:
        raise argparse.ArgumentTypeError(
            f"{text!r} must be from 0 to {MAX_FILL_PCT}% (a full drive has no free space left)"
        )
    return value


def spare_range_arg(text: str) -> tuple[float, float]:
    """'7%-28%' → (0.07, 0.28); '12%' → (0.12, 0.12): an effective spare, of logical."""
    low_text, _, high_text = text.strip().partition("-")
    try:
        low = float(low_text.strip().removesuffix("%")) / 100.0
        high = float((high_text or low_text).strip().removesuffix("%")) / 100.0
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a spare like 12% or 7%-28%") from None
    if not 0.0 < low <= high <= 3.0:
        raise argparse.ArgumentTypeError(
            f"{text!r}: the spare must be more than 0 %, at most 300 %, low end first"
        )
    return low, high


def _add_life(parser: argparse.ArgumentParser) -> None:
    add_rating(parser)
    parser.add_argument(
        "--pe-cycles", type=float, help="rated P/E cycles of the flash (instead of a TBW rating)"
    )
    parser.add_argument(
        "--daily",
        type=size_arg,
        metavar="SIZE",
        help="host writes a day, e.g. 200GB: gives the days to end of life",
    )
    parser.add_argument(
        "--assume-spare",
        type=spare_range_arg,
        metavar="LOW-HIGH",
        help="an effective spare (of logical) to assume, e.g. 12%% or 7%%-28%%, when the fit "
        "did not measure one (a drive without a NAND counter; default there 6%%-28%%): WAF, "
        "IOPS and days are then a range over it, marked assumed",
    )


def add_commands(commands: Commands) -> None:
    model = commands.add_parser(
        "model",
        help="fit the simulator to a drive from its stored runs",
        description="Fit the simulator's parameters to a drive from stored runs of it: cache "
        "size and SLC/native write rates from a cache run, effective spare from endurance runs "
        "(randwrite-4k) at two active ranges, GC policy class from one more with "
        "jesd219-enterprise (then fitted with the spare through the simulator), idle GC "
        "(present, absent or inconclusive) from a pts-hir run, each with its "
        "95 % interval and the run it came from; a parameter without its input names the run "
        "to add. The "
        "fit is stored as a run linked to its inputs (docs/model-fit.md).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab model fit 12 14 15         a cache run and two endurance runs of one drive\n"
        "  ssdlab model fit 12 --json        what one cache run gives, and what to add\n"
        "  ssdlab model predict last randwrite-4k --span 80% --daily 200GB --tbw 600TB\n"
        "  ssdlab model verify last 14       the newest fit held against run 14\n",
    )
    actions = model.add_subparsers(dest="model_action", metavar="ACTION", required=True)
    fit = actions.add_parser(
        "fit",
        help="fit a drive model to stored runs of one drive",
        parents=[json_output("print the fit as JSON"), STORE],
    )
    fit.add_argument("runs", nargs="+", metavar="RUN", help="run ids (or 'last') of one drive")
    predict = actions.add_parser(
        "predict",
        help="predict a workload from a fitted model: WAF, cliff, IOPS, days to end of life",
        description="Predict, from a stored fit (a 'model fit' run), a workload's steady-state "
        "WAF, cliff position and the rate after it, steady-state write IOPS and days to end of "
        "life against the drive's rating, each with an interval over the corners of the fit's "
        "intervals and three simulator seeds; stored as a run linked to the model "
        "(docs/model-fit.md). With --fill the cliff is the one on a drive that full.",
        parents=[json_output("print the prediction as JSON"), STORE],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab model predict last randwrite-4k --span 80% --daily 200GB --tbw 600TB\n"
        "  ssdlab model predict last seq-128k --fill 60%   the cliff on a drive 60 % full\n",
    )
    predict.add_argument("model", metavar="MODEL", help="the model-fit run's id (or 'last')")
    predict.add_argument(
        "workload",
        metavar="WORKLOAD",
        help="randwrite-BS (randwrite-4k, randwrite-16k …), jesd219-enterprise, seq-BS",
    )
    predict.add_argument(
        "--span",
        type=span_arg,
        default=1.0,
        help="the active range, a share of the drive (default 100%%)",
    )
    predict.add_argument(
        "--fill",
        type=fill_arg,
        default=0,
        metavar="PCT",
        help="how full the drive is before the workload, 0-99%% (default 0: a discarded "
        "drive): the cliff is predicted there from the fitted cache kind (a range between a "
        "static and a dynamic cache when the kind is not known)",
    )
    _add_life(predict)
    verify = actions.add_parser(
        "verify",
        help="hold a model's prediction against a stored run that did the workload",
        description="Predict what a stored run did (an endurance run: WAF, IOPS, days to end "
        "of life; a cache run: the cliff and the rate after it), read what it measured, and "
        "store prediction, measurement and error side by side (report RUN shows them).",
        parents=[json_output("print the verification as JSON"), STORE],
    )
    verify.add_argument("model", metavar="MODEL", help="the model-fit run's id (or 'last')")
    verify.add_argument("run", metavar="RUN", help="the measured run's id (or 'last')")
    _add_life(verify)
