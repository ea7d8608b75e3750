"""Every command of the parser is handled: its options (cli/<module>_options.py) and its entry
in cli/main.COMMANDS name the same commands, and each handler is a function of its module."""

import argparse
import importlib.util

from ssdlab.cli.main import COMMANDS, build_parser, load_command


def _commands(parser: argparse.ArgumentParser) -> set[str]:
    (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return set(action.choices)


def test_every_command_has_a_handler_and_every_handler_a_command() -> None:
    assert _commands(build_parser()) == set(COMMANDS)


def test_every_handler_is_found() -> None:
    for name, (module, _function) in COMMANDS.items():
        assert callable(load_command(name)), name
        options = f"ssdlab.cli.{module}_options"
        assert importlib.util.find_spec(options) is not None, f"{name}: no {options}"
