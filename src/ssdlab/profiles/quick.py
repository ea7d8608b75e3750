"""Load and validate the quick suite's presets from profiles/quick.toml."""

import tomllib
from dataclasses import dataclass
from importlib import resources

from ssdlab.errors import UsageError
from ssdlab.model.plan import TestShape, parse_test_shape
from ssdlab.model.units import parse_size_bytes


@dataclass(frozen=True, slots=True)
class Preset:
    name: str
    description: str
    shapes: tuple[TestShape, ...]
    measure_s: float | None  # None: the profile default
    interval_s: float | None


@dataclass(frozen=True, slots=True)
class QuickProfile:
    name: str
    version: int
    default_preset: str
    default_size_bytes: int
    default_count: int
    default_measure_s: float
    default_interval_s: float
    default_mix_read_pct: int
    presets: dict[str, Preset]


def parse_quick_profile(text: str) -> QuickProfile:
    """Validate the TOML text of a quick profile; raise ValueError naming the bad entry."""
    data = tomllib.loads(text)
    defaults = data["defaults"]
    presets: dict[str, Preset] = {}
    for name, entry in data["presets"].items():
        shapes = tuple(parse_test_shape(label) for label in entry["tests"])
        if not shapes:
            raise ValueError(f"preset {name!r} has no tests")
        presets[name] = Preset(
            name=name,
            description=str(entry.get("description", "")),
            shapes=shapes,
            measure_s=float(entry["measure_s"]) if "measure_s" in entry else None,
            interval_s=float(entry["interval_s"]) if "interval_s" in entry else None,
        )
    if defaults["preset"] not in presets:
        raise ValueError(f"default preset {defaults['preset']!r} is not defined")
    return QuickProfile(
        name=str(data["profile"]),
        version=int(data["version"]),
        default_preset=str(defaults["preset"]),
        default_size_bytes=parse_size_bytes(str(defaults["size"])),
        default_count=int(defaults["count"]),
        default_measure_s=float(defaults["measure_s"]),
        default_interval_s=float(defaults["interval_s"]),
        default_mix_read_pct=int(defaults["mix_read_pct"]),
        presets=presets,
    )


def load_quick_profile() -> QuickProfile:
    """The built-in quick profile shipped with ssdlab."""
    text = resources.files("ssdlab.profiles").joinpath("quick.toml").read_text(encoding="utf-8")
    return parse_quick_profile(text)


def preset_named(profile: QuickProfile, name: str) -> Preset:
    try:
        return profile.presets[name]
    except KeyError:
        names = ", ".join(sorted(profile.presets))
        raise UsageError(f"unknown preset {name!r}; choose one of: {names}") from None
