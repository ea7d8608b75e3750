"""A whole percentage as options read it (cli/arg_types.pct_arg): with or without its sign."""

import argparse

import pytest

from ssdlab.cli.arg_types import pct_arg


def test_a_percentage_with_or_without_its_sign() -> None:
    assert pct_arg("50") == 50
    assert pct_arg("50%") == 50
    assert pct_arg("0%") == 0


@pytest.mark.parametrize("text", ["101", "-1%", "half", "50.5%", "%"])
def test_what_is_not_a_whole_percentage_is_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        pct_arg(text)
