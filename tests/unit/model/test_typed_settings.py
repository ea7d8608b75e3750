"""Settings pairs, as a plan keeps them, read back into a profile's typed class."""

import json
from dataclasses import dataclass

import pytest

from ssdlab.model.json_fields import dumps
from ssdlab.model.typed_settings import decode_settings


@dataclass(frozen=True, slots=True, kw_only=True)
class Demo:
    runtime: float
    sizes: tuple[int, ...]
    bound: float | None
    pattern: str
    flag: bool
    later: int | None = None  # a field added after plans were stored without it


PAIRS = (
    ("runtime", 10),
    ("sizes", (512, 4096)),
    ("bound", 3),
    ("pattern", "seq"),
    ("flag", True),
    ("later", 7),
)


def test_fields_are_read_with_their_types() -> None:
    settings = decode_settings(Demo, PAIRS)
    assert settings == Demo(
        runtime=10.0, sizes=(512, 4096), bound=3.0, pattern="seq", flag=True, later=7
    )
    assert isinstance(settings.runtime, float)  # a whole number in a float field
    assert isinstance(settings.bound, float)


def test_stored_json_reads_back_the_same() -> None:
    stored = json.loads(dumps({"settings": PAIRS}))["settings"]  # tuples come back as lists
    assert decode_settings(Demo, [tuple(pair) for pair in stored]) == decode_settings(Demo, PAIRS)


def test_a_field_the_pairs_lack_takes_its_default() -> None:
    settings = decode_settings(Demo, PAIRS[:-1])
    assert settings.later is None


@pytest.mark.parametrize(
    ("pairs", "words"),
    [
        (PAIRS[1:], "runtime: missing"),
        ((*PAIRS, ("gone", 1)), "no field gone"),
        ((("runtime", "ten"), *PAIRS[1:]), "runtime: expected a number"),
        ((*PAIRS[:4], ("flag", 1), *PAIRS[5:]), "flag: expected true or false"),
        ((PAIRS[0], ("sizes", (512, "4k")), *PAIRS[2:]), r"sizes\[1\]: expected a whole"),
    ],
)
def test_what_does_not_fit_is_refused_naming_the_field(
    pairs: tuple[tuple[str, object], ...], words: str
) -> None:
    with pytest.raises(ValueError, match=words):
        decode_settings(Demo, pairs)  # type: ignore[arg-type]
