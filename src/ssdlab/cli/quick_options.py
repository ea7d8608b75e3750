"""The options of `ssdlab quick` and `ssdlab plan quick`, built from the quick suite's option
table (profiles/quick.py `SPEC`, its defaults and presets read from quick.toml). Handled by
cli/quick.py; kept apart from it so that building the parser imports no handler."""

import argparse

from ssdlab.analysis.compare import DEFAULT_THRESHOLD_PCT
from ssdlab.cli.arg_types import size_arg
from ssdlab.cli.common_options import (
    START_AT,
    STORE,
    Commands,
    add_destroy_data,
    add_option,
    json_output,
)
from ssdlab.cli.latency_monitor_options import add_latency_monitor_options
from ssdlab.model.units import format_size
from ssdlab.profiles.quick import SPEC

TARGET_HELP = (
    "directory (a test file is made and removed there), file path, or block device; "
    "default: the current directory"
)


def add_quick_settings(parser: argparse.ArgumentParser) -> None:
    """The option table in CrystalDiskMark's order, with --size and --buffered (every
    profile's own) where a CrystalDiskMark user looks for them, and --destroy-data."""
    group = parser.add_argument_group("test settings (named after CrystalDiskMark's)")
    for option in SPEC.options:
        add_option(group, option)
        if option.name == "preset":
            group.add_argument(
                "--size",
                type=size_arg,
                help="test size, e.g. 256MiB, 1GiB "
                f"(default {format_size(SPEC.default_file_size_bytes)})",
            )
        elif option.name == "zero_fill":
            group.add_argument(
                "--buffered",
                action="store_true",
                help="go through the page cache (for filesystems without O_DIRECT; numbers "
                "then include caching)",
            )
    add_destroy_data(parser.add_argument_group("target"))


def add_baseline_options(parser: argparse.ArgumentParser) -> None:
    """--baseline NAME and what goes with it (`quick`, `run PROFILE`)."""
    group = parser.add_argument_group(
        "baseline",
        "the first run of a NAME on a drive is its reference; later runs are judged against\n"
        "it as 'compare' judges: Welch's t-test on the passes (use --count 3 or more) and a\n"
        f"{DEFAULT_THRESHOLD_PCT:g} % threshold",
    )
    group.add_argument(
        "--baseline",
        metavar="NAME",
        help="judge this run against the drive's baseline NAME (the drive: its serial, else "
        "the target path); the first run with NAME becomes the reference",
    )
    change = group.add_mutually_exclusive_group()
    change.add_argument(
        "--baseline-reset",
        action="store_true",
        help="make this run the new reference of NAME (the earlier ones stop counting)",
    )
    change.add_argument(
        "--baseline-add",
        action="store_true",
        help="add this run to NAME's reference runs (their passes are pooled)",
    )
    group.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit 4 when a test is significantly worse than the baseline (default: exit 0)",
    )


def add_commands(commands: Commands) -> None:
    quick = commands.add_parser(
        "quick",
        help=SPEC.summary,
        description=SPEC.description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n" + "".join(f"  {line}\n" for line in SPEC.examples),
        parents=[json_output("print the result as JSON"), STORE, START_AT],
    )
    quick.add_argument("target", nargs="?", default=".", help=TARGET_HELP)
    add_quick_settings(quick)
    quick.add_argument("--keep", action="store_true", help="keep the test file afterwards")
    add_baseline_options(quick)
    add_latency_monitor_options(quick)


def add_plan_command(planned: Commands) -> None:
    """`ssdlab plan quick`: the job files of `ssdlab quick`, run nothing."""
    plan = planned.add_parser(
        "quick",
        help="the CrystalDiskMark-style suite",
        parents=[json_output("print the plan as JSON")],
    )
    plan.add_argument("target", nargs="?", default=".", help="as for 'ssdlab quick'")
    add_quick_settings(plan)
    plan.add_argument(
        "--check", action="store_true", help="also run 'fio --parse-only' on every job file"
    )
