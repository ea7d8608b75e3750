"""Options several commands share, declared once: the parser every command is built with
(`Parser`, which takes options only spelled in full), the --db, --json and --start-at parent
parsers, --width on every command, the rated endurance group,
--destroy-data, and a profile's option table (`ProfileSpec`) as argparse options, in the manner
of fio's own option table: one argument group per heading the table names, and a line for
each value of a choice that says what it does."""

import argparse
import functools
import re
import textwrap
from collections.abc import Callable, Iterable
from typing import Any, TypeAlias

from ssdlab.cli.arg_types import (
    duration_arg,
    float_arg,
    int_arg,
    list_arg,
    pct_arg,
    positive_int_arg,
    seconds_arg,
    size_arg,
    start_sent_at_arg,
    start_time_arg,
)
from ssdlab.model.profile import OptionKind, OptionSpec, ProfileSpec
from ssdlab.model.units import format_size

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"  # subcommands


class Parser(argparse.ArgumentParser):
    """argparse's parser with abbreviations turned off: an option is taken only as spelled in
    full (or as --option=value). argparse would read `--destroy-dat DEV` as --destroy-data DEV,
    erasing a device the command line never named in full, and every option added later would
    change what an abbreviation means. A subcommand's parser is made of the class of its
    parent's (argparse's add_subparsers), so every parser under ssdlab's is one of these."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **{**kwargs, "allow_abbrev": False})


def _parent() -> argparse.ArgumentParser:
    return Parser(add_help=False)


STORE = _parent()
STORE.add_argument(
    "--db", metavar="PATH", help="the run store (default: $XDG_DATA_HOME/ssdlab/ssdlab.db)"
)


def add_width(parser: argparse.ArgumentParser) -> None:
    """--width on `parser` and on each of its subcommands, at any depth; the default is
    suppressed so a subcommand does not overwrite the value given before its name."""
    parser.add_argument(
        "--width",
        metavar="N",
        type=positive_int_arg,
        default=argparse.SUPPRESS,
        help="lay text output out N columns wide (default: the terminal's width, or COLUMNS; "
        "unlimited when the output is not a terminal)",
    )
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for subparser in dict.fromkeys(action.choices.values()):
                add_width(subparser)


START_AT = _parent()
START_AT.add_argument(
    "--start-at",
    metavar="TIME",
    type=start_time_arg,
    help="start the run at TIME (Unix seconds, or ISO 8601 with a timezone such as "
    "2026-11-26T12:00:00Z), after every check and preparation: a synchronized start for "
    "fleets; a run that gets there late starts at once and records how late",
)
START_AT.add_argument(
    "--start-sent-at",
    metavar="SECONDS",
    type=start_sent_at_arg,
    help="set by 'ssdlab fleet run' with --start-at: its clock when it sent the start, so that "
    "a start that arrives late is told from clocks that disagree",
)


@functools.cache
def json_output(help_text: str = "print as JSON") -> argparse.ArgumentParser:
    """The --json parent: one per wording of its help ('print the result as JSON', …)."""
    parser = _parent()
    parser.add_argument("--json", action="store_true", help=help_text)
    return parser


def add_destroy_data(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument(
        "--destroy-data",
        metavar="DEV",
        help="allow writing to block device DEV (must name the target device again)",
    )


def add_rating(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "rated endurance (default: the drive's spec sheet, when one matches; ssdlab spec list)"
    )
    group.add_argument("--tbw", type=size_arg, help="rated terabytes written, e.g. 600TB")
    group.add_argument("--dwpd", type=float, help="rated drive writes per day")
    group.add_argument("--warranty-years", type=float, help="warranty length in years")


OPTION_TYPES: dict[OptionKind, Callable[[str], Any]] = {
    OptionKind.SIZE: size_arg,
    OptionKind.SIZES: list_arg(size_arg),
    OptionKind.INT: int_arg,
    OptionKind.INTS: list_arg(int_arg),
    OptionKind.COUNT: positive_int_arg,
    OptionKind.PCT: pct_arg,
    OptionKind.PCTS: list_arg(pct_arg),
    OptionKind.SECONDS: duration_arg,
    OptionKind.PLAIN_SECONDS: seconds_arg,
    OptionKind.FLOAT: float_arg,
    OptionKind.TEXT: str,
}


def literal(text: str) -> str:
    """Help text taken as it is: argparse would read '90 % full' as a format directive."""
    return text.replace("%", "%%")


CHOICE_LINE = re.compile(r"^ +\S+ {2,}")  # '  auto        what it does': the text's column


class OptionHelpFormatter(argparse.HelpFormatter):
    """argparse's help, with the lines of a help text kept apart: the values of a choice are
    listed one a line below the option's help (`option_help`), each wrapped under its text."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        lines: list[str] = []
        for line in text.split("\n"):
            column = CHOICE_LINE.match(line)
            hanging = " " * len(column.group()) if column else ""
            text = line if column else " ".join(line.split())
            lines += textwrap.wrap(text, width, subsequent_indent=hanging) or [""]
        return lines


