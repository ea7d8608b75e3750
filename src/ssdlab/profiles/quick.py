"""Load and validate the quick suite's presets from profiles/quick.toml; its option table
(`SPEC`) is built from them and fills `QuickSettings` (model/plan.py)."""

from dataclasses import dataclass
from importlib import resources

from ssdlab.errors import UsageError
from ssdlab.model.plan import QuickSettings, TestShape, parse_test_shape
from ssdlab.model.profile import OptionKind, OptionSpec, ProfileSpec, Writes
from ssdlab.model.toml_text import parse_toml
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


def parse_quick_profile(text: str, origin: str = "profiles/quick.toml") -> QuickProfile:
    """Validate the TOML text of a quick profile; raise ValueError naming the bad entry."""
    data = parse_toml(text, origin)
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


def preset_tests(preset: Preset) -> str:
    """A preset's tests in a line: 'SEQ1M Q8T1, RND4K Q1T1'."""
    return ", ".join(shape.label for shape in preset.shapes)


def _preset_help(profile: QuickProfile) -> str:
    """The presets in the profile's order, each with the timings it sets, and the default."""
    names: list[str] = []
    for preset in profile.presets.values():
        timings = [
            f"{seconds:g} s {what}"
            for seconds, what in ((preset.measure_s, "measure"), (preset.interval_s, "interval"))
            if seconds is not None
        ]
        names.append(f"{preset.name} ({', '.join(timings)})" if timings else preset.name)
    return f"{', '.join(names)}; default: {profile.default_preset}"


def quick_spec(profile: QuickProfile) -> ProfileSpec:
    """The quick suite's option table, its defaults and preset names taken from the profile.

    --size and --buffered are every profile's own (`default_file_size_bytes`); they fill the
    `size_bytes` and `direct_io` fields. A value not given falls back to the preset's
    (--measure, --interval), else to the table's default.
    """
    return ProfileSpec(
        name=profile.name,
        version=profile.version,
        summary="CrystalDiskMark-style suite on a file or device",
        description="CrystalDiskMark-class quick suite: one discarded warm-up pass, then COUNT "
        "time-based passes per test; the headline is the best pass (as CrystalDiskMark "
        "shows it) and the spread of the passes is shown beside it. MB/s = 10^6 bytes/s.",
        options=(
            OptionSpec(
                "preset",
                OptionKind.TEXT,
                profile.default_preset,
                _preset_help(profile),
                choices=tuple(profile.presets),
            ),
            OptionSpec(
                "count",
                OptionKind.COUNT,
                profile.default_count,
                f"measured passes per test (default {profile.default_count})",
                minimum=1,
                maximum=100,
            ),
            OptionSpec(
                "measure",
                OptionKind.PLAIN_SECONDS,
                profile.default_measure_s,
                f"seconds per pass (default {profile.default_measure_s:g})",
                minimum=0.1,
                maximum=3600,
                metavar="SECONDS",
                fills="measure_s",
            ),
            OptionSpec(
                "interval",
                OptionKind.PLAIN_SECONDS,
                profile.default_interval_s,
                f"pause between tests (default {profile.default_interval_s:g})",
                minimum=0,
                maximum=3600,
                metavar="SECONDS",
                fills="interval_s",
            ),
            OptionSpec(
                "mode",
                OptionKind.TEXT,
                "all",
                "all (read, write and mix), read, write, mix, or a list such as read,write",
            ),
            OptionSpec(
                "mix",
                OptionKind.PCT,
                profile.default_mix_read_pct,
                f"read share of mix tests (default {profile.default_mix_read_pct})",
                minimum=0,
                maximum=100,
                metavar="READ_PCT",
                fills="mix_read_pct",
            ),
            OptionSpec(
                "data",
                OptionKind.CHOICE,
                "random",
                "write random (incompressible) data or zeros",
                choices=("random", "zero"),
            ),
            OptionSpec(
                "zero_fill",
                OptionKind.FLAG,
                False,
                "fill the test file with zeros (same as --data zero)",
                fills="data",
                flag_value="zero",
            ),
            OptionSpec(
                "ioengine",
                OptionKind.TEXT,
                "libaio",
                "fio ioengine (default libaio; 'null' measures ssdlab and fio themselves)",
            ),
        ),
        examples=(
            "ssdlab quick",
            "ssdlab quick /mnt/ssd --preset nvme --count 3",
            "ssdlab quick --size 256MiB --measure 2 --count 1 --interval 0",
            "ssdlab quick /dev/sdb --destroy-data /dev/sdb --json > result.json",
        ),
        writes=Writes.DEPENDS,  # on --mode: read-only tests write nothing
        default_file_size_bytes=profile.default_size_bytes,
        whole_device_by_default=False,
        settings_type=QuickSettings,
        filled_elsewhere=(
            ("size_bytes", "--size, every profile's own option"),
            ("direct_io", "--buffered (not given: direct I/O), every profile's own option"),
        ),
    )


SPEC = quick_spec(load_quick_profile())
