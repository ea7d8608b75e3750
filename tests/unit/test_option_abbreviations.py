"""Options are taken only as spelled in full, and the options a fleet sets from the inventory
(--db, --destroy-data, --start-at, --start-sent-at, --json) are refused after `fleet run … --`
in every spelling argparse would take: `--destroy-dat DEV` once reached a node, whose argparse
expanded it to --destroy-data DEV and erased a device the inventory never allowed (issue #32)."""

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest

from ssdlab.cli.main import build_parser, main
from ssdlab.fleet.launch import FLEET_SET, fleet_option, set_by_fleet

FLEET_DESTS = {"db", "destroy_data", "start_at", "start_sent_at", "json"}


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """`parser` and every subcommand's parser under it, at any depth."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from _parsers(sub)


def _command(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    sub: argparse.ArgumentParser = commands.choices[name]
    return sub


def _node_parsers() -> list[argparse.ArgumentParser]:
    """The parsers of what a fleet runs on a node: quick, endure and every profile of run."""
    parser = build_parser()
    return [
        _command(parser, "quick"),
        _command(parser, "endure"),
        *_parsers(_command(parser, "run")),
    ]


@pytest.mark.parametrize(
    "word",
    [
        "--destroy-dat",
        "--destroy",
        "--destroy-data",
        "--destroy-data=/dev/sdb",
        "--destroy=/dev/sdb",
        "--db=x",
        "--d",
        "--start",
        "--start-at=1",
        "--start-sent",
        "--start-sent-at=1",
        "--js",
        "--json",
    ],
)
def test_the_fleet_refuses_its_own_options_in_every_spelling(word: str) -> None:
    assert set_by_fleet(["--size", "1GiB", word, "/dev/sdb"]) == [word]


def test_other_words_after_the_separator_pass() -> None:
    words = ["--size", "1GiB", "--data", "random", "-d", "--", "x=--db", "--sizes=--db"]
    assert set_by_fleet(words) == []


def test_the_fleet_names_the_option_an_abbreviation_stands_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inventory = tmp_path / "lab.ini"
    inventory.write_text("node1 ssdlab_targets=/dev/sdb\n")
    argv = ["fleet", "run", str(inventory), "quick", "--", "--destroy-dat", "/dev/sdb"]
    assert main(argv) == 2
    said = capsys.readouterr().err
    assert "--destroy-dat (--destroy-data) after -- is set by the fleet" in said


def test_every_parser_takes_options_only_in_full() -> None:
    loose = [p.prog for p in _parsers(build_parser()) if p.allow_abbrev]
    assert loose == []


@pytest.mark.parametrize("command", [None, "quick"])
def test_a_node_reads_an_abbreviated_destroy_data_as_an_error(
    command: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        build_parser(command).parse_args(["quick", "/dev/sdb", "--destroy-dat", "/dev/sdb"])
    assert stop.value.code == 2
    assert "unrecognized arguments: --destroy-dat" in capsys.readouterr().err


def test_the_full_spelling_and_its_value_form_still_parse() -> None:
    parser = build_parser("quick")
    given = parser.parse_args(["--width", "80", "quick", "/dev/sdb", "--destroy-data=/dev/sdb"])
    assert (given.destroy_data, given.width) == ("/dev/sdb", 80)


def test_the_fleet_options_have_no_other_spelling_on_a_node() -> None:
    """Each option the fleet sets is only its long name on a node (no short alias argparse
    would also take), and no option of a profile is cut from one: the guard refuses every
    spelling of these and nothing else."""
    for parser in _node_parsers():
        for action in parser._actions:
            if action.dest in FLEET_DESTS:
                assert action.option_strings == [f"--{action.dest.replace('_', '-')}"]
            for spelling in action.option_strings:
                if spelling not in FLEET_SET:
                    assert fleet_option(spelling) is None, (parser.prog, spelling)
