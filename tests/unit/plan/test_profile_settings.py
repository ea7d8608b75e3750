"""Settings from a profile's option table: defaults, ranges, choices, typed reads."""

import pytest

from ssdlab.errors import UsageError
from ssdlab.model.profile import OptionKind, OptionSpec, PlanTarget, ProfileSpec, Writes
from ssdlab.model.units import GiB, MiB
from ssdlab.plan.profile import Values, region_bytes, resolve_profile_settings

SPEC = ProfileSpec(
    name="demo",
    version=1,
    summary="",
    description="",
    options=(
        OptionSpec("runtime", OptionKind.SECONDS, 10.0, "", minimum=0.1, maximum=60),
        OptionSpec("levels", OptionKind.PCTS, (0, 50), "", minimum=0, maximum=99),
        OptionSpec("pattern", OptionKind.CHOICE, "seq", "", choices=("seq", "rand")),
        OptionSpec("bound", OptionKind.INT, None, ""),
    ),
    examples=(),
    writes=Writes.ALWAYS,
    default_file_size_bytes=GiB,
    whole_device_by_default=True,
)


def test_defaults_fill_in_and_keep_table_order() -> None:
    settings = resolve_profile_settings(SPEC, {"pattern": "rand"})
    assert [name for name, _ in settings] == ["runtime", "levels", "pattern", "bound"]
    values = Values(settings)
    assert values.number("runtime") == 10.0
    assert values.integers("levels") == (0, 50)
    assert values.text("pattern") == "rand"
    assert values.optional_integer("bound") is None


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"runtime": 0.01}, "--runtime must be at least 0.1"),
        ({"runtime": 61.0}, "--runtime must be at most 60"),
        ({"levels": (10, 100)}, "--levels must be at most 99"),
        ({"levels": ()}, "--levels needs at least one value"),
        ({"pattern": "zig"}, "--pattern must be one of seq, rand"),
    ],
)
def test_bad_values_name_the_option(given: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        resolve_profile_settings(SPEC, given)  # type: ignore[arg-type]


def test_unknown_option_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="no option"):
        resolve_profile_settings(SPEC, {"nope": 1})


def test_typed_reads_refuse_the_wrong_type() -> None:
    values = Values((("runtime", "ten"), ("flag", True)))
    with pytest.raises(TypeError):
        values.number("runtime")
    with pytest.raises(TypeError):
        values.integer("flag")  # a bool is not a count


def test_region_is_whole_mib_and_within_the_device() -> None:
    target = PlanTarget("/dev/x", "device", 10 * MiB + 5, 10 * MiB + 5, True, False)
    assert region_bytes(target, None) == 10 * MiB
    with pytest.raises(UsageError, match="larger than /dev/x"):
        region_bytes(target, 11 * MiB)
    with pytest.raises(UsageError, match="at least 1 MiB"):
        region_bytes(target, 1000)
