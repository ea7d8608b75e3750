"""The one TOML reader: a table, or one error naming the file and the line."""

from collections.abc import Callable

import pytest

from ssdlab.model.toml_text import TomlError, parse_toml
from ssdlab.parse.smart_vendors import parse_vendor_map
from ssdlab.parse.spec_sheet import parse_spec_sheet
from ssdlab.profiles.pts import parse_pts_catalogue
from ssdlab.profiles.quick import parse_quick_profile
from ssdlab.sim.presets import parse_presets


def test_a_table() -> None:
    assert parse_toml('a = 1\n[b]\nc = "d"\n', "x.toml") == {"a": 1, "b": {"c": "d"}}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a = 1\nb = \n", r"^x\.toml: not valid TOML at line 2 \(Invalid value\)$"),
        ("a = 1\na = 2\n", r"^x\.toml: not valid TOML at line 2 \(Cannot overwrite a value\)$"),
        ('a = "open', r"^x\.toml: not valid TOML at its end \(Unterminated string\)$"),
        ("n = " + "9" * 5000, r"^x\.toml: not valid TOML \(Exceeds the limit .*\)$"),
        ("m = " + "[" * 5000, r"^x\.toml: not valid TOML \(nested too deeply\)$"),
    ],
)
def test_text_that_is_not_toml_is_one_line_naming_the_file(text: str, message: str) -> None:
    with pytest.raises(TomlError, match=message) as caught:
        parse_toml(text, "x.toml")
    assert "\n" not in str(caught.value)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    "load",
    [
        lambda text: parse_pts_catalogue(text),
        lambda text: parse_quick_profile(text),
        lambda text: parse_presets(text),
        lambda text: parse_spec_sheet(text, "x.toml"),
        lambda text: parse_vendor_map(text, origin="x.toml"),
    ],
    ids=["pts catalogue", "quick profile", "sim presets", "spec sheet", "vendor map"],
)
def test_every_loader_reports_bad_toml_the_same_way(load: Callable[[str], object]) -> None:
    with pytest.raises(Exception, match=r": not valid TOML at line 2 \(Invalid value\)$"):
        load("a = 1\nb = \n")
