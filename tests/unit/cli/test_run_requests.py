"""The command lines of the commands that start, plan and resume runs: every example a profile
documents is accepted by the command line it names."""

import shlex

import pytest

from ssdlab.cli.main import build_parser
from ssdlab.registry import profile_records


def parse(line: str) -> object:
    return build_parser().parse_args(shlex.split(line))


def test_plan_takes_destroy_data_as_run_does() -> None:
    args = parse("plan sweep /dev/sdb --destroy-data /dev/sdb --threads 1,4 --check")
    assert args.destroy_data == "/dev/sdb"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "example",
    [example for record in profile_records().values() for example in record.spec.examples],
)
def test_every_documented_example_is_accepted(example: str) -> None:
    words = shlex.split(example)
    assert words[0] == "ssdlab"
    command = words[1 : words.index(">") if ">" in words else None]  # the shell's part aside
    build_parser().parse_args(command)  # a rejected option exits 2
