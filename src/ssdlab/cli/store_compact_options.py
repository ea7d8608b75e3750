"""The options of `ssdlab store compact` (handled by cli/store_compact.py)."""

import argparse

from ssdlab.cli.common_options import STORE, Commands, json_output


def add_commands(commands: Commands) -> None:
    store = commands.add_parser(
        "store",
        help="look after the run store: compact",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab store compact                     compress what an older ssdlab stored as\n"
        "                                           text, then give the space back (VACUUM)\n",
    )
    actions = store.add_subparsers(dest="store_action", metavar="ACTION", required=True)
    actions.add_parser(
        "compact",
        help="compress raw outputs stored as text by an older ssdlab, then VACUUM the file",
        parents=[json_output(), STORE],
    )