class RawDescriptionOptionHelpFormatter(OptionHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """`OptionHelpFormatter` for a command whose description and examples are laid out."""


def option_help(option: OptionSpec) -> str:
    """The option's help and below it, a line a value, what each of a choice's values does."""
    width = max((len(value) for value, _ in option.choice_help), default=0)
    lines = [option.help, *(f"  {value:<{width}}  {text}" for value, text in option.choice_help)]
    return literal("\n".join(lines))


def add_option(group: argparse._ArgumentGroup, option: OptionSpec) -> None:
    """One option of a table; its value is None (or False) unless given: the table's default
    applies when the settings are resolved."""
    flags = (option.flag, *option.aliases)
    metavar = option.metavar or None  # None: argparse names the value after the option
    if option.kind is OptionKind.FLAG:
        group.add_argument(*flags, dest=option.name, action="store_true", help=literal(option.help))
    elif option.kind is OptionKind.CHOICE:
        group.add_argument(
            *flags,
            dest=option.name,
            choices=option.choices,
            help=option_help(option),
            metavar=metavar,
        )
    else:
        group.add_argument(
            *flags,
            dest=option.name,
            type=OPTION_TYPES[option.kind],
            help=literal(option.help),
            metavar=metavar,
        )


def add_options(group: argparse._ArgumentGroup, options: Iterable[OptionSpec]) -> None:
    for option in options:
        add_option(group, option)


def add_grouped_options(parser: argparse.ArgumentParser, spec: ProfileSpec) -> None:
    """The profile's option table, under the headings it names (in the order they first
    appear; an option with none under '<profile> settings'), each group in table order."""
    groups: dict[str, argparse._ArgumentGroup] = {}
    for option in spec.options:
        title = option.group or f"{spec.name} settings"
        if title not in groups:
            groups[title] = parser.add_argument_group(title)
        add_option(groups[title], option)


def with_option_help(formatter: object) -> type[argparse.HelpFormatter]:
    """The help formatter that keeps a choice's lines apart, laying the description out as
    `formatter` (a parser's formatter class) did."""
    if isinstance(formatter, type) and issubclass(formatter, OptionHelpFormatter):
        return formatter
    if isinstance(formatter, type) and issubclass(formatter, argparse.RawDescriptionHelpFormatter):
        return RawDescriptionOptionHelpFormatter
    return OptionHelpFormatter


def add_profile_options(parser: argparse.ArgumentParser, spec: ProfileSpec) -> None:
    """The target, the common options, and the profile's own option table."""
    parser.formatter_class = with_option_help(parser.formatter_class)
    parser.add_argument(
        "target",
        nargs="?",
        default=".",
        help="directory (a test file is made and removed there), file path, or block device; "
        "default: the current directory",
    )
    common = parser.add_argument_group("target")
    whole = " (default: the whole device)" if spec.whole_device_by_default else ""
    common.add_argument(
        "--size",
        type=size_arg,
        help=f"test region: on a file {format_size(spec.default_file_size_bytes)} by default"
        f"{whole}",
    )
    common.add_argument(
        "--buffered",
        action="store_true",
        help="go through the page cache (file targets on filesystems without O_DIRECT)",
    )
    add_grouped_options(parser, spec)


def add_profile_parser(
    commands: Commands,
    name: str,
    spec: ProfileSpec,
    help_text: str,
    parents: Iterable[argparse.ArgumentParser] = (),
) -> argparse.ArgumentParser:
    """A command that runs a profile: its options, examples and --destroy-data."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name,
        help=help_text,
        description=spec.description,
        formatter_class=RawDescriptionOptionHelpFormatter,
        epilog="examples:\n" + "".join(f"  {line}\n" for line in spec.examples),
        parents=list(parents),
    )
    add_profile_options(parser, spec)
    add_destroy_data(parser)
    return parser
