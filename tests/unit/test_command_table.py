"""Every command of the parser is handled: its options (cli/<module>_options.py) and its entry
in cli/main.COMMANDS name the same commands, and each handler is a function of its module."""

import argparse
import importlib.util

from ssdlab.cli.main import COMMANDS, build_parser, load_command, named_command


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


def test_a_command_named_first_is_parsed_by_its_own_options_alone() -> None:
    line = ["--width", "90", "metrics", "--db", "x.db", "--textfile", "dir"]
    assert named_command(line) == "metrics"
    whole = build_parser().parse_args(line)
    alone = build_parser(named_command(line)).parse_args(line)
    assert vars(alone) == vars(whole)
    assert _commands(build_parser("plan")) == {"plan", "run", "resume"}  # its module's three
    for other in (["-h", "metrics"], ["--version"], ["--wid", "9", "metrics"], ["bogus"], []):
        assert named_command(other) is None  # parsed with every command's options


def test_ssdlab_metrics_imports_no_other_commands_options_nor_numpy() -> None:
    """A scrape's start-up: the parser of `metrics` only; numpy is imported by the first wear
    fit (a store with drives), never by the parser."""
    import subprocess
    import sys

    code = (
        "import sys; from ssdlab.cli import main;"
        "main.build_parser(main.named_command(['metrics'])).parse_args(['metrics']);"
        "print(' '.join(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(done.stdout.split())
    assert "ssdlab.cli.metrics_options" in loaded
    assert not {m for m in loaded if m.endswith("_options") and "metrics" not in m} - {
        "ssdlab.cli.common_options",
        "ssdlab.cli.fleet_options",  # `fleet run … -- OPTIONS` is split before parsing
    }
    assert not {m for m in loaded if m.split(".")[0] in ("numpy", "scipy")}
