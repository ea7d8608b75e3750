"""The quick suite's option table (profiles/quick.py SPEC) is read from quick.toml, and
`ssdlab quick` / `ssdlab plan quick` are built from it."""

import argparse

import pytest

from ssdlab.app.run_plan import quick_settings_of
from ssdlab.cli.main import build_parser
from ssdlab.cli.profile_setup import given_settings, target_request
from ssdlab.model.plan import QuickSettings
from ssdlab.model.profile import OptionKind
from ssdlab.profiles.quick import SPEC, load_quick_profile, parse_quick_profile, quick_spec

PROFILE = load_quick_profile()
OTHER = """\
profile = "quick"
version = 3
[defaults]
preset = "b"
size = "256MiB"
count = 2
measure_s = 1.5
interval_s = 0
mix_read_pct = 50
[presets.a]
tests = ["SEQ1M Q8T1"]
[presets.b]
tests = ["RND4K Q1T1"]
measure_s = 2
"""


def test_defaults_and_presets_come_from_the_toml() -> None:
    assert SPEC.name == "quick"
    assert SPEC.version == PROFILE.version
    assert SPEC.default_file_size_bytes == PROFILE.default_size_bytes
    preset = SPEC.option("preset")
    assert preset.default == PROFILE.default_preset
    assert preset.choices == tuple(PROFILE.presets)
    assert SPEC.option("count").default == PROFILE.default_count
    assert SPEC.option("measure").default == PROFILE.default_measure_s
    assert SPEC.option("interval").default == PROFILE.default_interval_s
    assert SPEC.option("mix").default == PROFILE.default_mix_read_pct


def test_help_shows_what_the_toml_says() -> None:
    spec = quick_spec(parse_quick_profile(OTHER))
    assert spec.version == 3
    assert spec.default_file_size_bytes == 256 * 2**20
    assert spec.option("preset").help == "a, b (2 s measure); default: b"
    assert spec.option("preset").choices == ("a", "b")
    assert "(default 2)" in spec.option("count").help
    assert "(default 1.5)" in spec.option("measure").help
    assert "(default 0)" in spec.option("interval").help
    assert "(default 50)" in spec.option("mix").help


@pytest.mark.parametrize("command", [["quick"], ["plan", "quick"]])
def test_every_option_reaches_the_command_line(command: list[str]) -> None:
    args = build_parser().parse_args([*command, "/tmp"])
    for option in SPEC.options:
        assert getattr(args, option.name) in (None, False), option.name
    assert args.size is None
    assert args.buffered is False
    assert args.destroy_data is None


def test_options_parse_with_the_checks_they_had() -> None:
    parser = build_parser()
    args = parser.parse_args(
        ["quick", "--preset", "nvme", "--count", "3", "--measure", "0.5", "--mix", "60"]
    )
    assert (args.preset, args.count, args.measure, args.mix) == ("nvme", 3, 0.5, 60)
    kinds = {option.name: option.kind for option in SPEC.options}
    assert kinds["count"] is OptionKind.COUNT
    assert kinds["measure"] is OptionKind.PLAIN_SECONDS
    for bad in (["--count", "0"], ["--measure", "5m"], ["--mix", "101"], ["--data", "ones"]):
        with pytest.raises(SystemExit) as stop:
            parser.parse_args(["quick", *bad])
        assert stop.value.code == 2


def _settings(args: argparse.Namespace) -> QuickSettings:
    """The quick settings `ssdlab quick` runs with, from its parsed options."""
    return quick_settings_of(dict(given_settings(args, SPEC)), target_request(args))


def test_settings_take_the_preset_then_the_table_defaults() -> None:
    settings = _settings(build_parser().parse_args(["quick", "--preset", "flash"]))
    assert (settings.preset, settings.mode, settings.data, settings.ioengine) == (
        "flash",
        "read,write,mix",
        "random",
        "libaio",
    )
    assert (settings.measure_s, settings.interval_s) == (1.0, 30.0)  # the preset's
    assert settings.count == PROFILE.default_count
    assert settings.direct_io
    zero = _settings(build_parser().parse_args(["quick", "--zero-fill", "--mode", "read"]))
    assert (zero.data, zero.mode) == ("zero", "read")
