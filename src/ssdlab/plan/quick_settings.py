"""The quick suite's settings: the command line's values over the preset's over the option
table's defaults, as `QuickSettings`, checked; and the pairs a quick plan stores them as.

Each option of the table (profiles/quick.py) fills the field of QuickSettings it names
(`--measure` fills `measure_s`, `--zero-fill` puts "zero" in `data`); `--size` and `--buffered`
fill `size_bytes` and `direct_io`. A preset sets `measure_s` and `interval_s` where it says.
"""

import dataclasses
from collections.abc import Mapping

from ssdlab.errors import UsageError
from ssdlab.model.plan import Direction, QuickSettings
from ssdlab.model.profile import OptionKind, SettingValue
from ssdlab.model.typed_settings import decode_settings
from ssdlab.model.units import MiB
from ssdlab.profiles.quick import Preset, QuickProfile, load_quick_profile, preset_named, quick_spec

MODES: dict[str, tuple[Direction, ...]] = {
    "all": (Direction.READ, Direction.WRITE, Direction.MIX),
    "read": (Direction.READ,),
    "write": (Direction.WRITE,),
    "mix": (Direction.MIX,),
}
DATA_CHOICES = ("random", "zero")


def parse_mode(text: str) -> tuple[Direction, ...]:
    """'all', 'read', 'write', 'mix' or a comma list such as 'read,write'."""
    directions: list[Direction] = []
    for part in text.split(","):
        name = part.strip().lower()
        if name not in MODES:
            raise UsageError(
                f"--mode {text!r}: choose all, read, write, mix or a comma list (read,write)"
            )
        directions.extend(d for d in MODES[name] if d not in directions)
    order = (Direction.READ, Direction.WRITE, Direction.MIX)
    return tuple(d for d in order if d in directions)


def _preset_fields(preset: Preset) -> dict[str, SettingValue]:
    """The fields a preset sets (its measure and interval, where it gives them)."""
    fields: dict[str, SettingValue] = {
        "measure_s": preset.measure_s or None,
        "interval_s": preset.interval_s,
    }
    return {name: value for name, value in fields.items() if value is not None}


def quick_settings(
    given: Mapping[str, SettingValue],
    *,
    size_bytes: int | None,
    direct_io: bool,
    profile: QuickProfile | None = None,
) -> QuickSettings:
    """The values given on the command line (by option name; None or False: not given) as
    QuickSettings: each in the field its option fills, over the chosen preset's, over the
    table's defaults; `size_bytes` None takes the profile's test size. Checked: a UsageError
    names the option of a value out of range."""
    profile = profile or load_quick_profile()
    spec = quick_spec(profile)
    defaults: dict[str, SettingValue] = {
        option.field_name: option.default
        for option in spec.options
        if option.kind is not OptionKind.FLAG
    }
    chosen: dict[str, SettingValue] = {}
    for option in spec.options:
        value = given.get(option.name)
        if value is not None and value is not False:
            flag = option.kind is OptionKind.FLAG
            chosen[option.field_name] = option.flag_value if flag else value
    preset = preset_named(profile, str(chosen.get("preset", defaults["preset"])))
    fields: dict[str, SettingValue] = {
        **defaults,
        **_preset_fields(preset),
        **chosen,
        "size_bytes": profile.default_size_bytes if size_bytes is None else size_bytes,
        "direct_io": direct_io,
    }
    fields["mode"] = ",".join(d.value for d in parse_mode(str(fields["mode"])))
    settings = decode_settings(QuickSettings, fields.items())
    check_quick_settings(settings)
    return settings


def check_quick_settings(settings: QuickSettings) -> None:
    """Refuse a value out of range, naming its option."""
    if settings.size_bytes < MiB:
        raise UsageError(f"--size must be at least 1MiB (got {settings.size_bytes} bytes)")
    if not 1 <= settings.count <= 100:
        raise UsageError(f"--count must be between 1 and 100 (got {settings.count})")
    if not 0.1 <= settings.measure_s <= 3600:
        raise UsageError(
            f"--measure must be between 0.1 and 3600 seconds (got {settings.measure_s})"
        )
    if not 0 <= settings.interval_s <= 3600:
        raise UsageError(
            f"--interval must be between 0 and 3600 seconds (got {settings.interval_s})"
        )
    if not 0 <= settings.mix_read_pct <= 100:
        raise UsageError(
            f"--mix must be a read percentage from 0 to 100 (got {settings.mix_read_pct})"
        )
    if settings.data not in DATA_CHOICES:
        raise UsageError(f"--data must be random or zero (got {settings.data!r})")
    if not settings.ioengine.replace("_", "").isalnum():
        raise UsageError(f"--ioengine {settings.ioengine!r} is not an ioengine name")


def settings_pairs(settings: QuickSettings) -> tuple[tuple[str, SettingValue], ...]:
    """A quick run's settings as a plan records them (the stored settings of every quick run):
    QuickSettings' fields, in order."""
    return tuple((f.name, getattr(settings, f.name)) for f in dataclasses.fields(QuickSettings))
