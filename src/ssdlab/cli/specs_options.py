"""The options of `ssdlab spec` and its actions (handled by cli/specs.py). Kept apart from the
handler so that building the parser imports no handler."""

import argparse

from ssdlab.cli.common_options import STORE, Commands, json_output


def add_commands(commands: Commands) -> None:
    spec = commands.add_parser(
        "spec",
        help="vendor spec sheets: what a drive was promised to do",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        "  ssdlab spec list                        shipped and added sheets\n"
        "  ssdlab spec show samsung-970-evo-500gb  one sheet as TOML\n"
        "  ssdlab spec add my-drive.toml           add a sheet (schema: ssdlab/specs/README.md)\n",
    )
    actions = spec.add_subparsers(dest="spec_command", metavar="ACTION", required=True)
    add = actions.add_parser(
        "add", help="add (or replace) a spec sheet from a TOML file", parents=[STORE]
    )
    add.add_argument("file")
    show = actions.add_parser("show", help="print one spec sheet", parents=[json_output(), STORE])
    show.add_argument("key")
    actions.add_parser("list", help="every known spec sheet", parents=[json_output(), STORE])
