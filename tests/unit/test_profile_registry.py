"""Every profile found by convention is complete: spec, planner, analysis, report, options."""

import argparse

import pytest

from ssdlab.cli.main import build_parser
from ssdlab.cli.profiles import (
    PROFILES,
    analyser_of,
    document_builder_of,
    planner_of,
    spec_of,
)

NAMES = sorted(PROFILES)


def test_align_is_registered() -> None:
    assert "align" in PROFILES


@pytest.mark.parametrize("name", NAMES)
def test_profile_is_complete(name: str) -> None:
    spec = spec_of(name)
    assert spec.name == name and spec.version >= 1
    assert spec.summary and spec.description and spec.examples
    assert all(example.startswith("ssdlab ") for example in spec.examples)
    flags = [option.flag for option in spec.options]
    assert len(flags) == len(set(flags))
    assert not {"--size", "--buffered", "--json", "--db", "--keep"} & set(flags)
    assert all(option.help for option in spec.options)
    assert callable(planner_of(name))
    assert callable(analyser_of(name))
    assert callable(document_builder_of(name))


@pytest.mark.parametrize("name", NAMES)
def test_every_option_reaches_the_command_line(name: str) -> None:
    parser = build_parser()
    args = parser.parse_args(["run", name, "/tmp"])
    assert isinstance(args, argparse.Namespace) and args.profile == name
    for option in spec_of(name).options:
        assert hasattr(args, option.name)
        assert getattr(args, option.name) in (None, False)  # the table's default applies later


@pytest.mark.parametrize("command", ["run", "plan"])
def test_help_of_every_profile_prints(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    for argv in ([command, "--help"], *([command, name, "--help"] for name in NAMES)):
        with pytest.raises(SystemExit) as stop:
            parser.parse_args(argv)
        assert stop.value.code == 0
    assert "90 % full" in capsys.readouterr().out  # a literal percent sign survives
