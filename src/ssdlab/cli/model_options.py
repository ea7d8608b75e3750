"""The options of `ssdlab model fit` (handled by cli/model.py)."""

import argparse

from ssdlab.cli.common_options import STORE, Commands, json_output


def add_commands(commands: Commands) -> None:
    model = commands.add_parser(
        "model",
        help="fit the simulator to a drive from its stored runs",
        description="Fit the simulator's parameters to a drive from stored runs of it: cache "
        "size and SLC/native write rates from a cache run, effective spare from endurance runs "
        "(randwrite-4k) at two active ranges, GC policy class from one more with "
        "jesd219-enterprise (then fitted with the spare through the simulator), each with its "
        "95 % interval and the run it came from; a parameter without its input names the run "
        "to add. The "
        "fit is stored as a run linked to its inputs (docs/model-fit.md).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab model fit 12 14 15         a cache run and two endurance runs of one drive\n"
        "  ssdlab model fit 12 --json        what one cache run gives, and what to add\n",
    )
    actions = model.add_subparsers(dest="model_action", metavar="ACTION", required=True)
    fit = actions.add_parser(
        "fit",
        help="fit a drive model to stored runs of one drive",
        parents=[json_output("print the fit as JSON"), STORE],
    )
    fit.add_argument("runs", nargs="+", metavar="RUN", help="run ids (or 'last') of one drive")
