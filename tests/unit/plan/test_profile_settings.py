"""Settings from a profile's option table: defaults, ranges, choices, decoded into its class."""

from dataclasses import dataclass

import pytest

from ssdlab.errors import UsageError
from ssdlab.model.profile import OptionKind, OptionSpec, PlanTarget, ProfileSpec, Writes
from ssdlab.model.profile_settings import AlignSettings
from ssdlab.model.units import GiB, MiB
from ssdlab.plan.profile import region_bytes, resolve_profile_settings, start_plan


@dataclass(frozen=True, slots=True, kw_only=True)
class DemoSettings:
    runtime: float
    levels: tuple[int, ...]
    pattern: str
    bound: int | None


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
    settings_type=DemoSettings,
)
TARGET = PlanTarget("/srv/ssd/t.tmp", "file", GiB, None, True, False)


def test_defaults_fill_in_and_keep_table_order() -> None:
    pairs, settings = start_plan(SPEC, DemoSettings, {"pattern": "rand", "runtime": 5}, TARGET)
    assert pairs == (("runtime", 5), ("levels", (0, 50)), ("pattern", "rand"), ("bound", None))
    assert settings == DemoSettings(runtime=5.0, levels=(0, 50), pattern="rand", bound=None)
    assert isinstance(settings.runtime, float)  # the pairs keep what was given


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


def test_a_planner_decodes_into_the_class_its_table_fills() -> None:
    with pytest.raises(ValueError, match="fills"):
        start_plan(SPEC, AlignSettings, {}, TARGET)


def test_region_is_whole_mib_and_within_the_device() -> None:
    target = PlanTarget("/dev/x", "device", 10 * MiB + 5, 10 * MiB + 5, True, False)
    assert region_bytes(target, None) == 10 * MiB
    with pytest.raises(UsageError, match="larger than /dev/x"):
        region_bytes(target, 11 * MiB)
    with pytest.raises(UsageError, match="at least 1 MiB"):
        region_bytes(target, 1000)
