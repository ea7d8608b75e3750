"""A profile's --help is laid out from its option table: one group per heading the table
names, and below a choice, a line for each value saying what it does."""

import argparse

import pytest

from ssdlab.cli.common_options import OptionHelpFormatter, option_help
from ssdlab.cli.main import build_parser
from ssdlab.model.profile import OptionKind, OptionSpec
from ssdlab.model.target import PURGE_METHODS
from ssdlab.registry import run_profiles

NAMES = sorted(run_profiles())


def subcommand(parser: argparse.ArgumentParser, *names: str) -> argparse.ArgumentParser:
    for name in names:
        (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = commands.choices[name]
    return parser


@pytest.mark.parametrize("command", ["run", "plan"])
@pytest.mark.parametrize("name", NAMES)
def test_options_are_listed_under_the_headings_of_their_table(command: str, name: str) -> None:
    parser = subcommand(build_parser(), command, name)
    spec = run_profiles()[name].spec
    heading = {
        action.dest: group.title
        for group in parser._action_groups
        for action in group._group_actions
    }
    for option in spec.options:
        assert heading[option.name] == (option.group or f"{name} settings"), option.flag
    titles = [group.title for group in parser._action_groups]
    table_order = list(dict.fromkeys(o.group or f"{name} settings" for o in spec.options))
    assert [t for t in titles if t in table_order] == table_order  # as they first appear


def test_pts_iops_help_groups_its_options_and_explains_each_purge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    text = subcommand(build_parser(), "run", "pts-iops").format_help()
    for title in ("PTS test:", "purge and preconditioning:", "rounds:", "region and elements:"):
        assert f"\n{title}\n" in text
    purge = text[text.index("\n  --purge {") + 1 : text.index("\n  --write-cache {")]
    lines = purge.splitlines()
    assert lines[1].strip() == "how to purge before the test (default auto)"
    indent = len(lines[2]) - len(lines[2].lstrip())  # of a value's line
    values = [line.split()[0] for line in lines[2:] if not line[indent].isspace()]
    assert values == list(PURGE_METHODS)
    # a value's text wraps under the text, not under the value
    auto = next(i for i, line in enumerate(lines) if line.strip().startswith("auto "))
    column = lines[auto].index("the drive's own purge")
    assert lines[auto + 1][:column].isspace()
    assert not lines[auto + 1][column].isspace()


def test_a_choice_help_lines_up_the_values_and_keeps_a_percent_sign() -> None:
    option = OptionSpec(
        "mode",
        OptionKind.CHOICE,
        "a",
        "pick one",
        choices=("a", "longer"),
        choice_help=(("a", "the first, 100 % of it"), ("longer", "the second")),
    )
    assert option_help(option) == (
        "pick one\n  a       the first, 100 %% of it\n  longer  the second"
    )


def test_help_without_choice_lines_wraps_as_argparse_does() -> None:
    text = "a long help text " * 12
    plain = argparse.HelpFormatter("prog")._split_lines(text, 40)
    assert OptionHelpFormatter("prog")._split_lines(text, 40) == plain


def test_cachefit_presets_list_the_tests_they_run() -> None:
    """cachefit runs a quick preset's tests at its own --runtime and --interval: the tests are
    what its --preset values say."""
    preset = run_profiles()["cachefit"].spec.option("preset")
    assert dict(preset.choice_help)["nvme"] == "SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1"
    assert dict(preset.choice_help)["peak"] == "SEQ1M Q8T1, RND4K Q32T1"
