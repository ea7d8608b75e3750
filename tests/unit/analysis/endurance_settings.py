"""The endurance profile's typed settings for tests: the table's defaults, with some given."""

from ssdlab.model.profile import SettingValue
from ssdlab.model.profile_settings import EnduranceSettings
from ssdlab.model.typed_settings import decode_settings
from ssdlab.plan.profile import resolve_profile_settings
from ssdlab.profiles.endurance import SPEC


def endurance_settings(**given: SettingValue) -> EnduranceSettings:
    """As `ssdlab endure` resolves them: what is given, else the table's default."""
    return decode_settings(EnduranceSettings, resolve_profile_settings(SPEC, given))
