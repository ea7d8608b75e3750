"""The options of `ssdlab card` (handled by cli/card.py). Kept apart from the handler so that
building the parser imports no handler."""

import argparse

from ssdlab.cli.common_options import STORE, Commands, json_output


def add_commands(commands: Commands) -> None:
    card = commands.add_parser(
        "card",
        help="a quick or imported run as one result card to post (PNG or SVG)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Draw a CrystalDiskMark-sized result card of a quick run or an imported "
        "CrystalDiskMark/KDiskMark result: the drive, its firmware and capacity, the preset, "
        "test size and date, and per test MB/s (big), IOPS and mean/p99 latency (small). "
        "Unknown values are shown as —.",
        epilog="examples:\n"
        "  ssdlab card last -o card.png             the last run, 960×680 pixels (2× density)\n"
        "  ssdlab card 3 -o card.svg --theme dark   run 3 as SVG, dark background\n"
        "  ssdlab card 3 -o - > card.svg            the SVG on stdout (refused on a terminal)\n"
        "  ssdlab card 3 --json                     the card's numbers, as JSON\n",
        parents=[json_output("print the card's data (the exact numbers it shows) as JSON"), STORE],
    )
    card.add_argument("run", metavar="RUN", help="a run id, or 'last'")
    card.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write here, as its suffix says: .png or .svg; '-' for SVG on stdout",
    )
    card.add_argument(
        "--theme", choices=("light", "dark"), default="light", help="colours (default light)"
    )
